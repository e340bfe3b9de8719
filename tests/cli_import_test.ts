// `stubtool import wiremock` and `stubtool import har` as a subprocess. wiremock: a folder becomes a config that validates, body
// files are copied beside it, refused mappings print [WARN] lines, --strict turns them into exit 1.
// The mappings here use no scenarios, templates or webhooks: those write fields (scenario,
// template, callbacks) that `validate` accepts only once the part-three stub fields land.
// har: a Chrome-shaped recording (tests/fixtures/har/shop.har) is imported, validated and
// served, and each request gets its recorded answer.
import assert from "node:assert/strict";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { fixture, lines, runCli, startServe, tempDir } from "./_cli.ts";
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
        {
          request: { method: "GET", urlPath: "/health", pathParameters: { id: { equalTo: "1" } } },
          response: { status: 200, body: "UP" },
        },
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
    `[WARN] ${more} mappings[0]: 'pathParameters' is not supported: WireMock reads pathParameters with a urlPathTemplate only`,
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
      "    headers:",
      "      content-type: null",
      `    body: '{"id":99}'`,
      "  - id: 2b1c7f3e-5c1a-4e57-9a51-3f0b6b1f0a01",
      "    method: GET",
      "    head: false",
      "    path: /api/users/1",
      "    request:",
      "      headers:",
      "        accept:",
      "          contains: json",
      "    status: 200",
      "    headers:",
      "      Content-Type: application/json",
      "    body_file: stubs.files/users/1.json",
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
  await writeFile(
    file,
    JSON.stringify({ request: { method: "GET", urlPath: "/x", pathParameters: {} }, response: {} }),
  );
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
    "[ERROR] import: unknown format 'mockoon' (formats: wiremock, openapi, har); run stubtool import --help\n",
  );
  await using dir = await tempDir();
  const missing = join(dir.path, "nope");
  const gone = await runCli(["import", "wiremock", missing, "-o", join(dir.path, "o.yaml")]);
  assert.equal(gone.code, 1);
  assert.equal(gone.stderr, `[ERROR] ${missing}: does not exist (give a WireMock folder or a mapping file)\n`);
});

const SHOP_HAR = fixture("har/shop.har");
const SHOP = "https://shop.example.com";

