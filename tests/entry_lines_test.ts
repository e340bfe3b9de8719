import assert from "node:assert/strict";
import * as yaml from "yaml";
import fc from "fast-check";
import { jsonRouteOffsets, lineFinder, yamlRouteOffsets } from "../src/stubs/entry_lines.ts";
import { loadConfigText } from "../src/stubs/config.ts";
import { inlineStubs } from "../src/stubs/inline.ts";

/** Each stub of a config text as `[place, line]`, or its problems when it does not load. */
async function lines(text: string, file: string): Promise<[string | undefined, number | undefined][]> {
  const { config, problems } = await loadConfigText(text, file);
  assert.ok(config, JSON.stringify(problems));
  return config.routes.map((stub) => [stub.place, stub.line]);
}

Deno.test("lineFinder: 1-based line and column; a \\r before \\n belongs to its line", () => {
  const at = lineFinder("ab\r\ncd\n\nef");
  assert.deepEqual([0, 2, 4, 5, 7, 8, 9].map((offset) => at(offset)), [
    { line: 1, col: 1 },
    { line: 1, col: 3 },
    { line: 2, col: 1 },
    { line: 2, col: 2 },
    { line: 3, col: 1 },
    { line: 4, col: 1 },
    { line: 4, col: 2 },
  ]);
});

Deno.test("config stubs' lines: a YAML block list with comments, anchors, merge keys and a dash alone on its line", async () => {
  const text = `# Stubs for the shop.
port: 8080

routes:
  # the first one
  - &user
    method: GET
    path: /users/{id}
  - <<: *user
    path: /admins/{id}

  -
    method: DELETE
    path: /users/{id}
  - *user   # the same stub again (a duplicate warning, still a stub)
  - method: POST # trailing comment
    path: /users
`;
  assert.deepEqual(await lines(text, "shop.yaml"), [
    ["routes[0] of shop.yaml", 6],
    ["routes[1] of shop.yaml", 9],
    ["routes[2] of shop.yaml", 12],
    ["routes[3] of shop.yaml", 15],
    ["routes[4] of shop.yaml", 16],
  ]);
});

Deno.test("config stubs' lines: YAML flow {…} entries, in a block list and in a flow list over several lines", async () => {
  assert.deepEqual(
    await lines(
      "routes:\n  - {method: GET, path: /a}\n  - {method: GET,\n     path: /b}\n  - {method: PUT, path: /c}\n",
      "block.yml",
    ),
    [["routes[0] of block.yml", 2], ["routes[1] of block.yml", 3], ["routes[2] of block.yml", 5]],
  );
  assert.deepEqual(
    await lines(
      "routes: [{method: GET, path: /a},\n  # b next\n  {method: GET, path: /b}, {method: PUT, path: /c}]",
      "flow.yaml",
    ),
    [["routes[0] of flow.yaml", 1], ["routes[1] of flow.yaml", 3], ["routes[2] of flow.yaml", 3]],
  );
});

Deno.test("config stubs' lines: JSON, pretty, with CRLF line ends, and on one line", async () => {
  const pretty = JSON.stringify(
    {
      port: 8080,
      routes: [{ method: "GET", path: "/a", body: { list: [1, "]", { x: "{" }] } }, { method: "GET", path: "/b" }],
    },
    null,
    2,
  );
  // {, "port", "routes": [, then the first entry's { on line 4; the second's { on line 17, after the first's 13 lines.
  assert.deepEqual(await lines(pretty, "p.json"), [["routes[0] of p.json", 4], ["routes[1] of p.json", 17]]);
  assert.deepEqual(await lines(pretty.replaceAll("\n", "\r\n"), "crlf.json"), [
    ["routes[0] of crlf.json", 4],
    ["routes[1] of crlf.json", 17],
  ]);
  assert.deepEqual(
    await lines('{"routes": [{"method": "GET", "path": "/a"}, {"method": "GET", "path": "/b"}]}', "one.json"),
    [["routes[0] of one.json", 1], ["routes[1] of one.json", 1]],
  );
  // Content-sniffed JSON (no extension) is placed the same way.
  assert.deepEqual(await lines('{\n"routes": [\n\n{"method": "GET", "path": "/a"}]}', "stubs.conf"), [
    ["routes[0] of stubs.conf", 4],
  ]);
});

Deno.test("config stubs' lines: a --stub keeps its --stub[N] place and has no line", async () => {
  const { stubs } = await inlineStubs(["GET /x -> 200"]);
  assert.deepEqual(stubs.map((s) => [s.place, s.line]), [["--stub[0]", undefined]]);
});

Deno.test("jsonRouteOffsets: only the top-level routes array, past strings holding quotes, brackets and commas", () => {
  const text =
    '{"cors": {"routes": [1, 2]}, "x\\"routes": ["]", "[,"], "rout\\u0065s": [ {"a": "\\\\"}, 3 ,"s",[[]] ]}';
  const offsets = jsonRouteOffsets(text);
  assert.deepEqual(offsets.map((o) => text.slice(o, o + 3)), ['{"a', "3 ,", '"s"', "[[]"]);
  assert.deepEqual(jsonRouteOffsets('{"routes": []}'), []);
  assert.deepEqual(jsonRouteOffsets('{"routes": {"a": [1]}}'), []);
  assert.deepEqual(jsonRouteOffsets("[1, 2]"), []);
});

Deno.test("jsonRouteOffsets: the same offsets as npm:yaml's JSON parser gives the items, for any document", () => {
  const entry = fc.jsonValue({ maxDepth: 3 });
  const config = fc.record({ routes: fc.array(entry, { maxLength: 6 }), other: fc.jsonValue({ maxDepth: 2 }) });
  fc.assert(
    fc.property(config, fc.constantFrom(undefined, 1, 2, "\t"), fc.boolean(), (value, indent, routesFirst) => {
      const ordered = routesFirst
        ? { routes: value.routes, other: value.other }
        : { other: value.other, routes: value.routes };
      const text = JSON.stringify(ordered, null, indent);
      const doc = yaml.parseDocument(text, { schema: "json" });
      const list = (doc.contents as yaml.YAMLMap).get("routes", true) as unknown as yaml.YAMLSeq;
      const expected = list.items.map((item) => (item as { range: [number, number, number] }).range[0]);
      assert.deepEqual(jsonRouteOffsets(text), expected);
    }),
    { numRuns: 300 },
  );
});

Deno.test("yamlRouteOffsets: routes given as an alias is followed to its list; no routes list gives []", () => {
  const text = "lists:\n  main: &main\n    - {path: /a}\n    - path: /b\nroutes: *main\n";
  const doc = yaml.parseDocument(text, { keepSourceTokens: true });
  const at = lineFinder(text);
  assert.deepEqual(yamlRouteOffsets(doc, yaml).map((o) => at(o!).line), [3, 4]);
  assert.deepEqual(yamlRouteOffsets(yaml.parseDocument("routes: 3\n", { keepSourceTokens: true }), yaml), []);
  assert.deepEqual(yamlRouteOffsets(yaml.parseDocument("- a\n", { keepSourceTokens: true }), yaml), []);
});
