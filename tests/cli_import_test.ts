// `stubtool import wiremock` as a subprocess: a folder becomes a config that validates, body
// files are copied beside it, refused mappings print [WARN] lines, --strict turns them into exit 1.
// The mappings here use no scenarios, templates or webhooks: those write fields (scenario,
// template, callbacks) that `validate` accepts only once the part-three stub fields land.
import assert from "node:assert/strict";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { lines, runCli, tempDir } from "./_cli.ts";
import { VERSION } from "../src/version.ts";

async function wiremockFolder(root: string): Promise<void> {
  await mkdir(join(root, "mappings", "users"), { recursive: true });
  await mkdir(join(root, "__files", "users"), { recursive: true });
  await writeFile(join(root, "__files", "users", "1.json"), '{"id":1}\n');
  await writeFile(join(root, "secret.txt"), "outside\n");
  await symlink(join(root, "secret.txt"), join(root, "__files", "link.txt"));
  await writeFile(
    join(root, "mappings", "users", "get.json"),
    JSON.stringify({
      id: "2b1c7f3e-5c1a-4e57-9a51-3f0b6b1f0a01",
      request: { method: "GET", urlPath: "/api/users/1", headers: { Accept: { contains: "json" } } },
      response: { status: 200, headers: { "Content-Type": "application/json" }, bodyFileName: "users/1.json" },
    }),
  );
  await writeFile(
    join(root, "mappings", "more.json"),
    JSON.stringify({
      mappings: [
        { request: { method: "GET", url: "/health" }, response: { status: 200, body: "UP" } },
        { request: { method: "POST", urlPath: "/orders" }, response: { status: 201, jsonBody: { id: 99 } } },
        { request: { method: "GET", urlPath: "/escape" }, response: { bodyFileName: "../secret.txt" } },
        { request: { method: "GET", urlPath: "/link" }, response: { bodyFileName: "link.txt" } },
      ],
    }),
  );
}

Deno.test("import wiremock: a folder becomes a config that validates, body files copied, refusals warned", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "wm");
  await wiremockFolder(root);
  const out = join(dir.path, "stubs.yaml");
  const { code, stdout, stderr } = await runCli(["import", "wiremock", root, "-o", out]);
  assert.equal(code, 0, stderr);
  const more = join(root, "mappings", "more.json");
  assert.deepEqual(lines(stderr), [
    `[WARN] ${more} mappings[0]: 'url (exact query)' is not supported: WireMock's url must equal the path and the whole query string; stubtool cannot say 'no other query parameters' (urlPath converts)`,
    `[WARN] ${more} mappings[2]: 'bodyFileName' is not supported: "../secret.txt" leaves __files ('..')`,
    `[WARN] ${more} mappings[3]: 'bodyFileName' is not supported: "link.txt" is a symbolic link that leaves __files`,
  ]);
  assert.equal(
    stdout,
    `imported 2 stub(s) from 2 mapping file(s), 1 body file(s) → ${out} (3 mapping(s) or file(s) left out, see the warnings)\n`,
  );
  const yaml = await readFile(out, "utf8");
  assert.equal(
    yaml.split("\n").slice(1).join("\n"),
    [
      "routes:",
      "  - method: POST",
      "    path: /orders",
      "    status: 201",
      `    body_base64: ${btoa('{"id":99}')}`,
      "  - id: 2b1c7f3e-5c1a-4e57-9a51-3f0b6b1f0a01",
      "    method: GET",
      "    path: /api/users/1",
      "    request:",
      "      headers:",
      "        accept:",
      '          regex: "[\\\\s\\\\S]*json[\\\\s\\\\S]*"',
      "    status: 200",
      "    headers:",
      "      Content-Type: application/json",
      "    body_file: stubs.files/users/1.json",
      "    priority: 1",
      "",
    ].join("\n"),
  );
  assert.equal(await readFile(join(dir.path, "stubs.files", "users", "1.json"), "utf8"), '{"id":1}\n');
  const check = await runCli(["validate", out]);
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.stdout, `[OK] ${out} is valid (2 route(s) defined)\n`);
});

