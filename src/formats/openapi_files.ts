/**
 * How an OpenAPI document and the files its `$ref`s name are read (PRODUCT.md P23.6): only
 * files inside the spec's folder (symbolic links followed, `src/util/paths.ts`), never over the
 * network, and YAML whose aliases would expand past a bound refused before any parser walks it.
 * A `$ref` that leaves the folder is not read: it resolves to a marker ({@link REFUSED_REF}) that
 * the importer finds and leaves the operation out for, so the rest of the spec still serves.
 * @module
 */

import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { dirname, extname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveInside } from "../util/paths.ts";

/** The key of the object a refused `$ref` resolves to; its value says why. */
export const REFUSED_REF = "x-stubtool-refused-ref";

/**
 * How many alias expansions a YAML document may make (the `yaml` package's `maxAliasCount`):
 * a "billion laughs" document of a few hundred bytes otherwise expands to gigabytes of nodes.
 */
export const MAX_YAML_ALIASES = 1000;

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
export interface SpecReads {
  refused: { target: string; why: string }[];
  /** Why a file could not be used (the spec parser words every resolver error the same). */
  failed?: string;
}

/**
 * The options for `@readme/openapi-parser` that read only inside `spec`'s folder: a file
 * resolver tried before every other (the HTTP one never reads). `reads.refused` collects
 * what was not read.
 */
export async function specParserOptions(spec: string, reads: SpecReads): Promise<Record<string, unknown>> {
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

/** The first refused-`$ref` marker in `value` (following nothing): its text, or undefined. */
export function refusedRefIn(value: unknown): string | undefined {
  if (typeof value === "string") {
    if (!value.startsWith(`{"${REFUSED_REF}"`)) return undefined;
    try {
      return (JSON.parse(value) as Record<string, string>)[REFUSED_REF];
    } catch {
      return undefined;
    }
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value) && REFUSED_REF in value) {
    return String((value as Record<string, unknown>)[REFUSED_REF]);
  }
  return undefined;
}
