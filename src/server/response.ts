/**
 * Answers: the status + headers + body text the handler produces, compiled once per stub
 * response (P2, P3.3, P8.4), and handed to an adapter's {@link Respond} to become a fetch
 * `Response` (Deno) or a direct write (Node).
 * @module
 */

import type { Delay, HeaderMap, ResponseSpec } from "../stubs/model.ts";
import { compileJson, compileText, render, type Template } from "../stubs/template.ts";
import { checkHeaders, checkStatus, describe, HEADER_VALUE_FORBIDDEN } from "../stubs/validate.ts";

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
}

/** A header record that takes any valid header name as an own key (`__proto__` too). */
function headerRecord(): Record<string, string> {
  return Object.create(null);
}

/** Turns an answer into the adapter's own response type. */
export type Respond<R> = (head: ResponseHead, body: string | null) => R;

/** The fetch {@link Respond}: builds a `Response`. */
export const toResponse: Respond<Response> = (head, body) => new Response(body, head);

const JSON_MEDIA = /^[^;]*(\/json|\+json)\s*(;|$)/i;

/** Is this a JSON media type (`*\/json`, `*+json`)? (P8.4) */
export function isJsonMediaType(contentType: string): boolean {
  return JSON_MEDIA.test(contentType);
}

function findHeader(headers: HeaderMap | undefined, name: string): string | undefined {
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

/** The head and body of a JSON error, the shape of every error the server produces itself (P4). */
export function errorAnswer(
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): [ResponseHead, string] {
  return [
    { status, headers: { "content-type": "application/json", ...headers } },
    JSON.stringify({ error, ...extra }),
  ];
}

/** A JSON error as a fetch `Response`. */
export function jsonError(status: number, error: string, extra: Record<string, unknown> = {}): Response {
  const [head, body] = errorAnswer(status, error, extra);
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

function fixedHeaders(pairs: readonly [string, string][]): Record<string, string> {
  const headers = headerRecord();
  for (const [name, value] of pairs) headers[name] = value;
  return headers;
}

/** Thrown while rendering when a captured value would break a header (P7). */
export class HeaderValueError extends Error {}

/** A stub response compiled for fast rendering: templates filled per request, the rest fixed. */
export class CompiledResponse {
  readonly status: number;
  readonly delay?: Delay;
  #headers: [string, Template][];
  #body: Template | undefined;
  /** Set when no header depends on the request: the same head every time. */
  #staticHead: ResponseHead | undefined;

  constructor(spec: ResponseSpec, names: readonly string[]) {
    this.status = spec.status;
    this.delay = spec.delay;
    const contentType = findHeader(spec.headers, "content-type");
    const headers: [string, Template][] = spec.hasBody && contentType === undefined
      ? [["content-type", "application/json"]]
      : [];
    let fixed = true;
    for (const name in spec.headers) {
      const template = compileText(spec.headers[name], names);
      if (typeof template !== "string") fixed = false;
      headers.push([name, template]);
    }
    this.#headers = headers;
    if (spec.hasBody) {
      const asText = typeof spec.body === "string" && contentType !== undefined && !isJsonMediaType(contentType);
      this.#body = asText ? compileText(spec.body as string, names) : compileJson(spec.body, names);
    }
    if (fixed) {
      // The common case (JSON body, no headers of its own) shares one head per status.
      this.#staticHead = spec.headers === undefined
        ? sharedHead(this.status, spec.hasBody)
        : { status: this.status, headers: fixedHeaders(headers as [string, string][]) };
    }
  }

  /** Fills the templates with the request's captured values. Throws {@link HeaderValueError}. */
  render<R>(values: readonly string[], headOnly: boolean, respond: Respond<R>): R {
    const body = this.#body === undefined || headOnly ? null : render(this.#body, values);
    if (this.#staticHead) return respond(this.#staticHead, body);
    const headers = headerRecord();
    for (const [name, template] of this.#headers) {
      const value = render(template, values);
      if (typeof template !== "string" && HEADER_VALUE_FORBIDDEN.test(value)) {
        throw new HeaderValueError(
          `header '${name}' would contain CR, LF, NUL or another control character after substitution`,
        );
      }
      headers[name] = value;
    }
    return respond({ status: this.status, headers }, body);
  }
}

/** The body text: a string sent as is under a non-JSON content type, else JSON (P8.4). */
function encodeBody(body: unknown, contentType: string | undefined): string {
  return typeof body === "string" && contentType !== undefined && !isJsonMediaType(contentType)
    ? body
    : JSON.stringify(body);
}

/**
 * Turns a response function's result into an answer, or says (as text, to follow
 * "response function …") what is wrong with it.
 */
export function answerFromResult(result: unknown, headOnly: boolean): [ResponseHead, string | null] | string {
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
  const answerHeaders = headerRecord();
  let text: string | null = null;
  if (body !== undefined) {
    if (status === 204 || status === 205 || status === 304) {
      return `returned a body with status ${status}, which cannot carry one`;
    }
    try {
      text = encodeBody(body, contentType);
    } catch (error) {
      return `returned a body that is not JSON-serializable: ${error instanceof Error ? error.message : error}`;
    }
    if (text === undefined) return `returned a body that is not JSON-serializable: ${describe(body)}`;
    if (contentType === undefined) answerHeaders["content-type"] = "application/json";
  }
  for (const name in headers) answerHeaders[name] = headers[name];
  return [{ status, headers: answerHeaders }, headOnly ? null : text];
}