Deno.test("import har: a browser's recording becomes a config that validates and answers each request as recorded", async () => {
  await using dir = await tempDir();
  const out = join(dir.path, "shop.yaml");
  const imported = await runCli([
    "import",
    "har",
    SHOP_HAR,
    "-o",
    out,
    "--origin",
    SHOP,
    "--keep-request-header",
    "authorization",
    "--keep-delay",
  ]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.deepEqual(lines(imported.stderr), [
    `[WARN] ${SHOP_HAR} entries[9]: the HAR leaves out the response body (content.size 1520, no content.text): export the HAR with content (Chrome: Save all as HAR with content)`,
    `[WARN] ${SHOP_HAR} entries[10]: is a WebSocket (wss://shop.example.com/live): stubtool stubs HTTP answers only`,
    `[WARN] ${SHOP_HAR} entries[11]: has no response (status 0: the request failed, was blocked or cancelled): nothing to replay`,
  ]);
  assert.equal(
    imported.stdout,
    `imported 9 request(s) as 8 stub(s) (1 sequence(s)) → ${out} (3 entries left out, see the warnings; 1 sent to other origins skipped)\n`,
  );
  const doc = parse(await readFile(out, "utf8")) as { routes: Record<string, unknown>[] };
  assert.deepEqual(doc.routes[0], {
    method: "GET",
    path: "/api/products",
    query_params: { page: "1" },
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8" }, // date, x-request-id, content-encoding dropped
    body: [{ sku: "b-1", name: "Book" }, { sku: "p-2", name: "Pen" }],
    delay: 85, // timings.wait 84.6
  });
  assert.deepEqual(doc.routes.slice(1, 4).map((r) => r.request), [
    { headers: { authorization: "Bearer tok-ada" }, json: { sku: "b-1", qty: 1 } },
    { headers: { authorization: "Bearer tok-ada" }, json: { sku: "p-2", qty: 3 } },
    { headers: { authorization: { absent: true } }, json: { sku: "b-1", qty: 1 } },
  ]);
  assert.deepEqual((doc.routes[4].sequence as { delay: number }[]).map((s) => s.delay), [40, 44]);

  const check = await runCli(["validate", out]);
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.stdout, `[OK] ${out} is valid (8 route(s) defined)\n`);

  const served = await startServe(["--port", "0", "--quiet", "--config", out]);
  await using _ = served.process;
  const answer = async (
    method: string,
    path: string,
    init: { body?: string; headers?: Record<string, string> } = {},
  ) => {
    const response = await fetch(served.url + path, { method, ...init });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      text: new TextDecoder().decode(bytes),
      bytes,
    };
  };
  const json = { "content-type": "application/json" };
  const auth = { ...json, authorization: "Bearer tok-ada" };
  const form = { "content-type": "application/x-www-form-urlencoded" };
  const products = await answer("GET", "/api/products?page=1");
  assert.deepEqual(
    [products.status, products.type, products.text],
    [200, "application/json; charset=utf-8", '[{"sku":"b-1","name":"Book"},{"sku":"p-2","name":"Pen"}]'],
  );
  const orders = [
    await answer("POST", "/api/orders", { headers: auth, body: '{"sku":"b-1","qty":1}' }),
    await answer("POST", "/api/orders", { headers: auth, body: '{"sku":"p-2","qty":3}' }),
    await answer("POST", "/api/orders", { headers: json, body: '{"sku":"b-1","qty":1}' }),
  ];
  assert.deepEqual(orders.map((o) => `${o.status} ${o.text}`), [
    '201 {"id":"o-1"}',
    '201 {"id":"o-2"}',
    '401 {"error":"login required"}',
  ]);
  const order = [
    await answer("GET", "/api/orders/o-1", { headers: auth }),
    await answer("GET", "/api/orders/o-1", { headers: auth }),
  ];
  assert.deepEqual(order.map((o) => o.text), ['{"id":"o-1","state":"packing"}', '{"id":"o-1","state":"shipped"}']);
  const logins = [
    await answer("POST", "/login", { headers: form, body: "username=ada&password=s3cret" }),
    await answer("POST", "/login", { headers: form, body: "username=ada&password=wrong" }),
  ];
  assert.deepEqual(logins.map((l) => `${l.status} ${l.text}`), [
    '200 {"token":"tok-ada"}',
    '401 {"error":"wrong password"}',
  ]);
  const logo = await answer("GET", "/img/logo.png");
  assert.equal(logo.type, "image/png");
  assert.deepEqual([...logo.bytes], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
});

Deno.test("import har: without --keep-request-header the authorised and unauthorised order share a sequence; --ignore-body merges bodies", async () => {
  await using dir = await tempDir();
  const out = join(dir.path, "shop.yaml");
  const plain = await runCli(["import", "har", SHOP_HAR, "-o", out, "--origin", SHOP]);
  assert.equal(plain.code, 0, plain.stderr);
  const routes = (parse(await readFile(out, "utf8")) as { routes: Record<string, unknown>[] }).routes;
  const orders = routes.filter((r) => r.path === "/api/orders");
  assert.deepEqual(
    orders.map((r) => [r.request, r.status ?? (r.sequence as { status: number }[]).map((s) => s.status)]),
    [
      [{ json: { sku: "b-1", qty: 1 } }, [201, 401]],
      [{ json: { sku: "p-2", qty: 3 } }, 201],
    ],
  );
  assert.equal(routes[0].delay, undefined, "no delay without --keep-delay");
  await runCli(["import", "har", SHOP_HAR, "-o", out, "--origin", SHOP, "--ignore-body"]);
  const merged = (parse(await readFile(out, "utf8")) as { routes: Record<string, unknown>[] }).routes;
  assert.deepEqual(
    merged.filter((r) => r.path === "/api/orders" || r.path === "/login").map((r) => (r.sequence as unknown[]).length),
    [3, 2],
  );
});

