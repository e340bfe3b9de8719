/**
 * WireMock folders served as they are (`serve --wiremock DIR`, a config's `wiremock: DIR`,
 * `validate --wiremock DIR`): {@link readWireMockFolder}'s config-form stubs, validated into
 * ordinary stubs, each named for the report by its mapping, with what WireMock's server does
 * around the mapping reproduced where a stub can carry it: a `GET` mapping does not answer
 * `HEAD`, and every answer carries `Matched-Stub-Id` (and `Matched-Stub-Name`).
 * @module
 */

import { type PlacedMapping, scenarioLosses } from "./scenario_reach.ts";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Stub } from "../../stubs/model.ts";
import { type Problem, validateStub } from "../../stubs/validate.ts";
import { readWireMockFolder } from "./folder.ts";

/** Options of {@link loadWireMockFolder}. */
export interface WireMockLoadOptions {
  /** Render every mapping as a template, as WireMock's `--global-response-templating` does. */
  globalTemplating?: boolean;
  /** Ids already taken (the config's stubs, earlier folders): a mapping with one of them is left out. */
  takenIds?: Set<string>;
}

/** A WireMock folder loaded as stubs. */
export interface WireMockLoad {
  /** The stubs of the mappings that convert, in load order: one batch. */
  stubs: Stub[];
  /** One `[WARN]` per feature of each mapping left out, placed `FILE mappings[i]`. */
  problems: Problem[];
  /** How many mapping files were read. */
  files: number;
}

/** A UUID-shaped id for a mapping without one, the same on every load (WireMock makes a fresh one per load). */
function stableUuid(place: string): string {
  const hex = createHash("sha256").update(place).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Reads a WireMock root folder (or one mapping file) and returns its mappings as validated
 * stubs. Each stub's `name` is the mapping's `name`, else `FILE mappings[i]`; its `id` is
 * the converter's (the mapping's `id`/`uuid`). A mapping the converter refuses, or whose
 * converted stub does not validate, is left out with a warning.
 *
 * @example
 * ```ts ignore
 * import { loadWireMockFolder } from "./load.ts";
 * const { stubs, problems } = loadWireMockFolder("wiremock/");
 * ```
 */
export function loadWireMockFolder(root: string, options: WireMockLoadOptions = {}): WireMockLoad {
  const folder = readWireMockFolder(root, { globalTemplating: options.globalTemplating });
  const problems: Problem[] = folder.warnings.map((w) => ({
    level: "warn",
    place: w.place,
    message: w.message.slice(w.place.length + 2),
  }));
  // Generated body files (a template body) are served from memory; `__files` ones from their real path.
  const generated = new Map<string, Uint8Array<ArrayBuffer>>();
  const base = resolve(root);
  for (const body of folder.bodyFiles) {
    const route = folder.routes[body.route];
    if (body.path !== undefined) route.body_file = body.path;
    else {
      const path = join(base, body.name);
      route.body_file = path;
      generated.set(path, new Uint8Array(body.bytes!) as Uint8Array<ArrayBuffer>);
    }
  }
  const readFile = (path: string): Uint8Array<ArrayBuffer> => {
    const bytes = generated.get(path);
    if (bytes) return bytes;
    const buffer = readFileSync(path);
    return new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer);
  };
  const stubs: Stub[] = [];
  const kept: PlacedMapping[] = [];
  const refused: PlacedMapping[] = [...folder.refused];
  folder.routes.forEach((route, i) => {
    const [file, index] = folder.origins[i];
    const mapping = folder.mappings[i];
    const place = `${file} mappings[${index}]`;
    const name = typeof mapping.name === "string" && mapping.name !== "" ? mapping.name.slice(0, 200) : place;
    const stubId = typeof mapping.id === "string"
      ? mapping.id
      : typeof mapping.uuid === "string"
      ? mapping.uuid
      : stableUuid(place);
    // A mapping without an id gets its stable one as its stub's id, so Matched-Stub-Id names a stub /__admin/ knows.
    const raw: Record<string, unknown> = { name, ...route, id: stubId };
    addMatchedHeaders(raw, stubId, typeof mapping.name === "string" ? mapping.name : undefined);
    const { stub, errors } = validateStub(raw, { readFile });
    const id = stubId;
    const taken = options.takenIds?.has(id);
    if (!stub || taken) {
      const why = taken
        ? `another stub already has the id '${id}'`
        : `its stub is not valid (${errors.join("; ")}); please report this`;
      problems.push({ level: "warn", place, message: `'${taken ? "id" : "mapping"}' is not supported: ${why}` });
      refused.push({ place, mapping });
      return;
    }
    kept.push({ place, mapping });
    options.takenIds?.add(id);
    // Near misses name the mapping, as the report does for an unnamed one.
    stub.place = place;
    stubs.push(stub);
  });
  // A scenario that lost mappings may no longer reach some states: say which, at each mapping left out.
  for (const loss of scenarioLosses(kept, refused)) problems.push({ level: "warn", ...loss });
  return { stubs, problems, files: folder.files };
}

/** Header values a stub would read as a template or a `{name}` capture, which the added headers must not be. */
const SPECIAL = /[{}]/;

/**
 * WireMock's `Matched-Stub-Id` (and `Matched-Stub-Name` for a named mapping) on the stub's
 * own answers. A proxy stub passes the upstream's answer on and a fault sends none, so they
 * get none; neither does a mapping that sets the header itself.
 */
export function addMatchedHeaders(raw: Record<string, unknown>, id: string, name: string | undefined): void {
  if (raw.proxy !== undefined || raw.fault !== undefined) return;
  const headers = { ...(raw.headers as Record<string, unknown> | undefined) };
  const has = (header: string) => Object.keys(headers).some((h) => h.toLowerCase() === header);
  if (!has("matched-stub-id") && !SPECIAL.test(id)) headers["Matched-Stub-Id"] = id;
  if (name !== undefined && !has("matched-stub-name") && !SPECIAL.test(name) && !/[\r\n]/.test(name)) {
    headers["Matched-Stub-Name"] = name;
  }
  if (Object.keys(headers).length) raw.headers = headers;
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
  batches: Stub[][];
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
