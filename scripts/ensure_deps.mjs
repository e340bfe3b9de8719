// Runs before `npm start` and `npm test`: on a fresh clone node_modules is missing, so
// install exactly what package-lock.json pins. Plain Node, because Deno itself comes
// from that install.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

const denoBin = new URL("../node_modules/.bin/deno", import.meta.url);
if (!existsSync(denoBin)) {
  console.error("[stubtool] node_modules is missing: running `npm ci` once…");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { stdio: "inherit" });
  process.exit(result.status ?? 1);
}
