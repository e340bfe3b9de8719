// The template engine loads on demand: a config without templates or JSONPath conditions never
// loads it; one that needs it loads it before its check, so the check passes as it always did.
// This file imports no entry point (mod.ts loads the engine eagerly): its module state is fresh.
import assert from "node:assert/strict";
import { engine, withTemplating } from "../src/templating/engine.ts";
import { loadConfigText } from "../src/stubs/config.ts";
import { get, startServe, tempDir } from "./_cli.ts";
import { join } from "node:path";
import { writeFile } from "node:fs/promises";

Deno.test("engine: a config without templates leaves it unloaded; one with a template or a JSONPath condition loads it", async () => {
  const plain = await loadConfigText(
    'routes:\n  - { method: GET, path: "/users/{id}", template: true, body: { id: "{id}" } }\n',
    "plain.yaml",
  );
  assert.deepEqual(plain.problems, []);
  assert.throws(() => engine(), /the template engine is not loaded yet/);

  const templated = await loadConfigText(
    'routes:\n  - { method: GET, path: "/a/{id}", template: true, body: "{{params.id}}-{{math 1 \'+\' 2}}" }\n' +
      '  - { method: POST, path: /b, request: { json_path: { "$.kind": x } } }\n',
    "templated.yaml",
  );
  assert.deepEqual(templated.problems, []);
  assert.equal(typeof engine().handlebars.create, "function");
});

Deno.test("engine: withTemplating runs a check once when it does not use the engine, twice when it asked for it first", async () => {
  // The previous test loaded it: from here on every check runs once.
  let runs = 0;
  assert.equal(await withTemplating(() => ++runs), 1);
  assert.equal(runs, 1);
});

Deno.test("engine: serve started without templates takes a template stub and a JSONPath stub through the admin API", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "stubs.yaml");
  await writeFile(file, "routes:\n  - { method: GET, path: /plain, body: plain }\n");
  const served = await startServe(["--port", "0", "--quiet", "--config", file]);
  await using _ = served.process;
  const added = await get(`${served.url}/__stubtool__/stubs`, {
    method: "POST",
    body: JSON.stringify([
      { method: "GET", path: "/t/{id}", template: true, body: "id {{params.id}}, {{math 10 '/' 4}}" },
      { method: "POST", path: "/j", request: { json_path: { "$.kind": "x" } }, body: "kind x" },
    ]),
  });
  assert.equal(added.status, 201, added.text);
  assert.deepEqual(await get(`${served.url}/t/7`), { status: 200, text: '"id 7, 3"' });
  assert.deepEqual(await get(`${served.url}/j`, { method: "POST", body: '{"kind":"x"}' }), {
    status: 200,
    text: '"kind x"',
  });
  assert.equal((await get(`${served.url}/j`, { method: "POST", body: '{"kind":"y"}' })).status, 404);
  assert.deepEqual(await get(`${served.url}/plain`), { status: 200, text: '"plain"' });
});
