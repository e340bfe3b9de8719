// Adds lock entries for Deno's per-platform binaries that the npm mirror on our machines
// does not serve (it answers 404), so `npm install` leaves them out of package-lock.json
// and `npm ci` then rejects the lock as out of sync (npm/cli#9846). The entries carry
// only version, platform and `optional`, so npm skips them on other platforms and would
// resolve them from the registry on the platform that needs them.
// Run after `npm install` changes the lock: `node scripts/complete_lock.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const lockUrl = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockUrl, "utf8"));
const deno = lock.packages["node_modules/deno"];
const platforms = {
  "@deno/win32-x64": { os: ["win32"], cpu: ["x64"] },
  "@deno/win32-arm64": { os: ["win32"], cpu: ["arm64"] },
  "@deno/darwin-x64": { os: ["darwin"], cpu: ["x64"] },
  "@deno/darwin-arm64": { os: ["darwin"], cpu: ["arm64"] },
  "@deno/linux-x64-glibc": { os: ["linux"], cpu: ["x64"], libc: ["glibc"] },
  "@deno/linux-arm64-glibc": { os: ["linux"], cpu: ["arm64"], libc: ["glibc"] },
};
let added = 0;
for (const [name, platform] of Object.entries(platforms)) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  lock.packages[key] = {
    version: deno.optionalDependencies[name],
    dev: true,
    license: "MIT",
    optional: true,
    ...platform,
  };
  added++;
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(lockUrl, JSON.stringify(lock, null, 2) + "\n");
console.log(`package-lock.json: added ${added} platform entr${added === 1 ? "y" : "ies"} for deno`);
