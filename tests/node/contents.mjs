// What the npm tarball holds and declares: only the built ESM + .d.ts, README and LICENSE,
// and a manifest a Node ≥ 20 user can rely on.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { installedPackage, ROOT } from "./_package.mjs";

let pkg;

before(async () => {
  pkg = await installedPackage();
});

describe("npm package: contents and manifest", () => {
  it("packs only esm/*.js + .d.ts, README.md, LICENSE and package.json", () => {
    const unexpected = pkg.packedFiles.filter((file) =>
      !["package.json", "README.md", "LICENSE"].includes(file) && !/^esm\/.+\.(js|d\.ts)$/.test(file)
    );
    assert.deepEqual(unexpected, []);
    for (
      const file of [
        "esm/mod.js",
        "esm/mod.d.ts",
        "esm/cli.js",
        "esm/src/server/adapters/node.js",
        "README.md",
        "LICENSE",
      ]
    ) {
      assert.ok(pkg.packedFiles.includes(file), `${file} is missing`);
    }
    for (const file of pkg.packedFiles.filter((f) => f.endsWith(".js") && f !== "esm/_dispose.js")) {
      assert.ok(pkg.packedFiles.includes(file.replace(/\.js$/, ".d.ts")), `${file} has no .d.ts`);
    }
  });

  it("declares name, version (deno.json's), ESM exports with types, engines, bin and the dependencies it imports", () => {
    const denoJson = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
    const devManifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const { manifest } = pkg;
    assert.equal(manifest.name, "stubtool");
    assert.equal(manifest.version, denoJson.version);
    assert.equal(manifest.type, "module");
    assert.equal(manifest.license, "MIT");
    assert.deepEqual(manifest.exports["."], { types: "./esm/mod.d.ts", default: "./esm/mod.js" });
    assert.deepEqual(manifest.exports["./handler"], { types: "./esm/handler.d.ts", default: "./esm/handler.js" });
    assert.equal(manifest.types, "./esm/mod.d.ts");
    assert.deepEqual(manifest.engines, { node: ">=20" });
    assert.deepEqual(manifest.bin, { stubtool: "esm/cli.js" });
    // yaml for configs; the OpenAPI parser and the schema validator for --openapi (loaded only then);
    // node-forge for a self-signed TLS certificate (loaded only then); handlebars and jsonpath-plus for
    // response templates; openapi-sampler and randexp for import openapi and serve --mock (loaded only then);
    // re2js runs every user regex in linear time; decimal.js computes the math helper's exact decimals.
    // @redis/client joins replicas (loaded only with --state); ws upgrades WebSocket stubs on node:http;
    // @xmldom/xmldom and xpath read XML bodies for xml_equals and xpath conditions.
    const runtime = [
      "@readme/openapi-parser",
      "@redis/client",
      "@xmldom/xmldom",
      "ajv",
      "ajv-formats",
      "decimal.js",
      "handlebars",
      "jsonpath-plus",
      "node-forge",
      "openapi-sampler",
      "randexp",
      "re2js",
      "ws",
      "xpath",
      "yaml",
    ];
    assert.deepEqual(manifest.dependencies, Object.fromEntries(runtime.map((n) => [n, devManifest.dependencies[n]])));
    assert.equal(manifest.devDependencies, undefined);
    assert.equal(manifest.private, undefined);
  });

  it('the entry modules load the dispose polyfill first; the bin has a shebang; docs show `from "stubtool"`', () => {
    const read = (file) => readFileSync(join(pkg.dir, "node_modules", "stubtool", file), "utf8");
    assert.match(read("esm/mod.js"), /^import "\.\/_dispose\.js";\n/);
    assert.match(read("esm/cli.js"), /^#!\/usr\/bin\/env node\nimport "\.\/_dispose\.js";\n/);
    const dts = read("esm/mod.d.ts");
    assert.match(dts, /\* import \{ get, post, stubServer \} from "stubtool";/);
    assert.doesNotMatch(dts, /from "\.{1,2}\/[^"]*\.ts"/);
  });
});
