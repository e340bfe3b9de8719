// Runs before `npm start` and inside `npm test` (scripts/test.mjs): on a fresh clone
// node_modules is missing, so install exactly what package-lock.json pins. Plain Node,
// because Deno itself comes from that install.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";

const denoBin = new URL("../node_modules/.bin/deno", import.meta.url);

/** Runs `npm ci` when node_modules has no Deno; returns the exit code (0 when nothing was needed). */
export function ensureDeps() {
  if (existsSync(denoBin)) return 0;
  console.error("[stubtool] node_modules is missing: running `npm ci` once…");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], {
    cwd: new URL("..", import.meta.url),
    stdio: "inherit",
  });
  return result.status ?? 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(ensureDeps());
