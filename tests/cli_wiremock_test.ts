// serve/validate --wiremock: what WireMock's server does around a mapping (no HEAD for a GET
// mapping, Matched-Stub-Id/Name), the report's names, --strict, a config's wiremock:, --watch.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture, runCli, startServe, tempDir } from "./_cli.ts";
import { rawRequest } from "./_http.ts";

const EXAMPLE = join(fixture(".."), "..", "examples", "wiremock");

Deno.test("serve --wiremock: GET mappings do not answer HEAD, answers carry Matched-Stub-Id/Name (an id /__admin/mappings knows, also for a mapping without one), the report names each mapping", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--wiremock", EXAMPLE]);
  await using _ = served.process;
  const get = await fetch(`${served.url}/users/42`);
  assert.equal(get.status, 200);
  assert.equal(get.headers.get("matched-stub-id"), "3f0c1a52-6f1e-4c1b-9a53-1d2f6f2c9b10");
  assert.equal(get.headers.get("matched-stub-name"), "get user");
  assert.deepEqual(await get.json(), { id: 42, name: "Ada" });
  const head = await fetch(`${served.url}/users/42`, { method: "HEAD" });
  assert.equal(head.status, 404);
  const post = await fetch(`${served.url}/users`, { method: "POST", headers: { "content-type": "application/json" } });
  await post.body?.cancel();
  assert.equal(post.status, 201);
  assert.match(
    post.headers.get("matched-stub-id")!,
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/,
  );
  assert.equal(post.headers.get("matched-stub-name"), null);
  const postId = post.headers.get("matched-stub-id")!;
  const known = await fetch(`${served.url}/__admin/mappings/${postId}`);
  assert.equal(known.status, 200);
  assert.equal((await known.json()).id, postId);
  const report = await (await fetch(`${served.url}/__stubtool__/report`)).json();
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/;
  const ids = report.stubs.map((s: { id: string }) => s.id);
  assert.deepEqual(report.stubs.map((s: { name: string; id: string }) => [s.name, s.id]), [
    // A mapping's name is its display name, never its id (WireMock's id is id/uuid, else a stable UUID).
    ["catalog", ids[0]],
    [`${EXAMPLE}/mappings/health.json mappings[0]`, ids[1]],
    ["get user", "3f0c1a52-6f1e-4c1b-9a53-1d2f6f2c9b10"],
    [`${EXAMPLE}/mappings/users.json mappings[1]`, postId],
  ]);
  for (const id of [ids[0], ids[1], ids[3]]) assert.match(id, uuid);
  const stubs = await (await fetch(`${served.url}/__stubtool__/stubs`)).json();
  assert.deepEqual(stubs.stubs.map((s: { source: string }) => s.source), [
    "wiremock",
    "wiremock",
    "wiremock",
    "wiremock",
  ]);
  assert.match(
    served.process.stderr,
    /^\[WARN\] \S+\/mappings\/upload\.json mappings\[0\]: 'customMatcher' is not supported: /m,
  );
});

Deno.test("serve --wiremock --strict: a mapping left out is an error, exit 1; validate --strict too", async () => {
  const serve = await runCli(["serve", "--port", "0", "--wiremock", EXAMPLE, "--strict"]);
  assert.equal(serve.code, 1);
  assert.match(serve.stderr, /^\[ERROR\] \S+upload\.json mappings\[0\]: 'customMatcher' is not supported/m);
  const validate = await runCli(["validate", "--wiremock", EXAMPLE, "--strict"]);
  assert.equal(validate.code, 1);
  const lenient = await runCli(["validate", "--wiremock", EXAMPLE]);
  assert.equal(lenient.code, 0);
  const missing = await runCli(["validate", "--wiremock", "/no/such/wiremock"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^\[ERROR\] --wiremock \/no\/such\/wiremock: no such folder/m);
});

Deno.test("a config's wiremock: folder is relative to the config, and --watch reloads when a mapping is added or removed", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "wm");
  await Deno.mkdir(join(root, "mappings"), { recursive: true });
  const mapping = (path: string) =>
    JSON.stringify({ request: { method: "GET", urlPath: path }, response: { body: "hi" } });
  await Deno.writeTextFile(join(root, "mappings", "a.json"), mapping("/a"));
  await Deno.writeTextFile(join(dir.path, "stubs.yaml"), "wiremock: wm\nroutes:\n  - {method: GET, path: /own}\n");
  const served = await startServe(["--port", "0", "--quiet", "--config", join(dir.path, "stubs.yaml"), "--watch"]);
  await using _ = served.process;
  assert.equal(await (await fetch(`${served.url}/a`)).text(), "hi");
  await Deno.writeTextFile(join(root, "mappings", "b.json"), mapping("/b"));
  await served.process.waitForStdout(/^\[watch\] .*wm: \+1 /m);
  assert.equal((await fetch(`${served.url}/b`)).status, 200);
  await Deno.remove(join(root, "mappings", "a.json"));
  await served.process.waitForStdout(/^\[watch\] .*wm: \+0 -1 /m);
  const gone = await fetch(`${served.url}/a`);
  await gone.body?.cancel();
  assert.equal(gone.status, 404);
  assert.equal(await (await fetch(`${served.url}/own`)).status, 200);
});

