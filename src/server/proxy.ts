/**
 * Passing requests on to a real service: a stub's `proxy: URL`, or `proxy_unmatched` for
 * every request no stub matches. The request goes to the URL plus its own path and query,
 * with its method, headers (hop-by-hop ones dropped, `host` the upstream's, and
 * `accept-encoding: identity` in place of the client's) and body; the upstream's status,
 * headers and body come back as they arrive, byte for byte.
 *
 * On Deno a request without a body goes through `fetch`: asked for `identity`, Deno's fetch
 * hands the body over untouched even when the upstream compresses it anyway (it decompresses
 * only what the request accepted), and a fetched body goes out of `Deno.serve` without
 * passing through JavaScript. Everything else goes through `node:http`/`node:https`: a body
 * (fetch would send a sized upload chunked), the methods fetch refuses (`TRACE`) and the
 * ports it blocks; and every request on Node, whose fetch decompresses even when asked for
 * `identity`.
 * @module
 */

import type { ClientRequest, IncomingMessage, request as httpRequest } from "node:http";
import type { Incoming } from "./incoming.ts";
import type { ResponseHead } from "./response.ts";

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
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
function connectionTokens(value: string | null): Set<string> {
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
function requestHeaders(incoming: Incoming): Record<string, string> {
  const all = incoming.headers();
  const drop = connectionTokens(all["connection"] ?? null);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(all)) {
    if (name === "host" || HOP_BY_HOP.has(name) || drop.has(name)) continue;
    out[name] = value;
  }
  out["accept-encoding"] = "identity";
  return out;
}

/** The upstream's answer head: its status and headers, hop-by-hop ones dropped, repeated ones kept. */
function responseHead(res: IncomingMessage): ResponseHead {
  const drop = connectionTokens(String(res.headers.connection ?? ""));
  const head: ResponseHead = { status: res.statusCode ?? 502, headers: Object.create(null) };
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (HOP_BY_HOP.has(name) || drop.has(name)) continue;
    const value = raw[i + 1];
    if (head.lists?.[name]) head.lists[name].push(value);
    else if (name in head.headers) {
      (head.lists ??= Object.create(null) as Record<string, string[]>)[name] = [head.headers[name], value];
      delete head.headers[name];
    } else head.headers[name] = value;
  }
  return head;
}

/** The upstream's body as a stream that pulls from the socket only as the client takes it. */
function bodyStream(res: IncomingMessage, tap: ForwardTap | undefined): ReadableStream<Uint8Array<ArrayBuffer>> {
  res.pause();
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      return new Promise<void>((resolve) => {
        const done = (complete: boolean) => {
          cleanup();
          tap?.end(complete);
          if (complete) controller.close();
          else controller.error(new Error("the upstream closed the connection before the whole body arrived"));
          resolve();
        };
        const onData = (chunk: Buffer) => {
          cleanup();
          res.pause();
          const bytes = new Uint8Array(chunk.byteLength);
          bytes.set(chunk);
          tap?.chunk(bytes);
          controller.enqueue(bytes);
          resolve();
        };
        const onEnd = () => done(true);
        const onClose = () => done(res.complete);
        const cleanup = () => {
          res.off("data", onData);
          res.off("end", onEnd);
          res.off("close", onClose);
          res.off("error", onClose);
        };
        if (res.readableEnded) return done(true);
        res.on("data", onData);
        res.on("end", onEnd);
        res.on("close", onClose);
        res.on("error", onClose);
        res.resume();
      });
    },
    cancel() {
      res.destroy();
      tap?.end(false);
    },
  });
}

/** Why a connection failed, in a few words. */
function reason(error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "cannot resolve the host name";
    case "ECONNRESET":
      return "the connection was closed";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** How a request is forwarded: the time it may take for the answer's head, shutdown, the recorder. */
interface ForwardOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  tap?: ForwardTap;
}

/**
 * Sends the request to `base` + its path and query and resolves with the upstream's head
 * and streaming body, or a failure: unreachable (502), or no answer within `timeoutMs`
 * (504). `signal` aborts it (shutdown).
 */
