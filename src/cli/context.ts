/**
 * What a CLI command runs with: its environment, where it prints, and (for `serve`) what
 * tells it to stop. `main()` builds the real one; tests pass their own.
 * @module
 */

import type { Output } from "./output.ts";

/** Environment variables, as `process.env` holds them. */
export type Env = Record<string, string | undefined>;

/** The world a command sees. */
export interface CliContext {
  env: Env;
  output: Output;
  /**
   * When given, `serve` stops once it aborts (the reason is printed as the cause) instead
   * of listening for SIGINT/SIGTERM/SIGHUP. In-process tests use it.
   */
  stop?: AbortSignal;
}
