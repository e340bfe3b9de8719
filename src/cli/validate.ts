/**
 * `stubtool validate FILE [--openapi SPEC]`: check a config file without starting a server
 * (P6, P8.5), and optionally every stub against an OpenAPI document (src/report/openapi.ts).
 * @module
 */

import { loadConfigFile } from "../stubs/config.ts";
import type { CliContext } from "./context.ts";
import { printProblems } from "./output.ts";
import type { ParsedArgs } from "./usage.ts";

/**
 * Prints every problem (`[ERROR]`/`[WARN]` on stderr, a stub's as `<file>:<line>:<col>:
 * routes[i]: …`) or `[OK] <file> is valid (<n> route(s) defined)` on stdout. Returns 0 when
 * valid (warnings allowed), 1 when not. With `--openapi SPEC`, a stub the spec does not
 * describe is an `[ERROR] <file>:<line>:<col>: routes[i]` line too,
 * and a spec that cannot be read is an `[ERROR] <spec>` line.
 */
export async function validateCommand(
  { positionals, values }: ParsedArgs,
  { output }: CliContext,
): Promise<number> {
  const file = positionals[0];
  const { config, problems, locate } = await loadConfigFile(file);
  printProblems(output, problems, file);
  if (!config) return 1;
  const specFile = values.openapi as string | undefined;
  if (specFile !== undefined) {
    // The OpenAPI parser and the schema validator load only when a spec is asked for.
    const { loadOpenApi } = await import("../report/openapi.ts");
    const { spec, problems: specProblems } = await loadOpenApi(specFile);
    printProblems(output, specProblems, specFile);
    if (!spec) return 1;
    const unplaced = spec.checkStubs(config.routes, (i) => `routes[${i}]`);
    const drift = locate ? await locate(unplaced) : unplaced;
    printProblems(output, drift, file);
    if (drift.length) return 1;
    output.out(`[OK] ${file} is valid (${config.routes.length} route(s) defined)`);
    output.out(
      `[OK] every stub agrees with ${specFile} (OpenAPI ${spec.version}, ${spec.operations.length} operation(s))`,
    );
    return 0;
  }
  output.out(`[OK] ${file} is valid (${config.routes.length} route(s) defined)`);
  return 0;
}
