// The part of the `xpath` package stubtool uses. Its own declarations start with
// `/// <reference lib="dom" />`, which puts the DOM's stream types over Deno's in every
// program that imports it (`pipeThrough(new TextDecoderStream())` then fails to check).
declare const xpath: {
  parse(expression: string): unknown;
};
export default xpath;
