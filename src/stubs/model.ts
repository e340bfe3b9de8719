/**
 * The validated stub model: what config files, inline stubs and builders all turn into.
 * @module
 */

import type { Segment } from "./path.ts";

/** HTTP methods a stub may use (P2), sorted as the validator lists them. */
export const METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"] as const;

/** One of {@link METHODS}. */
export type Method = typeof METHODS[number];

export { RESERVED_PREFIX } from "./path.ts";

/** A fixed delay in milliseconds, or a range drawn uniformly per request. */
export type Delay = number | { min: number; max: number };

/** What happens after the last entry of a sequence. */
export type SequenceMode = "repeat-last" | "cycle";

/** A response header map: name → value (values may hold `{name}` placeholders). */
export type HeaderMap = Record<string, string>;

/** One canned response: a stub's plain response or one `sequence` entry. */
export interface ResponseSpec {
  /** Response status; 200 unless one was given. */
  status: number;
  /** Response headers; absent when the response sets none. */
  headers?: HeaderMap;
  /** Absent (`hasBody: false`) means an empty response body. */
  body?: unknown;
  /** Whether there is a body: `null` is one (JSON `null`), a missing `body` is not. */
  hasBody: boolean;
  /** Wait before answering; for a sequence entry without its own, the stub's. Absent: no wait. */
  delay?: Delay;
}

/** What a response function receives (P5). */
export interface ResponseFuncArgs<P = Record<string, string>> {
  /** Parsed JSON request body; `null` when there is none or it is not JSON. */
  payload: unknown;
  /** Request headers, names lower-cased. */
  headers: Record<string, string>;
  /** Path placeholder values. */
  params: P;
  /** Query parameters, every value a list. */
  queryParams: Record<string, string[]>;
}

/** `[status, body]` or `[status, body, headers]`. */
export type ResponseFuncResult =
  | [status: number, body: unknown]
  | [status: number, body: unknown, headers: HeaderMap];

/** A function that computes a stub's response per request. */
// deno-lint-ignore no-explicit-any
export type ResponseFunc<P = any> = (
  args: ResponseFuncArgs<P>,
) => ResponseFuncResult | Promise<ResponseFuncResult>;

/** A validated stub, ready for the router. */
export interface Stub {
  /** The method, upper-case. A `GET` stub also answers `HEAD` requests that no `HEAD` stub matches. */
  method: Method;
  /** Path template without the query part, percent-decoded. */
  path: string;
  /** The path split into segments (parsed once, at validation). */
  segments: readonly Segment[];
  /** Required query parameters: name → literal value or `{name}` capture. */
  query?: Record<string, string>;
  /** One entry for a plain response, several for a sequence; empty with a response function. */
  responses: ResponseSpec[];
  /** True when `responses` came from `sequence`. */
  isSequence: boolean;
  /** What follows the last sequence entry; `repeat-last` for a stub without a sequence. */
  sequenceMode: SequenceMode;
  /** Computes the response per request (set by `.responseFunc()`; config files have none). */
  responseFunc?: ResponseFunc;
  /** Delay before a response function runs (plain and sequence delays live in `responses`). */
  delay?: Delay;
}

/** `GET /users/{id}`, with `?query` when the stub requires one. */
export function stubLabel(stub: Pick<Stub, "method" | "path" | "query">): string {
  if (!stub.query) return `${stub.method} ${stub.path}`;
  const query = Object.entries(stub.query).map(([k, v]) => `${k}=${v}`).join("&");
  return `${stub.method} ${stub.path}?${query}`;
}
