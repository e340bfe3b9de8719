/**
 * `stubtool validate FILE`: check a config file without starting a server (P6, P8.5).
 * @module
 */

import { loadConfigFile } from "../config.ts";
import type { CliContext } from "./context.ts";
import { printProblems } from "./output.ts";
import type { ParsedArgs } from "./usage.ts";

/**
 * Prints every problem (`[ERROR]`/`[WARN]` on stderr) or `[OK] <file> is valid (<n>
 * route(s) defined)` on stdout. Returns 0 when valid (warnings allowed), 1 when not.
 */
export async function validateCommand({ positionals }: ParsedArgs, { output }: CliContext): Promise<number> {
  const file = positionals[0];
  const { config, problems } = await loadConfigFile(file);
  printProblems(output, problems, file);
  if (!config) return 1;
  output.out(`[OK] ${file} is valid (${config.routes.length} route(s) defined)`);
  return 0;
}