export function forward(
  base: URL,
  incoming: Incoming,
  pathname: string,
  rawQuery: string,
  options: ForwardOptions,
): Promise<Forwarded | ForwardFailure> {
  const url = upstreamUrl(base, pathname, rawQuery);
  const shown = `${url.origin}${url.pathname}${url.search}`;
  return fetchCarries(url, incoming)
    ? forwardByFetch(url, shown, incoming, options)
    : forwardByNode(url, shown, incoming, options);
}

/** Deno's fetch: it leaves an `identity` request's answer untouched. Node's (undici) does not. */
const DENO_FETCH = typeof (globalThis as { Deno?: { version?: { deno?: string } } }).Deno?.version?.deno === "string";

/** Methods fetch refuses to send. */
const FETCH_FORBIDDEN = new Set(["CONNECT", "TRACE", "TRACK"]);

/** Ports fetch refuses to connect to (the Fetch standard's "bad ports"). */
const FETCH_BAD_PORTS = new Set([
  1,
  7,
  9,
  11,
  13,
  15,
  17,
  19,
  20,
  21,
  22,
  23,
  25,
  37,
  42,
  43,
  53,
  69,
  77,
  79,
  87,
  95,
  101,
  102,
  103,
  104,
  109,
  110,
  111,
  113,
  115,
  117,
  119,
  123,
  135,
  137,
  139,
  143,
  161,
  179,
  389,
  427,
  465,
  512,
  513,
  514,
  515,
  526,
  530,
  531,
  532,
  540,
  548,
  554,
  556,
  563,
  587,
  601,
  636,
  989,
  990,
  993,
  995,
  1719,
  1720,
  1723,
  2049,
  3659,
  4045,
  4190,
  5060,
  5061,
  6000,
  6566,
  6665,
  6666,
  6667,
  6668,
  6669,
  6679,
  6697,
  10080,
]);

/**
 * Can fetch carry this request as it is? Only on Deno, only without a body (fetch sends a
 * streamed body chunked, dropping the client's `content-length`), only a method it sends as
 * written (it refuses some and upper-cases `get`) and a port it does not block.
 */
function fetchCarries(url: URL, incoming: Incoming): boolean {
  if (!DENO_FETCH || incoming.hasBody()) return false;
  const method = incoming.method;
  if (method !== method.toUpperCase() || FETCH_FORBIDDEN.has(method)) return false;
  return url.port === "" || !FETCH_BAD_PORTS.has(Number(url.port));
}

/** Why a fetch failed, in a few words (Deno's own words are in its innermost cause). */
function fetchReason(error: unknown): string {
  let text = "";
  let innermost = error;
  for (let e: unknown = error, n = 0; e && n < 8; e = (e as { cause?: unknown }).cause, n++) {
    innermost = e;
    text += ` ${e instanceof Error ? e.message : String(e)}`;
  }
  if (/connection refused/i.test(text)) return "connection refused";
  if (/dns error|failed to lookup|Name or service not known/i.test(text)) return "cannot resolve the host name";
  if (/connection reset|connection closed/i.test(text)) return "the connection was closed";
  const message = innermost instanceof Error ? innermost.message : String(innermost);
  return message.split("\n")[0];
}

/** The upstream's answer head from a fetch: hop-by-hop headers dropped, each `set-cookie` kept apart. */
function fetchedHead(response: Response): ResponseHead {
  const drop = connectionTokens(response.headers.get("connection"));
  const head: ResponseHead = { status: response.status, headers: Object.create(null) };
  // Headers yield every set-cookie on its own and other repeated headers joined with ", ".
  for (const [name, value] of response.headers) {
    if (HOP_BY_HOP.has(name) || drop.has(name)) continue;
    if (head.lists?.[name]) head.lists[name].push(value);
    else if (name in head.headers) {
      (head.lists ??= Object.create(null) as Record<string, string[]>)[name] = [head.headers[name], value];
      delete head.headers[name];
    } else head.headers[name] = value;
  }
  return head;
}

/** A fetched body that shows each chunk to the tap as it passes, and how it ended. */
function tappedBody(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
  tap: ForwardTap,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      let read;
      try {
        read = await reader.read();
      } catch (error) {
        tap.end(false);
        return controller.error(error);
      }
      if (read.done) {
        tap.end(true);
        return controller.close();
      }
      tap.chunk(read.value);
      controller.enqueue(read.value);
    },
    cancel(reason) {
      tap.end(false);
      return reader.cancel(reason);
    },
  });
}