Deno.test("regression: near misses of WireMock stubs said place 'wiremock'; they name the mapping's file and index", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--wiremock", EXAMPLE]);
  await using _ = served.process;
  const answer = await fetch(`${served.url}/users`, { method: "POST", headers: { "content-type": "text/plain" } });
  assert.equal(answer.status, 404);
  const { closest } = await answer.json();
  assert.deepEqual(closest.map((c: { place: string }) => c.place), [
    `${join(EXAMPLE, "mappings", "users.json")} mappings[1]`,
  ]);
});

Deno.test("serve --wiremock DIR answers a GET no stub matches from DIR/__files (a folder's index.json/index.html), inside the folder only, still unmatched in the report", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "wm");
  const files = join(root, "__files");
  await Deno.mkdir(join(root, "mappings"), { recursive: true });
  await Deno.mkdir(join(files, "a"), { recursive: true });
  await Deno.mkdir(join(files, "d"));
  await Deno.writeTextFile(
    join(root, "mappings", "m.json"),
    '{"request":{"urlPath":"/a/b.json"},"response":{"body":"stub"}}',
  );
  await Deno.writeTextFile(join(files, "a", "b.json"), '{"b":1}');
  await Deno.writeTextFile(join(files, "a", "c.json"), '{"c":1}');
  await Deno.writeTextFile(join(files, "d", "index.html"), "<p>i</p>");
  await Deno.writeTextFile(join(dir.path, "secret.txt"), "TOP-SECRET-CONTENT");
  await Deno.symlink(join(dir.path, "secret.txt"), join(files, "link.txt"));
  const served = await startServe(["--port", "0", "--quiet", "--wiremock", root]);
  await using _ = served.process;
  const at = async (path: string, method = "GET") => {
    const answer = await fetch(`${served.url}${path}`, { method });
    return [answer.status, answer.headers.get("content-type"), await answer.text()];
  };
  // A stub wins over a file.
  assert.deepEqual(await at("/a/b.json"), [200, null, "stub"]);
  assert.deepEqual(await at("/a/c.json?x=1"), [200, "application/json", '{"c":1}']);
  assert.deepEqual((await at("/d")).slice(0, 3), [200, "text/html;charset=utf-8", "<p>i</p>"]);
  assert.deepEqual((await at("/d/")).slice(2), ["<p>i</p>"]);
  assert.equal((await at("/a/c.json", "POST"))[0], 404);
  assert.equal((await at("/a/c.json", "HEAD"))[0], 404);
  assert.equal((await at("/link.txt"))[0], 404);
  // Sent as written (fetch would resolve the dots itself).
  const port = Number(new URL(served.url).port);
  for (const target of ["/%2e%2e/secret.txt", "/a/%2e%2e/%2e%2e/secret.txt", "/../secret.txt"]) {
    const answer = await rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nconnection: close\r\n\r\n`);
    assert.match(answer.statusLine, / 404 /, target);
    assert.doesNotMatch(answer.body, /TOP-SECRET-CONTENT/, target);
  }
  const report = await (await fetch(`${served.url}/__stubtool__/report`)).json();
  assert.deepEqual(
    report.unmatched_requests.map((r: { method: string; path: string }) => `${r.method} ${r.path}`).sort(),
    [
      "GET /%2e%2e/secret.txt",
      "GET /../secret.txt",
      "GET /a/%2e%2e/%2e%2e/secret.txt",
      "GET /a/c.json",
      "GET /d",
      "GET /d/",
      "GET /link.txt",
      "HEAD /a/c.json",
      "POST /a/c.json",
    ],
  );
});

Deno.test("validate --wiremock exits 0 with [WARN] N of M mappings left out on stderr; a refused scenario mapping names the states and mappings its scenario loses", async () => {
  await using dir = await tempDir();
  const mappings = join(dir.path, "mappings");
  await Deno.mkdir(mappings);
  const write = (name: string, mapping: unknown) => Deno.writeTextFile(join(mappings, name), JSON.stringify(mapping));
  const flow = (required: string, next: string | undefined, request: Record<string, unknown>) => ({
    scenarioName: "checkout",
    requiredScenarioState: required,
    ...(next === undefined ? {} : { newScenarioState: next }),
    request: { method: "POST", ...request },
    response: { status: 200 },
  });
  await write("a.json", flow("Started", "paid", { urlPath: "/pay", bogus: { equalTo: "x" } }));
  await write("b.json", flow("paid", "shipped", { urlPath: "/ship" }));
  await write("c.json", flow("shipped", undefined, { urlPath: "/done" }));
  await write("d.json", flow("Started", undefined, { urlPath: "/peek" }));
  const result = await runCli(["validate", "--wiremock", dir.path]);
  assert.equal(result.code, 0, result.stderr);
  const a = `${join(mappings, "a.json")} mappings[0]`;
  assert.deepEqual(result.stderr.trim().split("\n").slice(1), [
    `[WARN] ${a}: scenario 'checkout' can no longer reach states 'paid', 'shipped' with this mapping left out: ` +
    `${join(mappings, "b.json")} mappings[0], ${join(mappings, "c.json")} mappings[0] will never answer`,
    "[WARN] 1 of 4 mappings left out (see the warnings above)",
  ]);
  assert.match(result.stderr.split("\n")[0], /^\[WARN\] \S+a\.json mappings\[0\]: 'request\.bogus' is not supported/);
  const clean = await runCli(["validate", "--wiremock", EXAMPLE.replace(/wiremock$/, "wiremock/mappings/users.json")]);
  assert.equal(clean.code, 0);
  assert.doesNotMatch(clean.stderr, /left out/);
});
