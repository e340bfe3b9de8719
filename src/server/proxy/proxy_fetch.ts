/**
 * Forwarding by `fetch`, on Deno for requests without a body: asked for `identity`, Deno's
 * fetch hands the body over untouched even when the upstream compresses it anyway, and a
 * fetched body goes out of `Deno.serve` without passing through JavaScript.
 * @module
 */

import { messageOf } from "../../error_message.ts";
import type { Incoming } from "../incoming.ts";
import type { ResponseHead } from "../response.ts";
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

/** A forwarding waiting for its answer's head, until `deadline` (`performance.now()` ms). */
interface Waiting {
  /** Aborts the fetch; dropped once the head is in (the body then keeps it, see {@link bodyAbort}). */
  late: AbortController | undefined;
  deadline: number;
  /** The head came, or the fetch failed: nothing left to time out. */
  settled: boolean;
  /** The timeout aborted it. */
  expired: boolean;
}

/** Each streaming body's abort controller, kept alive exactly as long as the body. */
const bodyAbort = new WeakMap<object, AbortController>();

/**
 * The fetches in flight under one shutdown signal and timeout. Their timeouts share one
 * timer: every head waits the same time, so the oldest is the next to expire. Shutdown
 * aborts each fetch whose head or body is still on its way; they are held weakly, so one
 * that is over is forgotten without a step of its own. A timer, `AbortSignal.any` and a
 * dependent signal per request cost about a tenth of a proxied request's time.
 */
class InFlight {
  readonly #timeoutMs: number;
  readonly #shutdown: AbortSignal | undefined;
  /** Heads awaited, oldest first, from index #first on. */
  #waiting: Waiting[] = [];
  #first = 0;
  #compactAt = 1024;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Every forwarding's controller, weakly (shutdown aborts those still alive). */
  #live = new Set<WeakRef<AbortController>>();
  #pruneAt = 1024;

  constructor(timeoutMs: number, shutdown: AbortSignal | undefined) {
    this.#timeoutMs = timeoutMs;
    this.#shutdown = shutdown;
    shutdown?.addEventListener("abort", () => {
      for (const ref of this.#live) ref.deref()?.abort(shutdown.reason);
      this.#live.clear();
    }, { once: true });
  }

  /** Starts timing one forwarding's head; its controller aborts the fetch. */
  start(): Waiting {
    const late = new AbortController();
    const shutdown = this.#shutdown;
    if (shutdown?.aborted) late.abort(shutdown.reason);
    else if (shutdown) {
      this.#live.add(new WeakRef(late));
      if (this.#live.size >= this.#pruneAt) this.#prune();
    }
    const waiting: Waiting = { late, deadline: performance.now() + this.#timeoutMs, settled: false, expired: false };
    this.#waiting.push(waiting);
    this.#timer ??= setTimeout(this.#expire, this.#timeoutMs);
    return waiting;
  }

  /** The head came (or the fetch failed): the forwarding no longer times out. */
  settle(waiting: Waiting): void {
    waiting.settled = true;
    waiting.late = undefined;
    let list = this.#waiting;
    while (this.#first < list.length && list[this.#first].settled) this.#first++;
    if (this.#first === list.length) {
      list.length = 0;
      this.#first = 0;
      clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (list.length >= this.#compactAt) {
      // A head that hangs keeps the ones after it listed: drop those that are done.
      list = this.#waiting = list.slice(this.#first).filter((w) => !w.settled);
      this.#first = 0;
      this.#compactAt = Math.max(1024, list.length * 2);
    }
  }

  /** Aborts the heads whose time is up, and waits for the next one. */
  #expire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    const list = this.#waiting;
    while (this.#first < list.length) {
      const waiting = list[this.#first];
      if (!waiting.settled) {
        if (waiting.deadline > now) break;
        waiting.expired = true;
        waiting.late?.abort();
      }
      this.#first++;
    }
    if (this.#first < list.length) this.#timer = setTimeout(this.#expire, list[this.#first].deadline - now);
    else {
      list.length = 0;
      this.#first = 0;
    }
  };

  /** Forgets the forwardings that are over. */
  #prune(): void {
    for (const ref of this.#live) if (ref.deref() === undefined) this.#live.delete(ref);
    this.#pruneAt = Math.max(1024, this.#live.size * 2);
  }
}

/** One {@link InFlight} per shutdown signal and timeout (one per server). */
const inFlights = new WeakMap<object, Map<number, InFlight>>();
const NO_SIGNAL = {};

function inFlightFor(options: ForwardOptions): InFlight {
  const key = options.signal ?? NO_SIGNAL;
  let byTimeout = inFlights.get(key);
  if (!byTimeout) inFlights.set(key, byTimeout = new Map());
  let inFlight = byTimeout.get(options.timeoutMs);
  if (!inFlight) byTimeout.set(options.timeoutMs, inFlight = new InFlight(options.timeoutMs, options.signal));
  return inFlight;
}

/** {@link forward} by fetch (Deno, no request body): see {@link fetchCarries}. */
export async function forwardByFetch(
  url: URL,
  shown: string,
  incoming: Incoming,
  options: ForwardOptions,
): Promise<Forwarded | ForwardFailure> {
  const inFlight = inFlightFor(options);
  // The timeout bounds only the wait for the head; a body still streaming at shutdown ends when the server closes
  // its connections after the grace period.
  const waiting = inFlight.start();
  const late = waiting.late!;
  let response: Response;
  try {
    const init: RequestInit = {
      headers: requestHeaders(incoming),
      redirect: "manual",
      signal: late.signal,
    };
    // GET is fetch's default; naming it costs Deno's fetch a few microseconds.
    if (incoming.method !== "GET") init.method = incoming.method;
    response = await fetch(url, init);
  } catch (error) {
    if (waiting.expired) {
      return {
        status: 504,
        message: `upstream ${shown} did not answer within ${options.timeoutMs} ms (--handler-timeout)`,
      };
    }
    return { status: 502, message: `upstream ${shown} could not be reached: ${fetchReason(error)}` };
  } finally {
    inFlight.settle(waiting);
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
  // The body's end is not watched (that would take it off Deno.serve's fast path): the body keeps its controller.
  bodyAbort.set(body, late);
  return { head, body: tap ? tappedBody(body, tap) : body };
}
