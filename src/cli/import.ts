/**
 * `stubtool import wiremock DIR|FILE [-o FILE] [--strict]`: WireMock mappings written as a
 * stubtool config (src/formats/wiremock/), body files copied into a folder beside it.
 * `stubtool import har FILE [-o FILE]`: a HAR recording (src/formats/har.ts) written as
 * `stubtool record` writes its exchanges (src/cli/record.ts).
 * `stubtool import openapi SPEC [-o FILE] [--strict-requests] [--strict]`: one stub per
 * operation of an OpenAPI description (src/formats/openapi_import.ts).
 * @module
 */

import { loadTemplating } from "../templating/engine.ts";
import { copyFile, mkdir, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { VERSION } from "../version.ts";
import type { CliContext } from "./context.ts";
import { checkOutputPath, describeWriteError, writeFileAtomic } from "./files.ts";
import { errorLine, type Output, printProblems, warnLine } from "./output.ts";
import type { HarExchanges } from "../formats/har.ts";
import { type ParsedArgs, urlValue, UsageError } from "./usage.ts";

/**
 * Converts, prints one `[WARN]` line per mapping feature left out (stderr), writes the config
 * and its body files, and says what it wrote (stdout). Returns 0, or 1 when the source cannot
 * be read or the file not written, and with `--strict` when anything was left out.
 */
export async function importCommand(args: ParsedArgs, ctx: CliContext): Promise<number> {
  const [kind] = args.positionals;
  if (kind !== "wiremock" && kind !== "har" && kind !== "openapi") {
    throw new UsageError(`import: unknown format '${kind}' (formats: wiremock, openapi, har)`, "import");
  }
  if (kind !== "openapi" && args.values["strict-requests"] === true) {
    throw new UsageError("--strict-requests is for import openapi (the other formats say what they require)", "import");
  }
  // Every format's stubs are converted and checked synchronously (templates, `matchesJsonPath`): the engine loads first.
  await loadTemplating();
  if (kind === "har") return await importHar(args, ctx);
  if (kind === "openapi") {
    for (const flag of HAR_ONLY) {
      if (args.values[flag] !== undefined) {
        throw new UsageError(`import openapi: --${flag} applies to import har (and record) only`, "import");
      }
    }
    const checked = checkOutputPath((args.values.out as string | undefined) ?? "stubs.yaml");
    if ("problem" in checked) {
      ctx.output.err(errorLine("--out", checked.problem));
      return 1;
    }
    return await importOpenApi(args.positionals[1], checked.path, args.values, ctx.output);
  }
  for (const flag of HAR_ONLY) {
    if (args.values[flag] !== undefined) {
      throw new UsageError(`import wiremock: --${flag} applies to import har (and record) only`, "import");
    }
  }
  return await importWireMock(args, ctx);
}

/** Flags that say how recorded exchanges become stubs: meaningless for WireMock mappings. */
const HAR_ONLY = ["keep-header", "keep-request-header", "ignore-body", "keep-delay", "origin"];

/** Response headers that describe the bytes on the wire, not the decoded body a HAR keeps. */
const WIRE_HEADERS = ["content-encoding", "content-length", "transfer-encoding"];

/**
 * Converts a HAR file, prints one `[WARN]` line per entry left out or converted with less
 * than it held, writes the config as `record` does. Returns 0, or 1 when the file cannot
 * be read or written, and with `--strict` when any entry was left out.
 */
async function importHar({ positionals, values }: ParsedArgs, { output }: CliContext): Promise<number> {
  const source = positionals[1];
  const { printRecordingWarnings, recordingOptions, writeRecording, writtenSummary } = await import("./record.ts");
  const options = recordingOptions(values);
  for (const name of options.keep ?? []) {
    if (WIRE_HEADERS.includes(name.toLowerCase())) {
      throw new UsageError(
        `import har: --keep-header ${name} cannot be kept: a HAR holds the decoded body, so the header would not describe it`,
        "import",
      );
    }
  }
  let origin: string | undefined;
  if (values.origin !== undefined) origin = urlValue(values.origin as string, "--origin", "import").origin;
  const checked = checkOutputPath((values.out as string | undefined) ?? "stubs.yaml");
  if ("problem" in checked) {
    output.err(errorLine("--out", checked.problem));
    return 1;
  }
  const out = checked.path;
  const read = await readHar(source, output);
  if (!read) return 1;
  const { harExchanges } = await import("../formats/har.ts");
  let har;
  try {
    har = harExchanges(read.doc, source, { origin });
  } catch (error) {
    output.err(errorLine(source, (error as Error).message));
    return 1;
  }
  for (const warning of har.warnings) output.err(warnLine(warning.place, warning.message));
  warnOrigins(har, source, origin, output);
  let written;
  try {
    written = await writeRecording(
      har.exchanges,
      options,
      out,
      `Imported by stubtool ${VERSION} from the HAR recording ${source}`,
    );
  } catch (error) {
    output.err(errorLine(out, `cannot write the config: ${describeWriteError(error)}`));
    return 1;
  }
  printRecordingWarnings(written.warnings, output);
  const left = har.entries - har.exchanges.length - har.otherOrigin;
  const notes = [
    ...(left ? [`${left} entries left out, see the warnings`] : []),
    ...(har.otherOrigin ? [`${har.otherOrigin} sent to other origins skipped`] : []),
  ];
  output.out(
    // The path as given: the user's own words (the wiremock summary names the resolved path).
    `imported ${har.exchanges.length} request(s) as ${writtenSummary(written)} → ${values.out ?? "stubs.yaml"}` +
      (notes.length ? ` (${notes.join("; ")})` : ""),
  );
  return values.strict === true && left > 0 ? 1 : 0;
}

/** The HAR file's JSON, or undefined after saying why it cannot be had. */
async function readHar(source: string, output: Output): Promise<{ doc: unknown } | undefined> {
  try {
    return { doc: JSON.parse(await readFile(source, "utf8")) };
  } catch (error) {
    const code = (error as { code?: string }).code;
    output.err(errorLine(
      source,
      code === "ENOENT"
        ? "does not exist (give a HAR file exported from a browser or proxy)"
        : error instanceof SyntaxError
        ? `is not JSON: ${error.message} (a HAR file is JSON)`
        : `cannot be read: ${describeWriteError(error)}`,
    ));
    return undefined;
  }
}

/** Warns when the entries went to several origins, or none to `--origin`'s. */
function warnOrigins(har: HarExchanges, source: string, origin: string | undefined, output: Output): void {
  if (har.origins.length > 1) {
    output.err(warnLine(
      source,
      `entries sent to ${har.origins.length} origins (${har.origins.join(", ")}) are written as stubs of one ` +
        "server; --origin URL keeps one",
    ));
  }
  if (har.exchanges.length === 0 && har.otherOrigin > 0) {
    // Every entry went to another origin: most likely a wrong scheme, host or port in --origin.
    output.err(warnLine(
      source,
      `no entry was sent to --origin ${origin}; the HAR holds ${har.otherOrigins.join(", ")} ` +
        `(write --origin ${har.otherOrigins[0]}${har.otherOrigins.length > 1 ? ", or another of them" : ""})`,
    ));
  }
}

/** `import wiremock`: mappings written as a config, body files copied beside it. */
async function importWireMock({ positionals, values }: ParsedArgs, { output }: CliContext): Promise<number> {
  const source = positionals[1];
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
  const { readWireMockFolder } = await import("./loaders/wiremock_folder.ts");
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
  const { readOpenApiDocument } = await import("./loaders/openapi_document.ts");
  const { doc, problems } = await readOpenApiDocument(source);
  printProblems(output, problems, source);
  if (!doc) return 1;
  const { openApiToConfig } = await import("../formats/openapi_import.ts");
  const converted = openApiToConfig(doc, source, { strictRequests: values["strict-requests"] === true });
  for (const warning of [...converted.fixes, ...converted.warnings]) {
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
  if (values.strict === true && left > 0) {
    output.err(errorLine(source, `--strict: ${left} operation(s) left out (see the warnings), so the exit code is 1`));
    return 1;
  }
  return 0;
}
