/**
 * `stubtool wait`: block until a server's health endpoint answers 200.
 * @module
 */

import type { CliContext } from "./context.ts";
import { errorLine } from "./output.ts";
import { describeFetchError, endpointUrl, fetchAnyAddress, NO_ANSWER, serverTarget } from "./reach.ts";
import { type ParsedArgs, secondsValue } from "./usage.ts";

/** First pause between polls; it grows by half each time up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 250;
/** The longest one poll may wait for an answer. */
const MAX_ATTEMPT_MS = 1_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `<url>/__stubtool__/health` until it answers 200 or `--timeout` seconds have
 * passed. Prints `[OK] … ready after <s>s` and returns 0, or prints an `[ERROR]` line
 * with the last reason and returns 1 (no later than about 0.25 s after the timeout).
 */
export async function waitCommand({ values }: ParsedArgs, { env, output }: CliContext): Promise<number> {
  const { url, reach } = serverTarget(values, env, "wait");
  const timeoutText = values.timeout as string | undefined;
  const timeout = timeoutText === undefined ? 10 : secondsValue(timeoutText, "--timeout", "wait");
  const display = url.href.replace(/\/$/, "");
  const health = endpointUrl(url, "health");

  const start = performance.now();
  const deadline = start + timeout * 1000;
  let pause = FIRST_PAUSE_MS;
  let reason = "no answer yet";
  for (;;) {
    const left = deadline - performance.now();
    try {
      const response = await fetchAnyAddress(health, Math.max(50, Math.min(MAX_ATTEMPT_MS, left)), reach);
      await response.body?.cancel();
      if (response.status === 200) {
        const seconds = ((performance.now() - start) / 1000).toFixed(2);
        output.out(`[OK] stubtool at ${display} is ready (after ${seconds}s)`);
        return 0;
      }
      reason = `${health.pathname} answered ${response.status}`;
    } catch (error) {
      const why = describeFetchError(error);
      // An attempt the deadline cut short says less than the answer before it (a refused
      // certificate, a refused connection): keep that one.
      if (!(why === NO_ANSWER && left < MAX_ATTEMPT_MS && reason !== "no answer yet")) reason = why;
    }
    const now = performance.now();
    if (now >= deadline) break;
    await sleep(Math.min(pause, deadline - now));
    pause = Math.min(MAX_PAUSE_MS, pause * 1.5);
  }
  output.err(
    errorLine(display, `not ready after ${timeout}s (last attempt: ${reason}); is stubtool serve running there?`),
  );
  return 1;
}
