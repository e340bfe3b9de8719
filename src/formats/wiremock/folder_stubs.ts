/**
 * A converted WireMock folder (`convertWireMockFiles`, ./folder.ts) as ordinary stubs, for serving
 * it as it is (`serve --wiremock DIR`, a config's `wiremock: DIR`, `validate --wiremock DIR`):
 * validated, each named for the report by its mapping, with what WireMock's server does
 * around the mapping reproduced where a stub can carry it: a `GET` mapping does not answer
 * `HEAD`, and every answer carries `Matched-Stub-Id` (and `Matched-Stub-Name`). Reads no
 * file itself: the caller passes how `__files` bytes are read (src/cli/loaders/wiremock_folder.ts).
 * @module
 */

import { type PlacedMapping, scenarioLosses } from "./scenario_reach.ts";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { CompiledStub } from "../../stubs/model.ts";
import { type Problem, validateStub } from "../../stubs/validate.ts";
import type { WireMockFolder } from "./folder.ts";

/** Options of {@link wireMockFolderStubs}. */
export interface WireMockLoadOptions {
  /** Render every mapping as a template, as WireMock's `--global-response-templating` does. */
  globalTemplating?: boolean;
  /** Ids already taken (the config's stubs, earlier folders): a mapping with one of them is left out. */
  takenIds?: Set<string>;
}

/** A WireMock folder loaded as stubs. */
export interface WireMockLoad {
  /** The stubs of the mappings that convert, in load order: one batch. */
  stubs: CompiledStub[];
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
 * The mappings of a converted folder as validated stubs. Each stub's `name` is the mapping's
 * `name`, else `FILE mappings[i]`; its `id` is the converter's (the mapping's `id`/`uuid`). A
 * mapping whose converted stub does not validate, or whose id is taken, is left out with a
 * warning. `__files` bodies are read with `readFile` (their real paths); generated ones (a
 * template body) are served from memory, under a path inside `base` (the folder's absolute path).
 *
 * @example
 * ```ts
 * import { convertWireMockFiles } from "./folder.ts";
 * import { wireMockFolderStubs } from "./folder_stubs.ts";
 * const text = JSON.stringify({ request: { url: "/hi" }, response: { body: "hello" } });
 * const folder = convertWireMockFiles([{ path: "hi.json", text }], () => "no body files here");
 * const { stubs } = wireMockFolderStubs(folder, "/srv/wiremock", () => new Uint8Array());
 * console.log(stubs[0].name); // "hi.json mappings[0]"
 * ```
 */
export function wireMockFolderStubs(
  folder: WireMockFolder,
  base: string,
  readFile: (path: string) => Uint8Array<ArrayBuffer>,
  options: WireMockLoadOptions = {},
): WireMockLoad {
  const problems: Problem[] = folder.warnings.map((w) => ({
    level: "warn",
    place: w.place,
    message: w.message.slice(w.place.length + 2),
  }));
  // Generated body files (a template body) are served from memory; `__files` ones from their real path.
  const generated = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const body of folder.bodyFiles) {
    const route = folder.routes[body.route];
    if (body.path !== undefined) route.body_file = body.path;
    else {
      const path = join(base, body.name);
      route.body_file = path;
      generated.set(path, new Uint8Array(body.bytes!) as Uint8Array<ArrayBuffer>);
    }
  }
  const read = (path: string): Uint8Array<ArrayBuffer> => generated.get(path) ?? readFile(path);
  const stubs: CompiledStub[] = [];
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
    const { stub, errors } = validateStub(raw, { readFile: read });
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