/** {@link forward} by fetch (Deno, no request body): see {@link fetchCarries}. */
async function forwardByFetch(
  url: URL,
  shown: string,
  incoming: Incoming,
  options: ForwardOptions,
): Promise<Forwarded | ForwardFailure> {
  const late = new AbortController();
  const timer = setTimeout(() => late.abort(), options.timeoutMs);
  // Shutdown still ends the body once the head is in; the timeout only bounds the wait for the head.
  const signal = options.signal ? AbortSignal.any([options.signal, late.signal]) : late.signal;
  let response: Response;
  try {
    response = await fetch(url, {
      method: incoming.method,
      headers: requestHeaders(incoming),
      redirect: "manual",
      signal,
    });
  } catch (error) {
    if (late.signal.aborted) {
      return {
        status: 504,
        message: `upstream ${shown} did not answer within ${options.timeoutMs} ms (--handler-timeout)`,
      };
    }
    return { status: 502, message: `upstream ${shown} could not be reached: ${fetchReason(error)}` };
  } finally {
    clearTimeout(timer);
  }
  const head = fetchedHead(response);
  const tap = options.tap;
  tap?.response(head);
  const body = response.body as ReadableStream<Uint8Array<ArrayBuffer>> | null;
  if (incoming.method === "HEAD" || head.status === 204 || head.status === 304) {
    await body?.cancel().catch(() => {});
    tap?.end(true);
    // A HEAD answer without a length says none: an empty stream, not an empty body (headAnswer).
    const unsized = incoming.method === "HEAD" && response.headers.get("content-length") === null;
    return { head, body: unsized ? new ReadableStream({ start: (c) => c.close() }) : null };
  }
  if (!body) {
    tap?.end(true);
    return { head, body: null };
  }
  return { head, body: tap ? tappedBody(body, tap) : body };
}

/** {@link forward} by `node:http`/`node:https`. */
async function forwardByNode(
  url: URL,
  shown: string,
  incoming: Incoming,
  options: ForwardOptions,
): Promise<Forwarded | ForwardFailure> {
  const clients = await loadClients();
  const send = url.protocol === "https:" ? clients.https : clients.http;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: Forwarded | ForwardFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = send(url, { method: incoming.method, headers: requestHeaders(incoming), signal: options.signal });
    const timer = setTimeout(() => {
      settle({
        status: 504,
        message: `upstream ${shown} did not answer within ${options.timeoutMs} ms (--handler-timeout)`,
      });
      req.destroy();
    }, options.timeoutMs);
    req.on(
      "error",
      (error) => settle({ status: 502, message: `upstream ${shown} could not be reached: ${reason(error)}` }),
    );
    req.on("response", (res) => {
      const head = responseHead(res);
      options.tap?.response(head);
      const empty = incoming.method === "HEAD" || head.status === 204 || head.status === 304;
      if (empty) {
        res.resume();
        options.tap?.end(true);
      }
      // A HEAD answer without a length says none: an empty stream, not an empty body (headAnswer).
      const unsized = incoming.method === "HEAD" && res.headers["content-length"] === undefined;
      settle({
        head,
        body: unsized ? new ReadableStream({ start: (c) => c.close() }) : empty ? null : bodyStream(res, options.tap),
      });
    });
    const body = incoming.stream();
    if (!body) return void req.end();
    pump(body, req, options.tap).catch(() => req.destroy());
  });
}

let clients: Promise<{ http: typeof httpRequest; https: typeof httpRequest }> | undefined;

/**
 * node:http and node:https, loaded on the first proxied request: on Deno they bring in the
 * whole Node HTTP layer, which a server without proxies should not pay for at start.
 */
function loadClients(): Promise<{ http: typeof httpRequest; https: typeof httpRequest }> {
  return clients ??= Promise.all([import("node:http"), import("node:https")])
    .then(([http, https]) => ({ http: http.request, https: https.request as typeof httpRequest }));
}

/** Writes a stream to a request, waiting for it to drain between chunks. */
async function pump(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
  req: ClientRequest,
  tap: ForwardTap | undefined,
): Promise<void> {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    tap?.requestChunk?.(value);
    if (!req.write(value)) await new Promise<void>((resolve) => req.once("drain", resolve).once("close", resolve));
  }
  req.end();
}
