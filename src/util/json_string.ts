/**
 * JSON string escaping: the inside of a JSON string literal, for `{name}` placeholders and Handlebars slots alike.
 * @module
 */

// deno-lint-ignore no-control-regex -- control characters are exactly what must be caught
const JSON_UNSAFE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Escapes a value for the inside of a JSON string literal. */
export function escapeJsonString(value: string): string {
  return JSON_UNSAFE.test(value) ? JSON.stringify(value).slice(1, -1) : value;
}
