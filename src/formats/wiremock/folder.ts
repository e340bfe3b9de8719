/**
 * A WireMock root folder read as stubtool stubs: `DIR/mappings/**\/*.json` (a DIR without
 * `mappings/` is the mappings folder itself) converted by {@link mappingsToConfig}, with each
 * `bodyFileName` resolved strictly inside `DIR/__files`.
 * @module
 */

import { messageOf } from "../../error_message.ts";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { resolveInside } from "../../util/paths.ts";
import {
  mappingsToConfig,
  rankPriorities,
  type WireMockBodyFile,
  type WireMockOptions,
  type WireMockWarning,
} from "./mapping.ts";

/** A body file of the folder's stubs, with where its bytes are. */
export interface FolderBodyFile extends WireMockBodyFile {
  /** The real path of a `__files` file (absent for generated content, see `bytes`). */
  path?: string;
}

/** The stubs of a WireMock folder (or of one mapping file). */
export interface WireMockFolder {
  /** Config-form stubs, in file path order, then document order. */
  routes: Record<string, unknown>[];
  /** Every mapping (or file) left out, and why. */
  warnings: WireMockWarning[];
  /** The `body_file`s the stubs name: relative names, each with its source. */
  bodyFiles: FolderBodyFile[];
  /** How many mapping files were read. */
  files: number;
  /** Where each stub's mapping is: its file and its index in that file (`FILE mappings[i]`). */
  origins: [file: string, index: number][];
  /** Each stub's mapping object as parsed (the file is read and parsed once). */
  mappings: Record<string, unknown>[];
  /** The mappings left out (`FILE mappings[i]`), as parsed: for what their scenarios lose. */
  refused: { place: string; mapping: unknown }[];
}

/** Every `*.json` file under `dir`, sorted by path, so that the result does not depend on the file system. */
function jsonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const path = join(dir, entry);
    if (entry.toLowerCase().endsWith(".json") && statSync(path).isFile()) out.push(path);
  }
  return out.sort();
}

/**
 * Where a WireMock root's mappings and body files are: `DIR/mappings` and `DIR/__files`; a
 * folder without `mappings/` is the mappings folder itself (its `__files` beside it); one
 * mapping file (`mappingsDir` undefined) takes the `__files` of its folder's root.
 */
export function wireMockLayout(root: string): { mappingsDir: string | undefined; filesDir: string } {
  try {
    if (!statSync(root).isDirectory()) throw new Error("a file");
  } catch {
    const parent = dirname(root);
    return {
      mappingsDir: undefined,
      filesDir: basename(parent) === "mappings" ? join(parent, "..", "__files") : join(parent, "__files"),
    };
  }
  const mappings = join(root, "mappings");
  const hasMappings = existsSync(mappings) && statSync(mappings).isDirectory();
  return hasMappings
    ? { mappingsDir: mappings, filesDir: join(root, "__files") }
    : { mappingsDir: root, filesDir: join(root, "..", "__files") };
}

/**
 * Reads a WireMock root folder (or one mapping file) and converts it. Mapping files load in
 * path order (WireMock's own order is the file system's, unspecified), which decides ties
 * between equal priorities: the later mapping wins, as in WireMock. A `bodyFileName` that
 * leaves `__files` (`../`, an absolute path, a symbolic link pointing out) or does not exist
 * refuses its mapping.
 *
 * @example
 * ```ts ignore
 * import { readWireMockFolder } from "./folder.ts";
 * const { routes, warnings } = readWireMockFolder("wiremock/");
 * ```
 */
export function readWireMockFolder(
  root: string,
  options: Pick<WireMockOptions, "globalTemplating"> = {},
): WireMockFolder {
  const { mappingsDir, filesDir } = wireMockLayout(root);
  const files = mappingsDir === undefined ? [root] : jsonFiles(mappingsDir);
  const result: WireMockFolder = {
    routes: [],
    warnings: [],
    bodyFiles: [],
    files: files.length,
    origins: [],
    mappings: [],
    refused: [],
  };
  const priorities: number[] = [];
  const takenIds = new Set<string>();
  let filesReal: string | undefined;
  try {
    filesReal = realpathSync(filesDir);
  } catch {
    filesReal = undefined;
  }
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (error) {
      const why = messageOf(error);
      result.warnings.push({
        place: file,
        feature: "file",
        message: `${file}: 'file' is not supported: not JSON (${why})`,
      });
      continue;
    }
    const converted = mappingsToConfig(doc, file, { ...options, source: text, takenIds });
    const list: unknown[] = isObject(doc) && Array.isArray(doc.mappings) ? doc.mappings : [doc];
    result.warnings.push(...converted.warnings);
    // A mapping whose body file cannot be used is left out whole.
    const refused = new Set<number>();
    const resolved = new Map<WireMockBodyFile, string>();
    for (const body of converted.bodyFiles) {
      if (body.source === undefined) continue;
      const problem = resolveBodyFile(body.source, filesDir, filesReal);
      if (typeof problem === "string") {
        refused.add(body.route);
        const place = `${file} mappings[${converted.indexes[body.route]}]`;
        result.warnings.push({
          place,
          feature: "bodyFileName",
          message: `${place}: 'bodyFileName' is not supported: ${problem}`,
        });
      } else resolved.set(body, problem.path);
    }
    const renumber = new Map<number, number>();
    const kept = new Set(converted.indexes.filter((_, i) => !refused.has(i)));
    list.forEach((mapping, j) => {
      if (!kept.has(j)) result.refused.push({ place: `${file} mappings[${j}]`, mapping });
    });
    converted.routes.forEach((route, i) => {
      if (refused.has(i)) {
        if (route.id !== undefined) takenIds.delete(route.id as string);
        return;
      }
      renumber.set(i, result.routes.length);
      result.routes.push(route);
      result.origins.push([file, converted.indexes[i]]);
      const mapping = list[converted.indexes[i]];
      result.mappings.push(isObject(mapping) ? mapping : {});
      priorities.push(converted.wiremockPriorities[i]);
    });
    for (const body of converted.bodyFiles) {
      const route = renumber.get(body.route);
      if (route === undefined) continue;
      const path = resolved.get(body);
      result.bodyFiles.push(path === undefined ? { ...body, route } : { ...body, route, path });
    }
  }
  rankPriorities(result.routes, priorities);
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A `bodyFileName` resolved inside `__files` (P23.6's one rule): its real path, or why it cannot be used. */
function resolveBodyFile(
  name: string,
  filesDir: string,
  filesReal: string | undefined,
): { path: string } | string {
  if (isAbsolute(name) || /^[A-Za-z]:/.test(name) || name.startsWith("/") || name.startsWith("\\")) {
    return `${JSON.stringify(name)} is an absolute path; body files stay inside __files`;
  }
  if (name.split(/[\\/]/).includes("..")) return `${JSON.stringify(name)} leaves __files ('..')`;
  if (filesReal === undefined) return `${JSON.stringify(name)} cannot be read: there is no folder ${filesDir}`;
  const found = resolveInside(filesDir, name);
  if ("path" in found) return found;
  if (found.problem === "missing") {
    return `${JSON.stringify(name)} does not exist in ${filesDir} (WireMock answers 500)`;
  }
  if (found.problem === "not a file") return `${JSON.stringify(name)} is not a file`;
  return `${JSON.stringify(name)} is a symbolic link that leaves __files`;
}
