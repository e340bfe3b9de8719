/**
 * What goes to an upstream and what comes back, whichever client carries it: the URL, the
 * request headers (hop-by-hop ones dropped, `accept-encoding: identity`), and the shapes of
 * an answer or a failure.
 * @module
 */

import type { Incoming } from "../incoming.ts";
import type { ResponseHead } from "../response.ts";

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1). */
export const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** What the upstream answered: the head, and the body as it arrives (null for none). */
export interface Forwarded {
  head: ResponseHead;
  body: ReadableStream<Uint8Array<ArrayBuffer>> | null;
}

/** Why forwarding failed: the upstream could not be reached (502) or did not answer in time (504). */
export interface ForwardFailure {
  status: 502 | 504;
  message: string;
}

/** Watches an exchange as it passes (the recorder): the request, then the answer's head and body chunks. */
export interface ForwardTap {
  /** The request's body chunks, as they go upstream. */
  requestChunk?(chunk: Uint8Array): void;
  /** The answer's head, once it arrives. */
  response(head: ResponseHead): void;
  /** One chunk of the answer's body. */
  chunk(chunk: Uint8Array): void;
  /** The answer's body ended (`complete` false when it broke off). */
  end(complete: boolean): void;
}

/** Header names a `Connection` header lists: they are hop-by-hop too. */
export function connectionTokens(value: string | null): Set<string> {
  const tokens = new Set<string>();
  for (const token of (value ?? "").split(",")) if (token.trim()) tokens.add(token.trim().toLowerCase());
  return tokens;
}

/** The URL a request goes to: the base's origin and path, then the request's own path and query. */
export function upstreamUrl(base: URL, pathname: string, rawQuery: string): URL {
  if (!pathname.includes("?") && !pathname.includes("#")) {
    // One parse of the joined text gives the same URL as the setters below, which parse three times.
    const auth = base.username ? `${base.username}${base.password ? `:${base.password}` : ""}@` : "";
    const root = base.pathname.replace(/\/+$/, "");
    return new URL(`${base.protocol}//${auth}${base.host}${root}${pathname}${rawQuery ? `?${rawQuery}` : ""}`);
  }
  const url = new URL(base.href);
  url.pathname = base.pathname.replace(/\/+$/, "") + pathname;
  url.search = rawQuery ? `?${rawQuery}` : "";
  url.hash = "";
  return url;
}

/**
 * Request headers to pass on: all but hop-by-hop ones and `host` (the upstream's own is
 * set); `accept-encoding` asks for `identity`, so the answer's bytes can pass through as
 * they come and still be readable to every client and to `record`.
 */
export function requestHeaders(incoming: Incoming): Record<string, string> {
  const source = incoming.headerSource();
  if (!(source instanceof Headers)) return passedOn(incoming.headers());
  // One pass over the runtime's own headers, without a full copy first.
  const drop = connectionTokens(source.get("connection"));
  const out: Record<string, string> = {};
  for (const [name, value] of source) {
    if (name === "host" || HOP_BY_HOP.has(name) || drop.has(name)) continue;
    out[name] = value;
  }
  out["accept-encoding"] = "identity";
  return out;
}

/** {@link requestHeaders} with a stub's header names left out and its lines added beside the client's. */
export function adjustedHeaders(
  headers: Record<string, string>,
  adjust: NonNullable<ForwardOptions["adjust"]>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = { ...headers };
  for (const name of adjust.removeHeaders ?? []) delete out[name];
  for (const [name, value] of adjust.addHeaders ?? []) {
    const key = name.toLowerCase();
    const had = out[key];
    out[key] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  return out;
}

/** {@link requestHeaders} from a header record. */
function passedOn(all: Record<string, string>): Record<string, string> {
  const drop = connectionTokens(all["connection"] ?? null);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(all)) {
    if (name === "host" || HOP_BY_HOP.has(name) || drop.has(name)) continue;
    out[name] = value;
  }
  out["accept-encoding"] = "identity";
  return out;
}

/** How a request is forwarded: the time it may take for the answer's head, shutdown, the recorder. */
export interface ForwardOptions {
  timeoutMs: number;
  /** Request header lines to add and names to leave out (a proxy stub's `proxy_request`). */
  adjust?: { addHeaders?: readonly [string, string][]; removeHeaders?: readonly string[] };
  signal?: AbortSignal;
  tap?: ForwardTap;
}
