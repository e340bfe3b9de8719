/**
 * An OpenAPI document read from disk for the CLI (`validate --openapi`, `report --openapi`,
 * `serve --openapi`, `import openapi`): {@link readOpenApiDocument} parses, validates and bundles
 * it, and the files its `$ref`s name are read as PRODUCT.md P23.6 says: only files inside the
 * spec's folder (symbolic links followed, `src/util/paths.ts`), never over the network, and YAML
 * whose aliases would expand past a bound refused before any parser walks it. A `$ref` that
 * leaves the folder is not read: it resolves to a marker (`REFUSED_REF`,
 * src/formats/openapi_refs.ts) that the importer finds and leaves the operation out for, so the
 * rest of the spec still serves. The document itself is then compiled by src/report/openapi.ts.
 * @module
 */

import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, extname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ParserOptions } from "@readme/openapi-parser";
import { messageOf } from "../../error_message.ts";
import { REFUSED_REF } from "../../formats/openapi_refs.ts";
import { compileOpenApi, type OpenApiSpec } from "../../report/openapi.ts";
import { describeReadError } from "../../stubs/config.ts";
import type { Problem } from "../../stubs/validate.ts";
import { isObject } from "../../util/json_shape.ts";
import { resolveInside } from "../../util/paths.ts";

/**
 * How many alias expansions a YAML document may make (the `yaml` package's `maxAliasCount`):
 * a "billion laughs" document of a few hundred bytes otherwise expands to gigabytes of nodes.
 */
const MAX_YAML_ALIASES = 1000;

/** The YAML parser, loaded on first use. */
let yaml: typeof import("yaml") | undefined;

/** A `$ref` target as a file path, or undefined for a URL of another scheme (`https:`). */
function pathOf(url: string): string | undefined {
  if (/^file:/i.test(url)) return fileURLToPath(url);
  if (isAbsolute(url) || !/^[a-z][a-z0-9+.-]+:/i.test(url)) return decodeURIComponent(url);
  return undefined;
}

/**
 * Throws when `text` is YAML whose aliases expand past {@link MAX_YAML_ALIASES}; a document
 * the `yaml` package cannot parse is left to the spec parser, whose message names line and column.
 */
