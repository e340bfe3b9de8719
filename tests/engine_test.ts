// The libraries stubs may need load on demand: a config without templates, JSONPath or XML
// conditions never loads them; one that needs the template engine or the XML pair loads that
// group (only that one) before its check, so the check passes as it always did.
// This file imports no entry point (mod.ts loads the engine eagerly): its module state is fresh.
import assert from "node:assert/strict";
import { engine, withTemplating } from "../src/templating/engine.ts";
import { loadConfigText } from "../src/stubs/config.ts";
import { evaluatedBeforeReady, get, startServe, tempDir } from "./_cli.ts";
import { join } from "node:path";
import { writeFile } from "node:fs/promises";

Deno.test("engine: a config without templates or XML leaves both unloaded; an XML config loads the XML pair only; a template or a JSONPath condition loads the engine", async () => {
  const plain = await loadConfigText(
    'routes:\n  - { method: GET, path: "/users/{id}", template: true, body: { id: "{id}" } }\n',
    "plain.yaml",
  );
  assert.deepEqual(plain.problems, []);
  assert.throws(() => engine(), /the template engine is not loaded yet/);
  assert.throws(() => engine("xml"), /the XML libraries are not loaded yet/);

  const xml = await loadConfigText(
    "routes:\n  - { method: POST, path: /x, request: { xml_equals: '<a><b>1</b></a>' } }\n" +
      "  - { method: POST, path: /y, request: { xpath: { 'count(//item)': '2' } } }\n",
    "xml.yaml",
  );
  assert.deepEqual(xml.problems, []);
  assert.equal(typeof engine("xml").DOMParser, "function");
  assert.throws(() => engine(), /the template engine is not loaded yet/);

  const templated = await loadConfigText(
    'routes:\n  - { method: GET, path: "/a/{id}", template: true, body: "{{params.id}}-{{math 1 \'+\' 2}}" }\n' +
      '  - { method: POST, path: /b, request: { json_path: { "$.kind": x } } }\n',
    "templated.yaml",
  );
  assert.deepEqual(templated.problems, []);
  assert.equal(typeof engine().handlebars.create, "function");
});

Deno.test("engine: withTemplating runs a check once when the engine is loaded", async () => {
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

Deno.test("engine: serve started without the XML libraries takes an xpath stub through the admin API", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "stubs.yaml");
  await writeFile(file, "routes:\n  - { method: GET, path: /plain, body: plain }\n");
  const served = await startServe(["--port", "0", "--quiet", "--config", file]);
  await using _ = served.process;
  const added = await get(`${served.url}/__stubtool__/stubs`, {
    method: "POST",
    body: JSON.stringify([
      { method: "POST", path: "/orders", request: { xpath: { "/order/@currency": "EUR" } }, body: "euro order" },
    ]),
  });
  assert.equal(added.status, 201, added.text);
  const order = (currency: string) =>
    get(`${served.url}/orders`, { method: "POST", body: `<order currency="${currency}"><id>1</id></order>` });
  assert.deepEqual(await order("EUR"), { status: 200, text: '"euro order"' });
  const miss = await order("USD");
  assert.equal(miss.status, 404);
  assert.match(miss.text, /body at \/order\/@currency is 'USD', stub wants 'EUR'/);
});

Deno.test("engine: serve of an xml_equals config loads the XML pair (not the template engine) and answers", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "soap.json");
  await writeFile(
    file,
    JSON.stringify({
      routes: [{ method: "POST", path: "/soap", request: { xml_equals: "<a><b>1</b></a>" }, body: "ok" }],
    }),
  );
  const served = await startServe(["--port", "0", "--quiet", "--config", file]);
  await using _ = served.process;
  assert.deepEqual(await get(`${served.url}/soap`, { method: "POST", body: "<a>\n  <b>1</b>\n</a>" }), {
    status: 200,
    text: '"ok"',
  });
  assert.equal((await get(`${served.url}/soap`, { method: "POST", body: "<a><b>2</b></a>" })).status, 404);
  const loaded = await packagesLoadedByServe(file);
  assert.deepEqual(LAZY.filter((name) => loaded.has(name)), ["@xmldom/xmldom", "xpath"]);
});

/** The npm packages only some stubs need. */
const LAZY = ["handlebars", "jsonpath-plus", "decimal.js", "@xmldom/xmldom", "xpath", "ws", "yaml"];

/** The npm packages a real `deno run cli.ts serve --config CONFIG` evaluated before it said it was ready. */
async function packagesLoadedByServe(config: string): Promise<Set<string>> {
  const packages = new Set<string>();
  for (const url of await evaluatedBeforeReady(["--config", config])) {
    const found = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (found) packages.add(found[1]);
  }
  return packages;
}

Deno.test("engine: serve of a plain config loads neither the template engine, the XML pair nor ws; a template loads Handlebars only, jsonPath and math their libraries, a JSONPath condition jsonpath-plus only", async () => {
  await using dir = await tempDir();
  const write = async (name: string, routes: unknown[]) => {
    await writeFile(join(dir.path, name), JSON.stringify({ routes }));
    return join(dir.path, name);
  };
  const configs = await Promise.all([
    write("plain.json", [{ method: "GET", path: "/users/{id}", body: { id: "{id}" } }]),
    write("templated.json", [{ method: "GET", path: "/t/{id}", template: true, body: "{{params.id}}" }]),
    write("helpers.json", [{
      method: "POST",
      path: "/t",
      template: true,
      body: "{{jsonPath request.body '$.a'}} {{math 1 '+' 2}}",
    }]),
    write("math.json", [{ method: "GET", path: "/m", template: true, body: "{{math 1 '+' 2}}" }]),
    write("condition.json", [{ method: "POST", path: "/c", request: { json_path: { "$.kind": "x" } } }]),
  ]);
  const loaded = await Promise.all(configs.map(packagesLoadedByServe));
  assert.deepEqual(loaded.map((packages) => LAZY.filter((name) => packages.has(name))), [
    [],
    ["handlebars"],
    ["handlebars", "jsonpath-plus", "decimal.js"],
    ["handlebars", "decimal.js"],
    ["jsonpath-plus"],
  ]);
  // What was loaded is all they need to answer.
  const served = await startServe(["--port", "0", "--quiet", "--config", configs[2]]);
  await using _ = served.process;
  assert.deepEqual(await get(`${served.url}/t`, { method: "POST", body: '{"a":"x"}' }), { status: 200, text: '"x 3"' });
});
