/**
 * Failures a client must survive: `fault: disconnect` (the connection closes before
 * a complete answer), `fault: truncate` (status, headers and the whole body's
 * content-length, then half the body, then the connection closes), `reset` (a TCP reset
 * before any byte), `empty` (a clean close before any byte), `malformed_chunk` (status and
 * headers of a chunked answer, then a chunk that is not one, then a close),
 * `random_then_close` (bytes that are not HTTP, then a close); `throttle` (the body sent at
 * so many bytes per second) and `dribble` (the body in N pieces over M milliseconds).
 * `disconnect`, `truncate`, `throttle` and `dribble` are answer bodies every adapter already
 * knows how to send (a stream that ends early or slowly); the four wire faults need the
 * socket, and are marked for the adapter in {@link WIRE_FAULTS}.
 *
 * What each wire sends: `node:http` (the default) sends each exactly, as WireMock does (the
 * same 36 bytes for `malformed_chunk` and `random_then_close`). Deno.serve (`--adapter deno`)
 * cannot drop a connection before answering nor write raw bytes: for `disconnect` and the
 * four wire faults it sends the status line and headers, then ends the connection (a chunked
 * answer that never ends). `truncate`, `throttle` and `dribble` are exact on both.
 * @module
 */

import type { Dribble, Fault } from "../../stubs/model.ts";
import type { AnswerBody, ResponseHead } from "../response.ts";

export type { Fault };

/** The faults only a wire that owns the socket can send. */
export type WireFault = "reset" | "empty" | "malformed_chunk" | "random_then_close";

/**
 * Answer bodies that stand for a wire fault: an adapter that owns the socket (`node:http`)
 * sends the fault itself instead of the body; any other sends the head and the body, which
 * fails at once (the connection closes).
 */
export const WIRE_FAULTS: WeakMap<ReadableStream, WireFault> = new WeakMap();

/** The bytes `malformed_chunk` and `random_then_close` send: WireMock's, byte for byte. */
export const GARBAGE: string = "lskdu018973t09sylgasjkfg1][]'./.sdlv";

/** Errors a stream without Deno printing a stack trace for it: the fault is on purpose. */
function cut(): DOMException {
  return new DOMException("the stub's fault cut the answer short", "AbortError");
}

/** The body as bytes (text as UTF-8). */
function bytesOf(body: AnswerBody): Uint8Array<ArrayBuffer> {
  if (body === null) return new Uint8Array();
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  throw new TypeError("a streamed answer cannot be faulted");
}

/** The answer with `fault` applied: what the adapter sends instead of `head` and `body`. */
export function faulted(fault: Fault, head: ResponseHead, body: AnswerBody): [ResponseHead, AnswerBody] {
  if (fault !== "truncate") {
    const failing = new ReadableStream<Uint8Array<ArrayBuffer>>({ pull: (controller) => controller.error(cut()) });
    if (fault !== "disconnect") WIRE_FAULTS.set(failing, fault);
    return [head, failing];
  }
  const bytes = bytesOf(body);
  const half = bytes.subarray(0, Math.floor(bytes.byteLength / 2));
  let sent = false;
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      if (!sent && half.byteLength) {
        sent = true;
        return controller.enqueue(half.slice());
      }
      controller.error(cut());
    },
  });
  return [{ ...head, headers: { ...head.headers, "content-length": String(bytes.byteLength) } }, stream];
}

/** How often a throttled answer sends a piece: ten times a second. */
const TICKS_PER_SECOND = 10;

/** The answer's body sent at `bytesPerSecond`, in pieces ten times a second; the head says its length. */
export function throttled(
  head: ResponseHead,
  body: AnswerBody,
  bytesPerSecond: number,
  signal?: AbortSignal,
): [ResponseHead, AnswerBody] {
  const bytes = bytesOf(body);
  if (bytes.byteLength === 0) return [head, body];
  const piece = Math.max(1, Math.floor(bytesPerSecond / TICKS_PER_SECOND));
  const started = performance.now();
  let offset = 0;
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      // Wait until this piece is due: piece n leaves at n / rate, so the rate holds on average.
      const due = started + (offset / bytesPerSecond) * 1000;
      const wait = due - performance.now();
      if (wait > 0 && !signal?.aborted) await new Promise((resolve) => setTimeout(resolve, wait));
      controller.enqueue(bytes.slice(offset, offset + piece));
      offset += piece;
    },
  }, { highWaterMark: 0 });
  return [{ ...head, headers: { ...head.headers, "content-length": String(bytes.byteLength) } }, stream];
}

/**
 * The answer's body in `chunks` pieces, one every `ms / chunks` milliseconds, the first
 * after one interval (as WireMock's `chunkedDribbleDelay`); sent chunked (no content-length),
 * one HTTP chunk a piece. An empty body goes out at once.
 */
export function dribbled(
  head: ResponseHead,
  body: AnswerBody,
  { chunks, ms }: Dribble,
  signal?: AbortSignal,
): [ResponseHead, AnswerBody] {
  const bytes = bytesOf(body);
  if (bytes.byteLength === 0) return [head, body];
  const size = Math.ceil(bytes.byteLength / chunks);
  const interval = ms / chunks;
  const started = performance.now();
  let piece = 0;
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      const offset = piece * size;
      if (offset >= bytes.byteLength) return controller.close();
      const wait = started + (piece + 1) * interval - performance.now();
      if (wait > 0 && !signal?.aborted) await new Promise((resolve) => setTimeout(resolve, wait));
      controller.enqueue(bytes.slice(offset, offset + size));
      piece++;
    },
  }, { highWaterMark: 0 });
  const headers: Record<string, string> = Object.create(null);
  for (const name in head.headers) if (name.toLowerCase() !== "content-length") headers[name] = head.headers[name];
  return [{ ...head, headers }, stream];
}
