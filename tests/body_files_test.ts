/**
 * Answers of bytes: `body_file` (read at load, relative to the config's folder,
 * content type from the extension, no substitution) and `body_base64`, on both adapters.
 */
import assert from "node:assert/strict";
import { get } from "../mod.ts";
import { loadConfigText } from "../src/stubs/config.ts";
import { validateStub } from "../src/stubs/validate.ts";
import { fixture, lines, runCli } from "./_cli.ts";
import { rawHeader, rawRequest, serverTest } from "./_http.ts";

const PNG = Deno.readFileSync(fixture("files/pixel.png"));

serverTest(
  "body_file is sent as bytes with the content type of its extension; body_base64 as bytes",
  async (server) => {
    const { config, problems } = await loadConfigText(
      [
        "routes:",
        "  - { method: GET, path: /avatar, body_file: files/pixel.png }",
        '  - { method: GET, path: "/hello/{name}", body_file: files/hello.txt }',
        "  - { method: GET, path: /typed, body_file: files/pixel.png, headers: { content-type: image/x-custom } }",
        "  - { method: GET, path: /raw, body_base64: /wD+AQ== }",
      ].join("\n"),
      fixture("inline.yaml"),
    );
    assert.deepEqual(problems, []);
    server.handler.registry.replaceSource(config!.routes, "config");
    const avatar = await fetch(`${server.url}/avatar`);
    assert.equal(avatar.headers.get("content-type"), "image/png");
    assert.deepEqual(new Uint8Array(await avatar.arrayBuffer()), PNG);
    const hello = await fetch(`${server.url}/hello/ada`);
    assert.equal(hello.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(await hello.text(), "hello {name}\n", "no substitution in file bodies");
    const typed = await fetch(`${server.url}/typed`);
    await typed.body?.cancel();
    assert.equal(typed.headers.get("content-type"), "image/x-custom");
    const raw = await fetch(`${server.url}/raw`);
    assert.equal(raw.headers.get("content-type"), "application/octet-stream");
    assert.deepEqual([...new Uint8Array(await raw.arrayBuffer())], [0xff, 0x00, 0xfe, 0x01]);
    const head = await fetch(`${server.url}/avatar`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  },
);

serverTest("the builders take a file or base64 too", async (server) => {
  server.routes(get("/f").bodyFile("tests/fixtures/files/pixel.png"), get("/b").bodyBase64("aGk="));
  assert.deepEqual(new Uint8Array(await (await fetch(`${server.url}/f`)).arrayBuffer()), PNG);
  assert.equal(await (await fetch(`${server.url}/b`)).text(), "hi");
});

Deno.test("a missing body file, two bodies at once, bad base64: validation errors that say what to do", () => {
  const errors = (raw: Record<string, unknown>) =>
    validateStub({ method: "GET", path: "/x", ...raw }, { baseDir: "/tmp" }).errors;
  assert.deepEqual(errors({ body_file: "nope.png" }), [
    'body_file "nope.png" cannot be read: no such file (looked for /tmp/nope.png)',
  ]);
  assert.deepEqual(errors({ body: "x", body_file: "a.png" }), [
    "body and body_file are given; a response has one body: keep one of them",
  ]);
  assert.deepEqual(errors({ body_base64: "not base64!" }), [
    'body_base64 must be base64 text (A-Z a-z 0-9 + /, = padding), got "not base64!"',
  ]);
  assert.deepEqual(errors({ body_base64: "abcde" }), [
    "body_base64 is not valid base64 (its length or padding is wrong)",
  ]);
  assert.deepEqual(errors({ status: 204, body_base64: "aGk=" }), [
    "status 204 cannot carry a body; remove body_base64 or use another status",
  ]);
});

Deno.test("validate names the stub and the file when a body file is missing, relative to the config's folder", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/stubs.yaml`, "routes:\n  - { method: GET, path: /a, body_file: gone.json }\n");
    const { code, stderr } = await runCli(["validate", `${dir}/stubs.yaml`]);
    assert.equal(code, 1);
    assert.deepEqual(lines(stderr), [
      `[ERROR] routes[0]: body_file "gone.json" cannot be read: no such file (looked for ${dir}/gone.json) (at ${dir}/stubs.yaml:2:30)`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

serverTest(
  "content-type: null sends no content type: for bytes, a file, text sent as written, JSON, a template and a sequence entry",
  async (server) => {
    const { config, problems } = await loadConfigText(
      [
        "routes:",
        "  - { method: GET, path: /raw, body_base64: /wD+AQ==, headers: { content-type: null } }",
        "  - { method: GET, path: /file, body_file: files/hello.txt, headers: { Content-Type: ~, x-a: b } }",
        '  - { method: GET, path: "/text/{name}", body: "hi {name}", headers: { content-type: null } }',
        "  - { method: GET, path: /json, body: { a: [1, 2] }, headers: { content-type: null } }",
        '  - { method: GET, path: /tpl, template: true, body: "q={{request.query.q}}", headers: { content-type: null } }',
        "  - method: GET",
        "    path: /seq",
        '    sequence: [{ body: "first", headers: { content-type: null } }, { body: "second" }]',
      ].join("\n"),
      fixture("inline.yaml"),
    );
    assert.deepEqual(problems, []);
    server.handler.registry.replaceSource(config!.routes, "config");
    const port = Number(new URL(server.url).port);
    const answer = (path: string, method = "GET") =>
      rawRequest(port, `${method} ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`);
    const expect = async (path: string, body: string, extra: [string, string][] = []) => {
      const raw = await answer(path);
      assert.equal(raw.statusLine, "HTTP/1.1 200 OK", path);
      assert.equal(rawHeader(raw, "content-type"), undefined, path);
      for (const [name, value] of extra) assert.equal(rawHeader(raw, name), value, path);
      assert.equal(raw.body, body, path);
    };
    await expect("/raw", "\xff\x00\xfe\x01", [["content-length", "4"]]);
    await expect("/file", "hello {name}\n", [["x-a", "b"]]);
    await expect("/text/ada", "hi ada");
    await expect("/json", '{"a":[1,2]}');
    await expect("/tpl?q=x", "q=x");
    await expect("/seq", "first");
    const second = await answer("/seq");
    assert.equal(rawHeader(second, "content-type"), "application/json");
    assert.equal(second.body, '"second"');
    const head = await answer("/text/ada", "HEAD");
    assert.equal(rawHeader(head, "content-type"), undefined);
    assert.equal(rawHeader(head, "content-length"), "6");
    // The stub's config form says content-type: null, and adding it again gives the same stub.
    const listed = await server.stubs();
    const text = listed.find((s) => s.path === "/text/{name}")!;
    assert.deepEqual(text.headers, { "content-type": null });
    assert.deepEqual(
      validateStub({ method: text.method, path: text.path, body: text.body, headers: text.headers }).errors,
      [],
    );
  },
);

serverTest("the builder's header('content-type', null) sends no content type", async (server) => {
  server.routes(get("/b").body({ ok: true }).header("content-type", null));
  const raw = await rawRequest(
    Number(new URL(server.url).port),
    "GET /b HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
  );
  assert.equal(rawHeader(raw, "content-type"), undefined);
  assert.equal(raw.body, '{"ok":true}');
});

Deno.test("null is a header value only for content-type, and only in a response", () => {
  const errors = (raw: Record<string, unknown>) => validateStub({ method: "GET", path: "/x", ...raw }).errors;
  assert.deepEqual(errors({ headers: { "x-a": null } }), [
    "headers.x-a must be a string or a list of strings, got null",
  ]);
  assert.deepEqual(errors({ body: "a", headers: { "content-type": null, "Content-Type": "text/plain" } }), [
    "headers set content-type to null (send none) and to a value; keep one",
  ]);
});
