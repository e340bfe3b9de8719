/**
 * Answers: the status + headers + body text the handler produces, compiled once per stub
 * response, and handed to an adapter's {@link Respond} to become a fetch
 * `Response` (Deno) or a direct write (Node).
 * @module
 */

import { messageOf } from "../error_message.ts";
import type { Delay, HeaderMap, ResponseSpec } from "../stubs/model.ts";
import { compileJson, compileText, render, type Template } from "../stubs/placeholders.ts";
import { checkHeaders, checkStatus, describe } from "../stubs/validate.ts";
import { isJsonMediaType } from "../util/media.ts";

/**
 * Status and headers of an answer. Shaped as a `ResponseInit`, so Deno passes it as is;
 * the headers are a record because Deno converts a record to `Headers` in about a third of
 * the time it takes for a list of pairs (~100 vs ~270 ns, measured: 2 % of peak throughput).
 */
export interface ResponseHead {
  /** The response status. */
  status: number;
  /** Response headers: name → value. */
  headers: Record<string, string>;
  /** Headers sent several times (two `set-cookie`s): name → each value. Rare, so kept apart. */
  lists?: Record<string, string[]>;
  /** The reason phrase (a stub's `status_message`); absent: the standard one. Deno.serve sends the standard one. */
  statusText?: string;
}

/** A header record that takes any valid header name as an own key (`__proto__` too). */
function headerRecord(): Record<string, string> {
  return Object.create(null);
}

/**
 * An answer's body: text (sent as UTF-8), bytes, a stream of bytes (sent as it comes, with
 * backpressure: a large answer or a proxied one), or null for none.
 */
export type AnswerBody = string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>> | null;

/**
 * Streamed bodies whose head must go out at once, before their first chunk is ready (an
 * event stream whose first event waits): adapters that hold the head back until the first
 * write send it early for these.
 */
export const HEAD_FIRST: WeakSet<ReadableStream> = new WeakSet();

/** Turns an answer into the adapter's own response type. */
export type Respond<R> = (head: ResponseHead, body: AnswerBody) => R;

/** The fetch {@link Respond}: builds a `Response`. */
export const toResponse: Respond<Response> = (head, body) => {
  if (!head.lists) return new Response(body, head);
  const headers = new Headers(head.headers);
  for (const name in head.lists) for (const value of head.lists[name]) headers.append(name, value);
  return new Response(body, { status: head.status, statusText: head.statusText, headers });
};

const UTF8 = new TextEncoder();

/** Does the head carry this header (any case)? */
function hasHeader(head: ResponseHead, name: string): boolean {
  for (const key in head.headers) if (key.toLowerCase() === name) return true;
  return false;
}

/** Statuses whose answers never carry a body, so a HEAD answer to them claims no length either. */
function bodiless(status: number): boolean {
  return status < 200 || status === 204 || status === 304;
}

/** A copy of `head` that says the body is `length` bytes long (replacing any content-length it had). */
function withLength(head: ResponseHead, length: number): ResponseHead {
  const headers = headerRecord();
  for (const key in head.headers) if (key.toLowerCase() !== "content-length") headers[key] = head.headers[key];
  headers["content-length"] = String(length);
  return { ...head, headers };
}

/**
 * Answers HEAD requests through `respond`: the answer a GET would get, with the length its
 * body would have and no body (RFC 9110 §9.3.2), so both runtimes send the same head
 * (Deno.serve said `content-length: 0` for every HEAD answer built without a body). A stream
 * of unknown length is passed on as is: the runtime sends none of it for HEAD and claims no
 * length, and a stream that fails (a `disconnect` fault) still cuts the connection.
 */
export function headAnswer<R>(respond: Respond<R>): Respond<R> {
  return (head, body) => {
    if (body === null) {
      return respond(bodiless(head.status) || hasHeader(head, "content-length") ? head : withLength(head, 0), null);
    }
    if (typeof body === "string") return respond(withLength(head, UTF8.encode(body).byteLength), null);
    if (body instanceof Uint8Array) return respond(withLength(head, body.byteLength), null);
    if (!hasHeader(head, "content-length")) return respond(head, body);
    body.cancel().catch(() => {});
    return respond(head, null);
  };
}

/**
 * Is a string body sent as written (else as JSON)? Under a non-JSON content type, and when
 * the stub sends no content type at all (`content-type: null`): nothing then says it is JSON.
 */
export function textual(contentType: string | undefined, untyped: boolean): boolean {
  return untyped || (contentType !== undefined && !isJsonMediaType(contentType));
}

