/**
 * Long work in slices: a loop that calls `await pace()` gives the event loop a turn once
 * it has run for a slice, so the server keeps answering other requests meanwhile (an admin
 * import of 10,000 mappings, for one).
 * @module
 */

/** How long a slice of work may run before the event loop gets a turn. */
export const SLICE_MS = 10;

/**
 * A pacer: each call returns at once while the current slice lasts, and otherwise waits for
 * one turn of the event loop (timers and I/O run) and starts a new slice. A zero timer, not
 * `setImmediate`: on Deno `setImmediate` runs before pending I/O, so a request still waited.
 *
 * @example
 * ```ts
 * import { pacer } from "./pace.ts";
 * const pace = pacer();
 * for (let i = 0; i < 1000; i++) await pace();
 * ```
 */
export function pacer(sliceMs: number = SLICE_MS): () => Promise<void> | void {
  let started = performance.now();
  return () => {
    if (performance.now() - started < sliceMs) return;
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        started = performance.now();
        resolve();
      }, 0)
    );
  };
}
