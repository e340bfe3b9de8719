// `stubtool import wiremock` as a subprocess: a folder becomes a config that validates, body
// files are copied beside it, refused mappings print [WARN] lines, --strict turns them into exit 1.
// The mappings here use no scenarios, templates or webhooks: those write fields (scenario,
// template, callbacks) that `validate` accepts only once the part-three stub fields land.
import assert from "node:assert/strict";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { lines, runCli, tempDir } from "./_cli.ts";

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
          request: { method: "GET", urlPath: "/health", cookies: { s: { equalTo: "1" } } },
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
    `[WARN] ${more} mappings[0]: 'cookies' is not supported: stubtool has no cookie conditions (a Cookie header pattern would not parse cookies)`,
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
      "          contains: json",
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
  await writeFile(file, JSON.stringify({ request: { method: "GET", urlPath: "/x", cookies: {} }, response: {} }));
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
    "[ERROR] import: unknown format 'mockoon' (formats: wiremock); run stubtool import --help\n",
  );
  await using dir = await tempDir();
  const missing = join(dir.path, "nope");
  const gone = await runCli(["import", "wiremock", missing, "-o", join(dir.path, "o.yaml")]);
  assert.equal(gone.code, 1);
  assert.equal(gone.stderr, `[ERROR] ${missing}: does not exist (give a WireMock folder or a mapping file)\n`);
});
