/**
 * Failures a client must survive: `fault: disconnect` (the connection closes before
 * a complete answer), `fault: truncate` (status, headers and the whole body's
 * content-length, then half the body, then the connection closes), and `throttle` (the body
 * sent at so many bytes per second). Each is an answer body the adapters already know how to
 * send: a stream that ends early or slowly.
 *
 * What each runtime sends: on Node a `disconnect` closes the connection before a byte of the
 * answer goes out; Deno.serve cannot drop a connection before answering, so there the status
 * line and headers go out first (a chunked answer that never ends). `truncate` and
 * `throttle` are exact on both.
 * @module
 */

import type { AnswerBody, ResponseHead } from "../response.ts";

/** A stub's fault. */
export type Fault = "disconnect" | "truncate";

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
  if (fault === "disconnect") {
    return [head, new ReadableStream({ pull: (controller) => controller.error(cut()) })];
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
