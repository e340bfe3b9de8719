// The `stubtool` bin of the npm package, as a user runs it after `npm install stubtool`.
import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { installedPackage, run } from "./_package.mjs";

let pkg;

before(async () => {
  pkg = await installedPackage();
});

describe("npm package: the stubtool bin", () => {
  it("is declared when the CLI runs on Node", (t) => {
    if (!pkg.manifest.bin) return t.skip("the package ships without a bin (src/cli/main.ts is missing)");
    assert.deepEqual(Object.keys(pkg.manifest.bin), ["stubtool"]);
    const help = run("npx", ["--no-install", "stubtool", "--help"], pkg.dir);
    assert.match(help.stdout, /serve/);
    const version = run(join(pkg.dir, "node_modules", ".bin", "stubtool"), ["--version"], pkg.dir);
    assert.match(version.stdout, new RegExp(pkg.manifest.version.replaceAll(".", "\\.")));
  });
});