Deno.test("import har: entries sent to several origins are warned about; --strict exits 1 when an entry was left out", async () => {
  await using dir = await tempDir();
  const out = join(dir.path, "all.yaml");
  const all = await runCli(["import", "har", SHOP_HAR, "-o", out, "--strict"]);
  assert.equal(all.code, 1);
  assert.equal(
    lines(all.stderr).at(-1),
    `[WARN] ${SHOP_HAR}: entries sent to 2 origins (https://shop.example.com, https://cdn.example.net) are written as stubs of one server; --origin URL keeps one`,
  );
  assert.match(
    all.stdout,
    /^imported 10 request\(s\) as 8 stub\(s\) \(2 sequence\(s\)\) → .*all\.yaml \(3 entries left out, see the warnings\)\n$/,
  );
  const har = join(dir.path, "clean.har");
  await writeFile(
    har,
    JSON.stringify({
      log: {
        entries: [{
          startedDateTime: "2026-03-02T10:15:00.000Z",
          request: { method: "GET", url: "http://localhost:3000/health", headers: [] },
          response: { status: 200, headers: [], content: { size: 2, mimeType: "text/plain", text: "UP" } },
        }],
      },
    }),
  );
  const clean = await runCli(["import", "har", har, "-o", out, "--strict"]);
  assert.equal(clean.code, 0, clean.stderr);
  assert.equal(clean.stderr, "");
});

Deno.test("import har: a file that is not a HAR, and flags that do not apply, are one-line errors", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "x.har");
  await writeFile(file, '{"log": {}}');
  const notHar = await runCli(["import", "har", file, "-o", join(dir.path, "o.yaml")]);
  assert.equal(notHar.code, 1);
  assert.equal(
    notHar.stderr,
    `[ERROR] ${file}: is not a HAR recording: it needs log.entries, a list (export one from the browser's network tab)\n`,
  );
  await writeFile(file, "{log");
  const notJson = await runCli(["import", "har", file, "-o", join(dir.path, "o.yaml")]);
  assert.equal(notJson.code, 1);
  assert.match(notJson.stderr, new RegExp(`^\\[ERROR\\] ${file}: is not JSON: .* \\(a HAR file is JSON\\)\\n$`));
  const encoding = await runCli(["import", "har", file, "--keep-header", "Content-Encoding"]);
  assert.equal(encoding.code, 2);
  assert.match(
    encoding.stderr,
    /^\[ERROR\] import har: --keep-header Content-Encoding cannot be kept: a HAR holds the decoded body/,
  );
  const wiremock = await runCli(["import", "wiremock", file, "--keep-delay"]);
  assert.equal(wiremock.code, 2);
  assert.match(wiremock.stderr, /^\[ERROR\] import wiremock: --keep-delay applies to import har \(and record\) only/);
});

Deno.test("import har: README's command writes tests/fixtures/har/shop.yaml, the config README then serves", async () => {
  await using dir = await tempDir();
  const out = join(dir.path, "shop.yaml");
  const { code, stderr } = await runCli([
    "import",
    "har",
    "tests/fixtures/har/shop.har",
    "-o",
    out,
    "--origin",
    SHOP,
    "--keep-request-header",
    "authorization",
  ]);
  assert.equal(code, 0, stderr);
  assert.equal(await readFile(out, "utf8"), await readFile(fixture("har/shop.yaml"), "utf8"));
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
    `[WARN] ${spec} paths./b.post: 'responses' is not supported: the operation declares no 2xx or default response to answer with (declared: 405)\n` +
      // Issue #29.11: --strict exited 1 with only [WARN] lines; the [ERROR] says why.
      `[ERROR] ${spec}: --strict: 1 operation(s) left out (see the warnings), so the exit code is 1\n`,
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

Deno.test("regression: import har --origin with the wrong scheme wrote routes: [] and only said 'sent to other origins skipped'; now a [WARN] names the HAR's origins", async () => {
  await using dir = await tempDir();
  const out = join(dir.path, "shop.yaml");
  const wrong = SHOP.replace("https:", "http:");
  const imported = await runCli(["import", "har", SHOP_HAR, "-o", out, "--origin", wrong]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(
    lines(imported.stderr).at(-1),
    `[WARN] ${SHOP_HAR}: no entry was sent to --origin ${wrong}; the HAR holds https://shop.example.com, https://cdn.example.net (write --origin https://shop.example.com, or another of them)`,
  );
  assert.deepEqual(parse(await readFile(out, "utf8")), { routes: [] });
});
