/**
 * Forwarding by `fetch`, on Deno for requests without a body: asked for `identity`, Deno's
 * fetch hands the body over untouched even when the upstream compresses it anyway, and a
 * fetched body goes out of `Deno.serve` without passing through JavaScript.
 * @module
 */

import { messageOf } from "../error_message.ts";
import type { Incoming } from "./incoming.ts";
import type { ResponseHead } from "./response.ts";
import {
  connectionTokens,
  type Forwarded,
  type ForwardFailure,
  type ForwardOptions,
  type ForwardTap,
  HOP_BY_HOP,
  requestHeaders,
} from "./upstream.ts";

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
export function fetchCarries(url: URL, incoming: Incoming): boolean {
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
    text += ` ${messageOf(e)}`;
  }
  if (/connection refused/i.test(text)) return "connection refused";
  if (/dns error|failed to lookup|Name or service not known/i.test(text)) return "cannot resolve the host name";
  if (/connection reset|connection closed/i.test(text)) return "the connection was closed";
  const message = messageOf(innermost);
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
export async function forwardByFetch(
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
