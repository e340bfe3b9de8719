/**
 * `stubtool import wiremock DIR|FILE [-o FILE] [--strict]`: WireMock mappings written as a
 * stubtool config (src/formats/wiremock/), body files copied into a folder beside it.
 * `stubtool import openapi SPEC [-o FILE] [--strict-requests] [--strict]`: one stub per
 * operation of an OpenAPI description (src/formats/openapi_import.ts).
 * @module
 */

import { copyFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { VERSION } from "../version.ts";
import type { CliContext } from "./context.ts";
import { checkOutputPath, describeWriteError, writeFileAtomic } from "./files.ts";
import { errorLine, printProblems, warnLine } from "./output.ts";
import { type ParsedArgs, UsageError } from "./usage.ts";

/**
 * Converts, prints one `[WARN]` line per mapping feature left out (stderr), writes the config
 * and its body files, and says what it wrote (stdout). Returns 0, or 1 when the source cannot
 * be read or the file not written, and with `--strict` when anything was left out.
 */
export async function importCommand({ positionals, values }: ParsedArgs, { output }: CliContext): Promise<number> {
  const [kind, source] = positionals;
  if (kind !== "wiremock" && kind !== "openapi") {
    throw new UsageError(`import: unknown format '${kind}' (formats: wiremock, openapi)`, "import");
  }
  if (kind === "wiremock" && values["strict-requests"] === true) {
    throw new UsageError("--strict-requests is for import openapi (WireMock mappings say what they require)", "import");
  }
  const checked = checkOutputPath((values.out as string | undefined) ?? "stubs.yaml");
  if ("problem" in checked) {
    output.err(errorLine("--out", checked.problem));
    return 1;
  }
  const out = checked.path;
  if (kind === "openapi") return await importOpenApi(source, out, values, output);
  if (!existsSync(source)) {
    output.err(errorLine(source, "does not exist (give a WireMock folder or a mapping file)"));
    return 1;
  }
  const { readWireMockFolder } = await import("../formats/wiremock/folder.ts");
  const folder = readWireMockFolder(source);
  for (const warning of folder.warnings) {
    output.err(warnLine(warning.place, warning.message.slice(warning.place.length + 2)));
  }
  // Body files go into `<name>.files/` beside the config: `__files` paths as WireMock had them.
  const filesDir = `${basename(out).replace(/\.[^.]*$/, "")}.files`;
  const copies: [from: string | Uint8Array, to: string][] = [];
  for (const body of folder.bodyFiles) {
    const name = `${filesDir}/${body.name.replace(/^__files\//, "")}`;
    folder.routes[body.route].body_file = name;
    copies.push([body.path ?? body.bytes!, join(dirname(out), name)]);
  }
  const { stringify } = await import("yaml");
  const text = `# Imported by stubtool ${VERSION} from the WireMock mappings in ${source}\n` +
    stringify({ routes: folder.routes }, { lineWidth: 0 });
  try {
    for (const [from, to] of copies) {
      await mkdir(dirname(to), { recursive: true });
      if (typeof from === "string") await copyFile(from, to);
      else await writeFileAtomic(to, from);
    }
    await writeFileAtomic(out, text);
  } catch (error) {
    output.err(errorLine(out, `cannot write the config: ${describeWriteError(error)}`));
    return 1;
  }
  const left = new Set(folder.warnings.map((w) => w.place)).size;
  output.out(
    `imported ${folder.routes.length} stub(s) from ${folder.files} mapping file(s)` +
      (copies.length ? `, ${copies.length} body file(s)` : "") + ` → ${out}` +
      (left ? ` (${left} mapping(s) or file(s) left out, see the warnings)` : ""),
  );
  return values.strict === true && left > 0 ? 1 : 0;
}

/**
 * `import openapi`: reads the spec as `validate --openapi` does (Swagger 2.0 too), prints one
 * `[WARN] SPEC paths./x.get: 'X' is not supported: …` line per operation left out, writes the
 * config. Returns 0, or 1 when the spec cannot be used or the file not written, and with
 * `--strict` when an operation was left out.
 */
async function importOpenApi(
  source: string,
  out: string,
  values: ParsedArgs["values"],
  output: CliContext["output"],
): Promise<number> {
  const { readOpenApiDocument } = await import("../report/openapi.ts");
  const { doc, problems } = await readOpenApiDocument(source, { swagger: true });
  printProblems(output, problems, source);
  if (!doc) return 1;
  const { openApiToConfig } = await import("../formats/openapi_import.ts");
  const converted = openApiToConfig(doc, source, { strictRequests: values["strict-requests"] === true });
  for (const warning of converted.warnings) {
    output.err(warnLine(warning.place, warning.message.slice(warning.place.length + 2)));
  }
  const { stringify } = await import("yaml");
  const text = `# Imported by stubtool ${VERSION} from ${converted.version} ${source}\n` +
    stringify({ routes: converted.routes }, { lineWidth: 0 });
  try {
    await writeFileAtomic(out, text);
  } catch (error) {
    output.err(errorLine(out, `cannot write the config: ${describeWriteError(error)}`));
    return 1;
  }
  const left = converted.warnings.length;
  output.out(
    `imported ${converted.routes.length} stub(s) from ${converted.operations} operation(s) of ${source} → ` +
      `${(values.out as string | undefined) ?? "stubs.yaml"}` +
      (left ? ` (${left} operation(s) left out, see the warnings)` : ""),
  );
  return values.strict === true && left > 0 ? 1 : 0;
}
