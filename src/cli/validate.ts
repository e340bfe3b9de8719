/**
 * `stubtool validate FILE [--openapi SPEC]`: check a config file without starting a server
 * , and optionally every stub against an OpenAPI document (src/report/openapi.ts).
 * @module
 */

import { loadTemplating } from "../templating/engine.ts";
import { loadConfigFile } from "../stubs/config.ts";
import { type Config, denoWireWarnings } from "../stubs/validate.ts";
import type { CliContext } from "./context.ts";
import { printProblems } from "./output.ts";
import { type ParsedArgs, UsageError } from "./usage.ts";

/**
 * Prints every problem (`[ERROR]`/`[WARN]` on stderr, a stub's as `<file>:<line>:<col>:
 * routes[i]: …`) or `[OK] <file> is valid (<n> route(s) defined)` on stdout. Returns 0 when
 * valid (warnings allowed), 1 when not. With `--openapi SPEC`, a stub the spec does not
 * describe is an `[ERROR] <file>:<line>:<col>: routes[i]` line too (a stub answering the spec's
 * own example that breaks its schema is a `[WARN]` at that example instead, exit 0),
 * and a spec that cannot be read is an `[ERROR] <spec>` line. With `--wiremock DIR` (and a
 * config's `wiremock:`), each WireMock mapping left out is a `[WARN] FILE mappings[i]` line
 * (`--strict`: `[ERROR]`, exit 1), with what its scenario can no longer reach, and then
 * `[WARN] N of M mappings left out` (exit 0).
 */
export async function validateCommand(
  { positionals, values }: ParsedArgs,
  { output, env }: CliContext,
): Promise<number> {
  const file = positionals[0] as string | undefined;
  const wiremockDirs = (values.wiremock as string[] | undefined) ?? [];
  if (file === undefined && wiremockDirs.length === 0) {
    throw new UsageError("validate: missing FILE (usage: stubtool validate FILE, or --wiremock DIR)", "validate");
  }
  let config: Config = { routes: [] };
  let locate: Awaited<ReturnType<typeof loadConfigFile>>["locate"];
  if (file !== undefined) {
    const loaded = await loadConfigFile(file);
    printProblems(output, loaded.problems, file);
    if (!loaded.config) return 1;
    // STUBTOOL_ADAPTER=deno (as serve reads it): say what Deno.serve cannot send.
    if (env.STUBTOOL_ADAPTER?.trim() === "deno") {
      const wire = denoWireWarnings(loaded.config.routes, (i) => `routes[${i}]`);
      printProblems(output, loaded.locate ? await loaded.locate(wire) : wire, file);
    }
    config = loaded.config;
    locate = loaded.locate;
  }
  const dirs = [
    ...(config.wiremock ?? []).map((dir) => ({ dir, place: `${file} wiremock` })),
    ...wiremockDirs.map((dir) => ({ dir, place: `--wiremock ${dir}` })),
  ];
  if (dirs.length) {
    const { loadWireMockFolders } = await import("./loaders/wiremock_folder.ts");
    // Mappings are checked synchronously and may use a template or JSONPath: the engine loads first.
    await loadTemplating();
    const takenIds = new Set(config.routes.flatMap((stub) => stub.id === undefined ? [] : [stub.id]));
    const loaded = loadWireMockFolders(dirs, {
      takenIds,
      strict: values.strict === true,
      globalTemplating: values["wiremock-global-templating"] === true,
    });
    printProblems(output, loaded.problems, "wiremock");
    if (loaded.problems.some((p) => p.level === "error")) return 1;
    if (env.STUBTOOL_ADAPTER?.trim() === "deno") {
      const stubs = loaded.batches.flat();
      printProblems(output, denoWireWarnings(stubs, (i) => stubs[i].place ?? dirs[0].place), "wiremock");
    }
    // Problems of a whole folder (none found there) leave out no mapping.
    const left = new Set(loaded.problems.map((p) => p.place).filter((place) => !dirs.some((d) => d.place === place)))
      .size;
    output.out(
      `[OK] ${dirs.map((d) => d.dir).join(", ")}: ${loaded.stubs} stub(s) from ${loaded.files} mapping file(s)` +
        (left ? `, ${left} mapping(s) or file(s) left out (see the warnings)` : ""),
    );
    // Exit 0 (a warning), but said on stderr too, where a CI log's warnings are looked for.
    if (left) output.err(`[WARN] ${left} of ${loaded.stubs + left} mappings left out (see the warnings above)`);
  }
  if (file === undefined) return 0;
  const specFile = values.openapi as string | undefined;
  if (specFile !== undefined) {
    // The OpenAPI parser and the schema validator load only when a spec is asked for.
    const { loadOpenApi } = await import("./loaders/openapi_document.ts");
    const { spec, problems: specProblems } = await loadOpenApi(specFile);
    printProblems(output, specProblems, specFile);
    if (!spec) return 1;
    const unplaced = spec.checkStubs(config.routes, (i) => `routes[${i}]`);
    const drift = locate ? await locate(unplaced) : unplaced;
    printProblems(output, drift, file);
    if (drift.some((p) => p.level === "error")) return 1;
    // The spec's own examples that break its schema are the spec's fault: warned, not a drift.
    const broken = drift.length;
    output.out(`[OK] ${file} is valid (${config.routes.length} route(s) defined)`);
    output.out(
      `[OK] every stub agrees with ${specFile} (OpenAPI ${spec.version}, ${spec.operations.length} operation(s))` +
        (broken ? `; ${broken} stub(s) answer the spec's own examples that break its schema (see the warnings)` : ""),
    );
    return 0;
  }
  output.out(`[OK] ${file} is valid (${config.routes.length} route(s) defined)`);
  return 0;
}