Deno.test("import wiremock: --strict exits 1 when a mapping was left out, 0 when none was", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "one.json");
  await writeFile(file, JSON.stringify({ request: { method: "GET", url: "/x" }, response: {} }));
  const out = join(dir.path, "out.yaml");
  const refused = await runCli(["import", "wiremock", file, "-o", out, "--strict"]);
  assert.equal(refused.code, 1);
  await writeFile(file, JSON.stringify({ request: { method: "GET", urlPath: "/x" }, response: {} }));
  const clean = await runCli(["import", "wiremock", file, "-o", out, "--strict"]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.equal(clean.stderr, "");
});

Deno.test("import: an unknown format is a usage error, a missing source a one-line error", async () => {
  const format = await runCli(["import", "mockoon", "x"]);
  assert.equal(format.code, 2);
  assert.equal(
    format.stderr,
    "[ERROR] import: unknown format 'mockoon' (formats: wiremock, openapi); run stubtool import --help\n",
  );
  await using dir = await tempDir();
  const missing = join(dir.path, "nope");
  const gone = await runCli(["import", "wiremock", missing, "-o", join(dir.path, "o.yaml")]);
  assert.equal(gone.code, 1);
  assert.equal(gone.stderr, `[ERROR] ${missing}: does not exist (give a WireMock folder or a mapping file)\n`);
});

Deno.test("import openapi: one stub per operation, written as a config that validates against its spec", async () => {
  await using dir = await tempDir();
  const spec = "tests/fixtures/openapi/petstore.yaml";
  const out = join(dir.path, "pets.yaml");
  const { code, stdout, stderr } = await runCli(["import", "openapi", spec, "-o", out]);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  assert.equal(stdout, `imported 3 stub(s) from 3 operation(s) of ${spec} → ${out}\n`);
  assert.equal(
    await readFile(out, "utf8"),
    [
      `# Imported by stubtool ${VERSION} from OpenAPI 3.0.0 ${spec}`,
      "routes:",
      "  - method: GET",
      "    path: /pets",
      "    id: listPets",
      "    status: 200",
      "    headers:",
      "      content-type: application/json",
      "    body:",
      "      - id: 0",
      "        name: string",
      "        tag: string",
      "  - method: POST",
      "    path: /pets",
      "    id: createPets",
      "    status: 201",
      "  - method: GET",
      "    path: /pets/{petId}",
      "    id: showPetById",
      "    status: 200",
      "    headers:",
      "      content-type: application/json",
      "    body:",
      "      id: 0",
      "      name: string",
      "      tag: string",
      "",
    ].join("\n"),
  );
  const checked = await runCli(["validate", out, "--openapi", spec]);
  assert.equal(checked.code, 0, checked.stderr);
  assert.deepEqual(lines(checked.stdout), [
    `[OK] ${out} is valid (3 route(s) defined)`,
    `[OK] every stub agrees with ${spec} (OpenAPI 3.0.0, 3 operation(s))`,
  ]);
});

Deno.test("import openapi: operations left out are [WARN] lines; --strict exits 1; a spec that is not one is an [ERROR]", async () => {
  await using dir = await tempDir();
  const spec = join(dir.path, "api.yaml");
  await writeFile(
    spec,
    "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n" +
      "  /a: {get: {responses: {'200': {description: ok}}}}\n" +
      "  /b: {post: {responses: {'405': {description: no}}}}\n",
  );
  const out = join(dir.path, "out.yaml");
  const strict = await runCli(["import", "openapi", spec, "-o", out, "--strict"]);
  assert.equal(strict.code, 1);
  assert.equal(
    strict.stderr,
    `[WARN] ${spec} paths./b.post: 'responses' is not supported: the operation declares no 2xx or default response to answer with (declared: 405)\n`,
  );
  assert.equal(
    strict.stdout,
    `imported 1 stub(s) from 2 operation(s) of ${spec} → ${out} (1 operation(s) left out, see the warnings)\n`,
  );
  assert.equal((await runCli(["import", "openapi", spec, "-o", out])).code, 0);

  await writeFile(spec, "routes: []\n");
  const bad = await runCli(["import", "openapi", spec, "-o", out]);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, `[ERROR] ${spec}: not an OpenAPI document: it has no 'openapi' version field\n`);
  const usage = await runCli(["import", "wiremock", dir.path, "--strict-requests"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^\[ERROR\] --strict-requests is for import openapi/);
});
