/**
 * Waiting with an end: stub delays and response functions wait at most until the server's
 * shutdown grace runs out, and a response function at most the handler timeout.
 * @module
 */

import type { Delay } from "../stubs/model.ts";
import { MAX_DELAY_MS } from "../stubs/validate.ts";

/** Default time a response function may take: 30 s (`--handler-timeout`). */
export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000;

/** How a bounded run ended: with the function's value, its error, or the deadline. */
export type Outcome = { value: unknown } | { error: unknown } | { timeout: true };

/** How often a lognormal draw above `max` is drawn again before it is capped (as WireMock 3 does). */
const LOGNORMAL_REDRAWS = 10;

/**
 * The milliseconds a stub's delay stands for: fixed, drawn uniformly from its range, or drawn
 * from its lognormal (`median · e^(sigma · z)`, `z` a standard normal draw, as WireMock draws
 * it; above `max` drawn again up to ten times, then capped at `max`; `plus` added), never more
 * than the longest timer. `random` gives numbers in [0, 1) (a seeded one in tests).
 */
export function delayMs(delay: Delay, random: () => number = Math.random): number {
  if (typeof delay === "number") return delay;
  if ("min" in delay) return delay.min + random() * (delay.max - delay.min);
  const draw = () => delay.median * Math.exp(delay.sigma * standardNormal(random));
  let ms = draw();
  if (delay.max !== undefined) {
    for (let i = 0; ms > delay.max && i < LOGNORMAL_REDRAWS; i++) ms = draw();
    ms = Math.min(ms, delay.max);
  }
  return Math.min(MAX_DELAY_MS, ms + (delay.plus ?? 0));
}

/** A standard normal draw (Box–Muller) from uniform draws in [0, 1). */
function standardNormal(random: () => number): number {
  const u = 1 - random(); // (0, 1]: the logarithm stays finite
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** The handler timeout and the shutdown signal that every wait of one server obeys. */
export class Deadlines {
  /** How long a response function may run, in ms. */
  readonly handlerTimeout: number;
  /** Aborted when the server stops waiting for in-flight work (end of the shutdown grace). */
  readonly #closing = new AbortController();

  constructor(handlerTimeout = DEFAULT_HANDLER_TIMEOUT_MS) {
    this.handlerTimeout = handlerTimeout;
  }

  /** Aborted once the shutdown grace has run out. */
  get signal(): AbortSignal {
    return this.#closing.signal;
  }

  /** Ends every wait at once (the shutdown grace ran out). */
  abort(): void {
    this.#closing.abort();
  }

  /** Waits `ms`, or less if the shutdown grace runs out. */
  sleep(ms: number): Promise<void> {
    const signal = this.#closing.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done);
    });
  }

  /** Runs `fn`, settling with its value, its error, or a timeout (handler timeout or shutdown). */
  run(fn: () => unknown): Promise<Outcome> {
    const signal = this.#closing.signal;
    return new Promise((resolve) => {
      const finish = (outcome: Outcome) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const onAbort = () => finish({ timeout: true });
      const timer = setTimeout(onAbort, this.handlerTimeout);
      signal.addEventListener("abort", onAbort);
      if (signal.aborted) return onAbort();
      Promise.resolve().then(fn).then((value) => finish({ value }), (error) => finish({ error }));
    });
  }
}
