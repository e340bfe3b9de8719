/**
 * The stubtool version. `deno.json` is the source of truth; `tests/version_test.ts`
 * fails when the two disagree, and `scripts/` bump both together.
 * @module
 */

/** The stubtool version, as `stubtool --version` prints it. */
export const VERSION = "0.1.0";
