/**
 * WireMock folders read from disk for the CLI (`serve --wiremock DIR`, a config's
 * `wiremock: DIR`, `validate --wiremock DIR`, `import wiremock`, `--watch`): the mapping files
 * listed and read, each `bodyFileName` resolved strictly inside `DIR/__files` (P23.6), and the
 * pure translators of src/formats/wiremock/ given the texts. A DIR without `mappings/` is the
 * mappings folder itself.
 * @module
 */

import { wireMockLayout } from "../../server/wiremock/layout.ts";
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { CompiledStub } from "../../stubs/model.ts";
import type { Problem } from "../../stubs/validate.ts";
import { resolveInside } from "../../util/paths.ts";
import type { WireMockOptions } from "../../formats/wiremock/mapping.ts";
import { convertWireMockFiles, type MappingFile, type WireMockFolder } from "../../formats/wiremock/folder.ts";
import {
  wireMockFolderStubs,
  type WireMockLoad,
  type WireMockLoadOptions,
} from "../../formats/wiremock/folder_stubs.ts";

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
 * Reads a WireMock root folder (or one mapping file) and converts it (`convertWireMockFiles`).
 * Mapping files load in path order. A `bodyFileName` that leaves `__files` (`../`, an absolute
 * path, a symbolic link pointing out) or does not exist refuses its mapping.
 *
 * @example
 * ```ts ignore
 * import { readWireMockFolder } from "./wiremock_folder.ts";
 * const { routes, warnings } = readWireMockFolder("wiremock/");
 * ```
 */
export function readWireMockFolder(
  root: string,
  options: Pick<WireMockOptions, "globalTemplating"> = {},
): WireMockFolder {
  statSync(root); // a root that is not there throws here, naming it
  const { mappingsDir, filesDir } = wireMockLayout(root);
  const files = mappingsDir === undefined ? [root] : jsonFiles(mappingsDir);
  let filesReal: string | undefined;
  try {
    filesReal = realpathSync(filesDir);
  } catch {
    filesReal = undefined;
  }
  // Read one file at a time, as the converter asks for it.
  function* texts(): Generator<MappingFile> {
    for (const path of files) yield { path, text: readFileSync(path, "utf8") };
  }
  return convertWireMockFiles(texts(), (name) => resolveBodyFile(name, filesDir, filesReal), options);
}

/**
 * Reads a WireMock root folder (or one mapping file) and returns its mappings as validated
 * stubs (`wireMockFolderStubs`): a mapping the converter refuses, or whose converted stub
 * does not validate, is left out with a warning.
 *
 * @example
 * ```ts ignore
 * import { loadWireMockFolder } from "./wiremock_folder.ts";
 * const { stubs, problems } = loadWireMockFolder("wiremock/");
 * ```
 */
export function loadWireMockFolder(root: string, options: WireMockLoadOptions = {}): WireMockLoad {
  const folder = readWireMockFolder(root, { globalTemplating: options.globalTemplating });
  return wireMockFolderStubs(folder, resolve(root), readFileBytes, options);
}

/** A whole file's bytes, in a buffer of their own. */
function readFileBytes(path: string): Uint8Array<ArrayBuffer> {
  const buffer = readFileSync(path);
  return new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer);
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

/**
 * Every file under a WireMock folder (mapping files and `__files`), for `--watch` to follow:
 * adding, changing or removing one reloads the folder.
 */
export function wireMockFiles(root: string): string[] {
  try {
    if (!statSync(root).isDirectory()) return [root];
    return readdirSync(root, { recursive: true, encoding: "utf8" }).map((entry) => join(root, entry)).sort();
  } catch {
    return [root];
  }
}

/** Several WireMock folders loaded: one batch of stubs per folder, and every problem. */
export interface WireMockFolders {
  batches: CompiledStub[][];
  problems: Problem[];
  /** How many stubs and mapping files in all. */
  stubs: number;
  files: number;
}

/**
 * Loads each folder (`--wiremock DIR`, a config's `wiremock:`) in turn; `place` names where a
 * folder was given, for the error when it does not exist. With `strict`, each mapping left
 * out is an error instead of a warning.
 */
export function loadWireMockFolders(
  dirs: readonly { dir: string; place: string }[],
  options: WireMockLoadOptions & { strict?: boolean } = {},
): WireMockFolders {
  const result: WireMockFolders = { batches: [], problems: [], stubs: 0, files: 0 };
  for (const { dir, place } of dirs) {
    try {
      statSync(dir);
    } catch (error) {
      const code = (error as { code?: string }).code;
      const why = code === "ENOENT" ? "no such folder" : code === "EACCES" ? "permission denied" : String(error);
      result.problems.push({
        level: "error",
        place,
        message: `${why} (give a WireMock root folder holding mappings/, or a mappings folder)`,
      });
      continue;
    }
    const loaded = loadWireMockFolder(dir, options);
    result.batches.push(loaded.stubs);
    result.stubs += loaded.stubs.length;
    result.files += loaded.files;
    for (const problem of loaded.problems) {
      result.problems.push(options.strict ? { ...problem, level: "error" } : problem);
    }
    if (loaded.files === 0) {
      // Most likely the wrong folder: say where WireMock looks (not an error: an empty root is legal).
      const mappings = join(dir, "mappings");
      result.problems.push({
        level: "warn",
        place,
        message:
          `no mappings found in ${dir} (WireMock reads ${mappings}/**/*.json; give the folder that holds mappings/)`,
      });
    }
  }
  return result;
}
