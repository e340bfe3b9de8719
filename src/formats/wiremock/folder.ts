/**
 * The mapping files of a WireMock folder converted as stubtool stubs, in one batch: each
 * file's text converted by {@link mappingsToConfig}, each `bodyFileName` checked by the
 * caller's resolver (the CLI's loader, src/cli/loaders/wiremock_folder.ts, resolves it
 * strictly inside `DIR/__files`), and the priorities ranked across all files. Reads no file.
 * @module
 */

import { messageOf } from "../../error_message.ts";
import { isObject } from "../../util/json_shape.ts";
import {
  mappingsToConfig,
  rankPriorities,
  type WireMockBodyFile,
  type WireMockConversion,
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

/** One mapping file: where it is (for places in warnings) and its text. */
export interface MappingFile {
  path: string;
  text: string;
}

/**
 * Where a `bodyFileName` is: `{ path }`, its real path, or why it cannot be used (the mapping
 * is then left out with that reason).
 */
export type BodyFileResolver = (name: string) => { path: string } | string;

/**
 * Converts the mapping files of a WireMock folder, given in path order (WireMock's own order
 * is the file system's, unspecified), which decides ties between equal priorities: the later
 * mapping wins, as in WireMock. A `bodyFileName` that `resolveBody` refuses refuses its mapping.
 * Each file's text is parsed once.
 *
 * @example
 * ```ts
 * import { convertWireMockFiles } from "./folder.ts";
 * const text = JSON.stringify({ request: { url: "/hi" }, response: { body: "hello" } });
 * const { routes } = convertWireMockFiles([{ path: "hi.json", text }], () => "no body files here");
 * console.log(routes.length, routes[0].body); // 1 "hello"
 * ```
 */
export function convertWireMockFiles(
  mappingFiles: Iterable<MappingFile>,
  resolveBody: BodyFileResolver,
  options: Pick<WireMockOptions, "globalTemplating"> = {},
): WireMockFolder {
  const result: WireMockFolder = {
    routes: [],
    warnings: [],
    bodyFiles: [],
    files: 0,
    origins: [],
    mappings: [],
    refused: [],
  };
  const priorities: number[] = [];
  const takenIds = new Set<string>();
  for (const { path: file, text } of mappingFiles) {
    result.files++;
    const parsed = parseMappingFile(file, text, result.warnings);
    if (parsed === undefined) continue;
    const { doc } = parsed;
    const converted = mappingsToConfig(doc, file, { ...options, source: text, takenIds });
    const list: unknown[] = isObject(doc) && Array.isArray(doc.mappings) ? doc.mappings : [doc];
    result.warnings.push(...converted.warnings);
    const bodies = resolveBodyFiles(file, converted, resolveBody, result.warnings);
    addConverted(result, priorities, takenIds, { file, list, converted, ...bodies });
  }
  rankPriorities(result.routes, priorities);
  return result;
}

/** A mapping file's JSON, or undefined (and a warning leaving the file out) when it is not JSON. */
function parseMappingFile(file: string, text: string, warnings: WireMockWarning[]): { doc: unknown } | undefined {
  try {
    return { doc: JSON.parse(text) };
  } catch (error) {
    const why = messageOf(error);
    warnings.push({
      place: file,
      feature: "file",
      message: `${file}: 'file' is not supported: not JSON (${why})`,
    });
    return undefined;
  }
}

/** Which body files `resolveBody` found (their paths) and which stubs it refused (each with a warning). */
function resolveBodyFiles(
  file: string,
  converted: WireMockConversion,
  resolveBody: BodyFileResolver,
  warnings: WireMockWarning[],
): { refused: Set<number>; resolved: Map<WireMockBodyFile, string> } {
  // A mapping whose body file cannot be used is left out whole.
  const refused = new Set<number>();
  const resolved = new Map<WireMockBodyFile, string>();
  for (const body of converted.bodyFiles) {
    if (body.source === undefined) continue;
    const problem = resolveBody(body.source);
    if (typeof problem === "string") {
      refused.add(body.route);
      const place = `${file} mappings[${converted.indexes[body.route]}]`;
      warnings.push({
        place,
        feature: "bodyFileName",
        message: `${place}: 'bodyFileName' is not supported: ${problem}`,
      });
    } else resolved.set(body, problem.path);
  }
  return { refused, resolved };
}

/** One file's conversion: its mappings (`list`), stubs and body files, those `refused` left out. */
interface FileConversion {
  file: string;
  list: unknown[];
  converted: WireMockConversion;
  refused: Set<number>;
  resolved: Map<WireMockBodyFile, string>;
}

/**
 * Adds a file's stubs not refused to `result` (with their origins, mappings and WireMock
 * priorities), and their body files renumbered; a refused stub's id is free again.
 */
function addConverted(
  result: WireMockFolder,
  priorities: number[],
  takenIds: Set<string>,
  { file, list, converted, refused, resolved }: FileConversion,
): void {
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