/** The first value of header `name` (lower-case) in a stub's header map. */
export function findHeader(headers: HeaderMap | undefined, name: string): string | undefined {
  for (const key in headers) {
    if (key.toLowerCase() !== name) continue;
    const value = headers[key];
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** Header values cannot carry control characters, nor characters above U+00FF (they are bytes). */
// deno-lint-ignore no-control-regex -- control characters are exactly what must be caught
const UNSENDABLE = /[\0-\x08\x0a-\x1f\x7f\u0100-\uffff]/;

const jsonHeads = new Map<number, ResponseHead>();

/**
 * The head of a JSON answer with `status`: one shared head per status, or a new one when
 * it carries more headers (an `etag`, an `allow`).
 */
export function jsonHead(status = 200, headers?: Record<string, string>): ResponseHead {
  if (headers) return { status, headers: { "content-type": "application/json", ...headers } };
  let head = jsonHeads.get(status);
  if (!head) {
    head = { status, headers: { "content-type": "application/json" } };
    jsonHeads.set(status, head);
  }
  return head;
}

/** The head and body of a JSON answer: `value` as JSON text. */
export function jsonAnswer(value: unknown, status = 200): [ResponseHead, string] {
  return [jsonHead(status), JSON.stringify(value)];
}

/** The head and body of a JSON error, the shape of every error the server produces itself. */
export function errorAnswer(
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): [ResponseHead, string] {
  return [jsonHead(status, headers), JSON.stringify({ error, ...extra })];
}

/** `405`: `pathname` takes the methods in `allow` (said in the error and the `allow` header), not `method`. */
export function notAllowedAnswer(pathname: string, method: string, allow: readonly string[]): [ResponseHead, string] {
  const methods = allow.join(", ");
  return errorAnswer(405, `${pathname} accepts ${methods}, not ${method}`, {}, { allow: methods });
}

/** A JSON error as a fetch `Response`. */
export function jsonError(status: number, error: string): Response {
  const [head, body] = errorAnswer(status, error);
  return toResponse(head, body);
}

const sharedHeads = new Map<number, ResponseHead>();

/** One head object per status and body presence for stubs without headers of their own. */
function sharedHead(status: number, hasBody: boolean): ResponseHead {
  const key = hasBody ? status : -status;
  let head = sharedHeads.get(key);
  if (!head) {
    head = { status, headers: hasBody ? { "content-type": "application/json" } : {} };
    sharedHeads.set(key, head);
  }
  return head;
}

/** Thrown while rendering when a captured value would break a header. */
export class HeaderValueError extends Error {}

/** A header of a compiled response: one value or several, each a template. */
type HeaderTemplate = [name: string, value: Template | Template[]];

/**
 * A stub response compiled for fast rendering: templates filled per request, the rest
 * fixed. Bodies take the captured values decoded; header values take them as they were
 * sent (a path or query capture stays percent-encoded, so `%2F` in a `Location` keeps its
 * meaning, and non-ASCII text can go into a header at all).
 */
export class CompiledResponse {
  readonly status: number;
  readonly delay?: Delay;
  readonly #statusText?: string;
  #headers: HeaderTemplate[];
  #body: Template | undefined;
  /** A body of bytes (`body_file`, `body_base64`): sent as is. */
  #bytes: Uint8Array<ArrayBuffer> | undefined;
  /** Set when no header depends on the request: the same head every time. */
  #staticHead: ResponseHead | undefined;
  /** Send the rendered body text as bytes (a response without a content type). */
  #encode = false;

  constructor(spec: ResponseSpec, names: readonly string[]) {
    this.status = spec.status;
    this.delay = spec.delay;
    this.#statusText = spec.statusMessage;
    const contentType = findHeader(spec.headers, "content-type");
    const untyped = spec.noContentType === true;
    this.#bytes = spec.bytes;
    const headers: HeaderTemplate[] = spec.hasBody && contentType === undefined && !spec.bytes && !untyped
      ? [["content-type", "application/json"]]
      : [];
    let fixed = true;
    const compile = (text: string) => {
      const template = compileText(text, names);
      if (typeof template !== "string") fixed = false;
      return template;
    };
    for (const name in spec.headers) {
      const value = spec.headers[name];
      if (Array.isArray(value)) headers.push([name, value.map(compile)]);
      else headers.push([name, compile(value)]);
    }
    this.#headers = headers;
    if (spec.hasBody && !spec.bytes) {
      const asText = typeof spec.body === "string" && textual(contentType, untyped);
      this.#body = asText ? compileText(spec.body as string, names) : compileJson(spec.body, names);
      // Without a content type the body goes out as bytes: Deno's Response would type a string as text/plain.
      if (untyped) {
        if (typeof this.#body === "string") this.#bytes = UTF8.encode(this.#body);
        else this.#encode = true;
      }
    }
    if (fixed) {
      // The common case (JSON body, no headers of its own) shares one head per status.
      this.#staticHead = spec.headers === undefined && !untyped && spec.statusMessage === undefined
        ? sharedHead(this.status, spec.hasBody)
        : fixedHead(this.status, headers as [string, string | string[]][], spec.statusMessage);
    }
  }

  /**
   * Fills the templates with the request's captures (`values` decoded for the body, `raw`
   * as sent for headers). Throws {@link HeaderValueError} when a filled header value
   * cannot be sent; `respond` is not called then. (A HEAD request gets the same answer:
   * {@link headAnswer} drops its body.)
   */
  render<R>(values: readonly string[], raw: readonly string[], respond: Respond<R>): R {
    let body: AnswerBody = this.#bytes ?? (this.#body === undefined ? null : render(this.#body, values));
    if (this.#encode && typeof body === "string") body = UTF8.encode(body);
    if (this.#staticHead) return respond(this.#staticHead, body);
    const head: ResponseHead = { status: this.status, headers: headerRecord() };
    if (this.#statusText !== undefined) head.statusText = this.#statusText;
    for (const [name, template] of this.#headers) {
      if (!Array.isArray(template)) head.headers[name] = fill(name, template, raw);
      else {(head.lists ??= Object.create(null) as Record<string, string[]>)[name] = template.map((t) =>
          fill(name, t, raw)
        );}
    }
    return respond(head, body);
  }
}

/** A header value filled in; throws {@link HeaderValueError} when it cannot be sent. */
function fill(name: string, template: Template, raw: readonly string[]): string {
  if (typeof template === "string") return template;
  return sendableHeader(name, render(template, raw));
}

/** `value`, when it can go out as header `name`'s value; else throws {@link HeaderValueError}. */
export function sendableHeader(name: string, value: string): string {
  if (UNSENDABLE.test(value)) {
    throw new HeaderValueError(
      `header '${name}' would contain a control character or a character above U+00FF after substitution`,
    );
  }
  return value;
}

/** The head of a response whose headers are all fixed. */
function fixedHead(
  status: number,
  pairs: readonly [string, string | string[]][],
  statusText: string | undefined,
): ResponseHead {
  const head: ResponseHead = { status, headers: headerRecord() };
  if (statusText !== undefined) head.statusText = statusText;
  for (const [name, value] of pairs) {
    if (!Array.isArray(value)) head.headers[name] = value;
    else (head.lists ??= Object.create(null) as Record<string, string[]>)[name] = value;
  }
  return head;
}

/** The body text: a string sent as is under a non-JSON content type, else JSON. */
function encodeBody(body: unknown, contentType: string | undefined): string {
  return typeof body === "string" && contentType !== undefined && !isJsonMediaType(contentType)
    ? body
    : JSON.stringify(body);
}

/**
 * Turns a response function's result into an answer, or says (as text, to follow
 * "response function …") what is wrong with it.
 */
export function answerFromResult(result: unknown): [ResponseHead, string | null] | string {
  if (!Array.isArray(result) || result.length < 2 || result.length > 3) {
    return `must return [status, body] or [status, body, headers], got ${describe(result)}`;
  }
  const [status, body, rawHeaders] = result;
  const statusError = checkStatus(status);
  if (statusError) return `returned an invalid status: ${statusError}`;
  const errors: string[] = [];
  const headers = rawHeaders === undefined ? {} : checkHeaders(rawHeaders, "headers", errors) ?? {};
  if (errors.length) return `returned invalid headers: ${errors[0]}`;
  const contentType = findHeader(headers, "content-type");
  const head: ResponseHead = { status, headers: headerRecord() };
  let text: string | null = null;
  // `null` and `undefined` mean no body (send JSON null as the string "null" with a JSON content type).
  if (body !== undefined && body !== null) {
    if (status === 204 || status === 205 || status === 304) {
      return `returned a body with status ${status}, which cannot carry one (return null for no body)`;
    }
    try {
      text = encodeBody(body, contentType);
    } catch (error) {
      return `returned a body that is not JSON-serializable: ${messageOf(error)}`;
    }
    if (text === undefined) return `returned a body that is not JSON-serializable: ${describe(body)}`;
    if (contentType === undefined) head.headers["content-type"] = "application/json";
  }
  for (const name in headers) {
    const value = headers[name];
    if (Array.isArray(value)) (head.lists ??= Object.create(null) as Record<string, string[]>)[name] = value;
    else head.headers[name] = value;
  }
  return [head, text];
}
