/**
 * The one rule that decides whether a path is inside a root folder, symbolic links followed
 * (PRODUCT.md P23.6): admin `body_file` under `--files-root`, WireMock `bodyFileName` under
 * `__files` (folder and admin), and OpenAPI `$ref`s under the spec's folder all read through it.
 * @module
 */

import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/**
 * Is `path` `folder` itself or inside it? Lexical only: both are resolved, nothing on disk is
 * looked at (`/srv/files/..x` is inside `/srv/files`, `/srv/files/../x` is not).
 *
 * @example
 * ```ts
 * import { isInside } from "./paths.ts";
 * console.log(isInside("/srv/files/a.json", "/srv/files"), isInside("/srv/other", "/srv/files")); // true false
 * ```
 */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(resolve(folder), resolve(path));
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Why {@link resolveInside} refused a path. */
export type Outside = "outside" | "missing" | "not a file";

/**
 * The real path of the file `path` (relative to `root`, or absolute) when it resolves inside
 * `root` with symbolic links followed in both; else why not. A path that leaves the root as
 * written is `"outside"` before anything on disk is looked at, so whether it exists is never
 * told; `"missing"` and `"not a file"` are only said of paths inside the root.
 *
 * @example
 * ```ts
 * import { resolveInside } from "./paths.ts";
 * console.log(resolveInside(".", "/etc/passwd")); // { problem: "outside" }
 * ```
 */
export function resolveInside(root: string, path: string): { path: string } | { problem: Outside } {
  const base = resolve(root);
  const target = resolve(base, path);
  let realRoot: string;
  try {
    realRoot = realpathSync(base);
  } catch {
    return { problem: isInside(target, base) ? "missing" : "outside" };
  }
  // The path as written first (against the root as given or its real path), so that nothing
  // outside the root is even looked at.
  if (!isInside(target, base) && !isInside(target, realRoot)) return { problem: "outside" };
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    return { problem: "missing" };
  }
  if (!isInside(real, realRoot)) return { problem: "outside" };
  try {
    if (!statSync(real).isFile()) return { problem: "not a file" };
  } catch {
    return { problem: "missing" };
  }
  return { path: real };
}
