/**
 * `stubtool import wiremock DIR|FILE [-o FILE] [--strict]`: WireMock mappings written as a
 * stubtool config (src/formats/wiremock/), body files copied into a folder beside it.
 * @module
 */

import { copyFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { VERSION } from "../version.ts";
import type { CliContext } from "./context.ts";
import { checkOutputPath, describeWriteError, writeFileAtomic } from "./files.ts";
import { errorLine, warnLine } from "./output.ts";
import { type ParsedArgs, UsageError } from "./usage.ts";

/**
 * Converts, prints one `[WARN]` line per mapping feature left out (stderr), writes the config
 * and its body files, and says what it wrote (stdout). Returns 0, or 1 when the source cannot
 * be read or the file not written, and with `--strict` when anything was left out.
 */
export async function importCommand({ positionals, values }: ParsedArgs, { output }: CliContext): Promise<number> {
  const [kind, source] = positionals;
  if (kind !== "wiremock") throw new UsageError(`import: unknown format '${kind}' (formats: wiremock)`, "import");
  const checked = checkOutputPath((values.out as string | undefined) ?? "stubs.yaml");
  if ("problem" in checked) {
    output.err(errorLine("--out", checked.problem));
    return 1;
  }
  const out = checked.path;
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
