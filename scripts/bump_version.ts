/**
 * Sets the stubtool version everywhere it is written by hand: `deno.json` (the source of
 * truth, also the JSR version) and `src/version.ts` (what `stubtool --version` prints). The
 * npm package takes it from deno.json at build time.
 *
 * Usage: `npm run bump -- 1.2.3` (or `patch`, `minor`, `major`), then commit and tag `v1.2.3`.
 *
 * @module
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/;
const DENO_JSON_VERSION = /("version"\s*:\s*")([^"]*)(")/;
const VERSION_TS = /(export const VERSION = ")([^"]*)(";)/;

/** The version after `current`: `to` itself when it is a version, else the bumped part. */
export function nextVersion(current: string, to: string): string {
  if (SEMVER.test(to)) return to;
  const parts = current.match(SEMVER);
  if (!parts) throw new Error(`current version '${current}' is not X.Y.Z`);
  const [major, minor, patch] = parts.slice(1, 4).map(Number);
  switch (to) {
    case "major":
      return `${major + 1}.0.0`;
    case "minor":
      return `${major}.${minor + 1}.0`;
    case "patch":
      return parts[4] ? `${major}.${minor}.${patch}` : `${major}.${minor}.${patch + 1}`;
    default:
      throw new Error(`'${to}' is not a version (X.Y.Z or X.Y.Z-pre) nor one of major, minor, patch`);
  }
}

/** Rewrites the version in `root`/deno.json and `root`/src/version.ts; returns [old, new]. */
export function bumpVersion(root: string, to: string): [string, string] {
  const denoJsonPath = join(root, "deno.json");
  const versionTsPath = join(root, "src", "version.ts");
  const denoJson = readFileSync(denoJsonPath, "utf8");
  const versionTs = readFileSync(versionTsPath, "utf8");
  const current = denoJson.match(DENO_JSON_VERSION)?.[2];
  if (current === undefined) throw new Error(`${denoJsonPath} has no "version"`);
  if (!VERSION_TS.test(versionTs)) throw new Error(`${versionTsPath} has no 'export const VERSION = "…";'`);
  const next = nextVersion(current, to);
  writeFileSync(denoJsonPath, denoJson.replace(DENO_JSON_VERSION, `$1${next}$3`));
  writeFileSync(versionTsPath, versionTs.replace(VERSION_TS, `$1${next}$3`));
  return [current, next];
}

if (import.meta.main) {
  const [to] = process.argv.slice(2);
  if (!to) {
    console.error("usage: deno run -A scripts/bump_version.ts <X.Y.Z | major | minor | patch>");
    process.exit(2);
  }
  try {
    const [from, next] = bumpVersion(fileURLToPath(new URL("..", import.meta.url)), to);
    console.log(`stubtool ${from} → ${next} (deno.json, src/version.ts). Next: commit, then tag v${next}.`);
  } catch (error) {
    console.error(`[bump] error: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
