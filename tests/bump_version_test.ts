import assert from "node:assert/strict";
import { bumpVersion, nextVersion } from "../scripts/bump_version.ts";

Deno.test("nextVersion: an explicit version, or major / minor / patch of the current one", () => {
  assert.equal(nextVersion("0.1.0", "1.2.3"), "1.2.3");
  assert.equal(nextVersion("0.1.0", "2.0.0-rc.1"), "2.0.0-rc.1");
  assert.equal(nextVersion("1.2.3", "major"), "2.0.0");
  assert.equal(nextVersion("1.2.3", "minor"), "1.3.0");
  assert.equal(nextVersion("1.2.3", "patch"), "1.2.4");
  assert.equal(nextVersion("1.2.3-rc.1", "patch"), "1.2.3", "patch of a pre-release releases it");
  assert.throws(() => nextVersion("1.2.3", "v1.2.4"), /not a version/);
  assert.throws(() => nextVersion("1.2.3", "1.2"), /not a version/);
});

Deno.test("bumpVersion rewrites deno.json and src/version.ts together, leaving the rest as it was", async () => {
  const root = await Deno.makeTempDir();
  try {
    const denoJson = (await Deno.readTextFile(new URL("../deno.json", import.meta.url)))
      .replace(/"version": "[^"]*"/, '"version": "0.9.1"');
    const versionTs = (await Deno.readTextFile(new URL("../src/version.ts", import.meta.url)))
      .replace(/VERSION = "[^"]*"/, 'VERSION = "0.9.1"');
    await Deno.mkdir(`${root}/src`);
    await Deno.writeTextFile(`${root}/deno.json`, denoJson);
    await Deno.writeTextFile(`${root}/src/version.ts`, versionTs);

    assert.deepEqual(bumpVersion(root, "minor"), ["0.9.1", "0.10.0"]);
    assert.equal(await Deno.readTextFile(`${root}/deno.json`), denoJson.replace('"0.9.1"', '"0.10.0"'));
    assert.equal(JSON.parse(await Deno.readTextFile(`${root}/deno.json`)).version, "0.10.0");
    assert.equal(await Deno.readTextFile(`${root}/src/version.ts`), versionTs.replace('"0.9.1"', '"0.10.0"'));
    assert.throws(() => bumpVersion(root, "next"), /not a version/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
