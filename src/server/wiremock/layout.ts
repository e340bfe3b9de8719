/**
 * Where a WireMock root keeps its mappings and its body files: one rule for the loaders that
 * read a folder, `mappings/save` that writes into it and the server that serves its `__files`.
 * @module
 */

import { existsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Where a WireMock root's mappings and body files are: `DIR/mappings` and `DIR/__files`; a
 * folder without `mappings/` is the mappings folder itself (its `__files` beside it); one
 * mapping file (`mappingsDir` undefined) takes the `__files` of its folder's root.
 *
 * @example
 * ```ts
 * import { wireMockLayout } from "./layout.ts";
 * console.log(wireMockLayout("/no/such/stubs.json").filesDir); // "/no/such/__files"
 * ```
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