function checkAliases(text: string, file: string): void {
  try {
    JSON.parse(text);
    return; // JSON has no aliases.
  } catch {
    // YAML: counted below.
  }
  const doc = yaml!.parseDocument(text, { merge: true, uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length) return;
  try {
    doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (error instanceof ReferenceError) {
      throw new Error(
        `YAML aliases in ${file} expand past ${MAX_YAML_ALIASES} nodes (an alias bomb): write the repeated parts ` +
          "out or use $ref",
      );
    }
  }
}

/** What a spec's read refused: each `$ref` target left unread, with why. */
interface SpecReads {
  refused: { target: string; why: string }[];
  /** Why a file could not be used (the spec parser words every resolver error the same). */
  failed?: string;
}

/**
 * The options for `@readme/openapi-parser` that read only inside `spec`'s folder: a file
 * resolver tried before every other (the HTTP one never reads). `reads.refused` collects
 * what was not read.
 */
async function specParserOptions(spec: string, reads: SpecReads): Promise<Record<string, unknown>> {
  yaml ??= await import("yaml");
  const folder = dirname(spec);
  const refuse = (target: string, why: string) => {
    if (!reads.refused.some((r) => r.target === target)) reads.refused.push({ target, why });
    // A Buffer: the spec parser's parsers read only strings and Buffers.
    return Buffer.from(JSON.stringify({ [REFUSED_REF]: `$ref ${JSON.stringify(target)} is not read: ${why}` }));
  };
  const resolver = {
    order: 1,
    canRead: () => true,
    read(file: { url: string }): Buffer {
      const path = pathOf(file.url);
      if (path === undefined) return refuse(file.url, "stubtool reads no $ref over the network");
      const found = resolveInside(folder, path);
      if ("problem" in found) {
        if (found.problem !== "outside") {
          reads.failed ??= `$ref ${JSON.stringify(path)} cannot be read: ${
            found.problem === "missing" ? "no such file" : found.problem
          }`;
          throw new Error(reads.failed);
        }
        return refuse(path, `it is outside the folder of ${spec}`);
      }
      const bytes = readFileSync(found.path);
      const ext = extname(found.path).toLowerCase();
      if (ext === ".yaml" || ext === ".yml" || ext === ".json" || ext === "") {
        try {
          checkAliases(new TextDecoder().decode(bytes), resolve(path) === resolve(spec) ? spec : path);
        } catch (error) {
          reads.failed ??= (error as Error).message;
          throw error;
        }
      }
      return bytes;
    },
  };
  return {
    resolve: { file: resolver, http: { canRead: () => false } },
    timeoutMs: 10_000,
  };
}

/** A parsed JSON object. */
type Json = Record<string, unknown>;

/** What the spec parser reads: a file, or a document parsed already. */
type SpecSource = Parameters<typeof import("@readme/openapi-parser")["bundle"]>[0];

/** The spec parser's rules that concern one operation or component, not the document: warnings, not errors. */
const LENIENT_RULES = [
  "array-without-items",
  "duplicate-non-request-body-parameters",
  "duplicate-operation-id",
  "invalid-security-scheme-properties",
  "non-optional-path-parameters",
  "path-parameters-not-in-parameters",
  "path-parameters-not-in-path",
];

/**
 * Reads an OpenAPI 3.0 or 3.1 or a Swagger 2.0 document (YAML or JSON; `$ref`s to other files
 * are bundled in, internal `$ref`s kept) and checks that it is a valid one. Problems are placed at the file: `api.yaml: no such file`,
 * `api.yaml: not a valid OpenAPI document: …`. `stubtool import openapi` and
 * `serve --openapi` read specs through this, as {@link loadOpenApi} does.
 *
 * @example
 * ```ts
 * import { readOpenApiDocument } from "./openapi_document.ts";
 * const { doc, problems } = await readOpenApiDocument("missing.yaml");
 * console.log(doc, problems[0].message); // undefined "no such file"
 * ```
 */
export async function readOpenApiDocument(
  file: string,
): Promise<{ doc?: Record<string, unknown>; problems: Problem[] }> {
  const fail = (message: string) => ({ problems: [{ level: "error" as const, place: file, message }] });
  try {
    await readFile(file);
  } catch (error) {
    return fail(describeReadError(error));
  }
  const parser = await import("@readme/openapi-parser");
  const reads: SpecReads = { refused: [] };
  // Files inside the spec's folder only, no network, YAML aliases bounded (P23.6).
  const parserOptions = await specParserOptions(file, reads) as ParserOptions;
  try {
    const parsed = await parser.parse(file, parserOptions) as unknown;
    const unsupported = versionProblem(parsed);
    if (unsupported !== undefined) return fail(unsupported);
    // A self-contained document (GitHub's 13 MB) is neither read and parsed again nor bundled:
    // bundling changes nothing in it. The validator gets a copy (it dereferences in place).
    const whole = isObject(parsed) && selfContained(parsed);
    const checked = await validateSpec(
      parser,
      file,
      whole ? structuredClone(parsed) as SpecSource : file,
      parserOptions,
    );
    if ("invalid" in checked) return { problems: checked.invalid };
    const doc = whole ? parsed as Json : await parser.bundle(file, parserOptions) as unknown as Json;
    return {
      doc,
      problems: [
        ...reads.refused.map(({ target, why }) => ({
          level: "warn" as const,
          place: file,
          message: `$ref ${JSON.stringify(target)} is not read: ${why} (what uses it is left out)`,
        })),
        ...checked.lenient,
      ],
    };
  } catch (error) {
    if (reads.failed !== undefined) return fail(reads.failed);
    return { problems: [parseFailure(file, error)] };
  }
}

/**
 * Whether a parsed document needs no bundling: every `$ref` in it points inside it (`#/…`) and
 * no `$id` (which the bundler strips when nothing refers to it) appears anywhere.
 */
function selfContained(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(selfContained);
  if (!isObject(node)) return true;
  for (const [key, value] of Object.entries(node)) {
    if (key === "$id") return false;
    if (key === "$ref" && typeof value === "string" ? !value.startsWith("#") : !selfContained(value)) return false;
  }
  return true;
}

/** Why a parsed document is not one stubtool reads (no version, Swagger 1.2, OpenAPI 4), or undefined. */
function versionProblem(raw: unknown): string | undefined {
  if (isObject(raw) && raw.swagger !== undefined) {
    if (String(raw.swagger) !== "2.0") return `Swagger ${raw.swagger} is not supported: stubtool reads 2.0`;
  } else if (!isObject(raw) || raw.openapi === undefined) {
    return "not an OpenAPI document: it has no 'openapi' version field";
  } else if (!/^3\.[01]\./.test(String(raw.openapi))) {
    return `OpenAPI ${raw.openapi} is not supported: stubtool reads OpenAPI 3.0 and 3.1 (and Swagger 2.0)`;
  }
  return undefined;
}

/**
 * The document (`source`: the file `file`, or its parsed copy) validated: its first errors when invalid, else the warnings of the rules
 * about one operation (an undeclared path parameter, a duplicate operationId), read anyway.
 */
async function validateSpec(
  parser: typeof import("@readme/openapi-parser"),
  file: string,
  source: SpecSource,
  parserOptions: ParserOptions,
): Promise<{ invalid: Problem[] } | { lenient: Problem[] }> {
  // Those rules warn: the rest of a real spec still serves, and what the stubs cannot carry is left out by name.
  const rules = Object.fromEntries(LENIENT_RULES.map((rule) => [rule, "warning" as const]));
  const checked = await parser.validate(source, {
    ...parserOptions,
    validate: { rules: { openapi: rules, swagger: rules } },
  });
  if (!checked.valid) {
    const invalid = checked.errors.slice(0, 5).map((e) => ({
      level: "error" as const,
      place: file,
      message: `not a valid OpenAPI document: ${e.message.split("\n")[0]}`,
    }));
    return { invalid };
  }
  const lenient = checked.warnings.map((w) => ({
    level: "warn" as const,
    place: file,
    message: `${w.message.split("\n")[0]} (read anyway)`,
  }));
  return { lenient };
}

/** The parser's error as one problem: at its line and column for a syntax error. */
function parseFailure(file: string, error: unknown): Problem {
  const message = messageOf(error).split("\n")[0];
  // `Error parsing api.yaml: missed comma between flow collection entries (3:10)`
  const syntax = /^Error parsing .*?: (.*) \((\d+):(\d+)\)$/.exec(message);
  if (syntax) return { level: "error", place: `${file}:${syntax[2]}:${syntax[3]}`, message: syntax[1] };
  return { level: "error", place: file, message: `cannot read the OpenAPI document: ${message}` };
}

/**
 * Reads an OpenAPI 3.0, 3.1 or Swagger 2.0 document (see {@link readOpenApiDocument}) and compiles it
 * for the checks of {@link OpenApiSpec}.
 *
 * @example
 * ```ts
 * import { loadOpenApi } from "./openapi_document.ts";
 * const { spec, problems } = await loadOpenApi("missing.yaml");
 * console.log(spec, problems[0].message); // undefined "no such file"
 * ```
 */
export async function loadOpenApi(file: string): Promise<{ spec?: OpenApiSpec; problems: Problem[] }> {
  const { doc, problems } = await readOpenApiDocument(file);
  if (!doc) return { problems };
  const spec = await compileOpenApi(file, doc);
  return { spec, problems: [...problems, ...spec.warnings] };
}
