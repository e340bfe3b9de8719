/**
 * `POST /__admin/mappings/save`: mappings written into a WireMock folder as WireMock writes
 * them — one file each under `DIR/mappings/` (or `DIR` itself when it is the mappings folder,
 * as `serve --wiremock` reads it), named from the mapping's name (else its method and URL)
 * and id, with `"persistent": true`. Files are written only inside that folder.
 * @module
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { wireMockLayout } from "./layout.ts";
import { join } from "node:path";
import { messageOf } from "../../error_message.ts";
import { isInside } from "../../util/paths.ts";
import { isObject } from "../../util/json_shape.ts";

/** WireMock's safe file name part: lower case, runs of other characters as one `-`. */
function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 100);
}

/** The file name WireMock gives a saved mapping: `greet-me-ID.json`, `get-abc1-ID.json`. */
export function savedName(mapping: Record<string, unknown>): string {
  const id = String(mapping.id);
  if (typeof mapping.name === "string" && slug(mapping.name) !== "") return `${slug(mapping.name)}-${id}.json`;
  const request = isObject(mapping.request) ? mapping.request : {};
  const url = [request.url, request.urlPath, request.urlPattern, request.urlPathPattern, request.urlPathTemplate]
    .find((u) => typeof u === "string") as string | undefined;
  const parts = [String(request.method ?? "any").toLowerCase(), (url ?? "").replace(/[^A-Za-z0-9]/g, "")];
  return `${parts.filter((p) => p !== "").join("-")}-${id}.json`;
}

/** Writes `mappings` into `dir`'s mappings folder; returns why not, or undefined. */
export function saveMappings(dir: string, mappings: readonly Record<string, unknown>[]): string | undefined {
  // Where serve --wiremock reads them (a folder without mappings/ is the mappings folder itself).
  const folder = wireMockLayout(dir).mappingsDir;
  if (folder === undefined) return `${dir} is one mapping file, not a folder to save mappings into`;
  try {
    mkdirSync(folder, { recursive: true });
    for (const mapping of mappings) {
      const file = join(folder, savedName(mapping));
      if (!isInside(file, folder)) return `${file} would leave ${folder}`;
      writeFileSync(file, JSON.stringify({ ...mapping, persistent: true }, null, 2) + "\n");
    }
  } catch (error) {
    return messageOf(error);
  }
  return undefined;
}
