/**
 * A stub's callbacks, compiled once: in a template stub every string is a Handlebars
 * template; in any other stub `{name}` placeholders take the request's captures. Rendering
 * gives the requests the callback queue sends.
 * @module
 */

import type { CallbackSpec } from "../../stubs/callback_field.ts";
import {
  compileJsonTemplate,
  compileTemplate,
  type JsonTemplate,
  type ResponseTemplate,
  type TemplateModel,
} from "../../templating/handlebars.ts";
import { compileJson, compileText, render, type Template } from "../../stubs/placeholders.ts";
import type { OutgoingCallback } from "./callbacks.ts";

/** One compiled piece of text: a Handlebars template or a placeholder template. */
type Text = { hbs: ResponseTemplate | JsonTemplate } | { slots: Template };

interface CompiledCallback {
  method: string;
  url: Text;
  headers: [string, Text][];
  body: Text | undefined;
  /** The body is JSON (sent with `content-type: application/json` unless a header says otherwise). */
  json: boolean;
  /** No header gives a content type: the body goes out as bytes, which fetch sends untyped (not as text/plain). */
  untyped: boolean;
  delayMs?: number;
}

const UTF8 = new TextEncoder();

/** The callbacks of one stub, ready to render per request. */
export class StubCallbacks {
  readonly #callbacks: CompiledCallback[];
  /** Do they read the request model (a template stub), rather than only captures? */
  readonly templated: boolean;
  /** Does one of them read the request body (so the whole body is read before the answer)? */
  readonly readsBody: boolean;

  constructor(specs: readonly CallbackSpec[], template: boolean, names: readonly string[]) {
    this.templated = template;
    const text = (value: string): Text =>
      template ? { hbs: compileTemplate(value) } : { slots: compileText(value, names) };
    this.#callbacks = specs.map((spec) => {
      const json = spec.body !== undefined && typeof spec.body !== "string";
      const body: Text | undefined = spec.body === undefined
        ? undefined
        : typeof spec.body === "string"
        ? text(spec.body)
        : template
        ? { hbs: compileJsonTemplate(spec.body) }
        : { slots: compileJson(spec.body, names) };
      const headers: [string, Text][] = [];
      for (const name in spec.headers) {
        const value = spec.headers[name];
        headers.push([name, text(Array.isArray(value) ? value.join(", ") : value as string)]);
      }
      if (json && !headers.some(([name]) => name.toLowerCase() === "content-type")) {
        headers.push(["content-type", { slots: "application/json" }]);
      }
      const untyped = !headers.some(([name]) => name.toLowerCase() === "content-type");
      return { method: spec.method, url: text(spec.url), headers, body, json, untyped, delayMs: spec.delayMs };
    });
    const reads = (text: Text | undefined) => text !== undefined && "hbs" in text && text.hbs.readsBody;
    this.readsBody = this.#callbacks.some((c) => reads(c.url) || reads(c.body) || c.headers.some(([, v]) => reads(v)));
  }

  /** The requests to send for one answered request (`model` for a template stub). */
  render(values: readonly string[], model: TemplateModel | undefined): OutgoingCallback[] {
    const fill = (text: Text) => "hbs" in text ? text.hbs.render(model!) : render(text.slots, values);
    return this.#callbacks.map((c) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of c.headers) headers[name] = fill(value);
      return {
        method: c.method,
        url: fill(c.url),
        headers,
        ...(c.body === undefined ? {} : { body: c.untyped ? UTF8.encode(fill(c.body)) : fill(c.body) }),
        ...(c.delayMs === undefined ? {} : { delayMs: c.delayMs }),
      };
    });
  }
}
