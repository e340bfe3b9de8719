/**
 * The signals that ask a long-running command (`serve`, `record`) to stop, through
 * `node:process` on both runtimes; a test passes an AbortSignal (`ctx.stop`) instead.
 * @module
 */

import process from "node:process";
import type { CliContext } from "./context.ts";

/** The signals that stop `serve` and `record`. SIGHUP too: a closed terminal or a supervisor's reload asks for a clean stop. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** What tells `serve` to stop, and what a signal after the first one does. */
export interface StopRequests {
  /** Resolves with the name of the first signal (or the reason `ctx.stop` gives). */
  stopped: Promise<string>;
  /** Stops listening for signals. */
  dispose(): void;
}

/**
 * Listens for the stop signals (or `ctx.stop`). The first resolves `stopped`; each later
 * one calls `onAnother` with how many came so far.
 */
export function stopRequests(ctx: CliContext, onAnother: (count: number) => void): StopRequests {
  if (ctx.stop) {
    const signal = ctx.stop;
    const stopped = new Promise<string>((resolve) => {
      if (signal.aborted) resolve(String(signal.reason ?? "stop"));
      else signal.addEventListener("abort", () => resolve(String(signal.reason ?? "stop")), { once: true });
    });
    return { stopped, dispose: () => {} };
  }
  const listeners: [string, () => void][] = [];
  let count = 0;
  const stopped = new Promise<string>((resolve) => {
    for (const name of STOP_SIGNALS) {
      const listener = () => {
        if (++count === 1) resolve(name);
        else onAnother(count);
      };
      try {
        process.on(name, listener);
        listeners.push([name, listener]);
      } catch {
        // A platform that cannot deliver this signal (SIGTERM, SIGHUP on Windows under Deno); SIGINT still works.
      }
    }
  });
  return { stopped, dispose: () => listeners.forEach(([name, listener]) => process.off(name, listener)) };
}
