/**
 * The admin API: stubs added, listed, replaced and removed over HTTP on a running
 * server, from JSON or YAML bodies with the validator's own messages; what was sent, found
 * with a request pattern; scoped stubs for parallel workers. Both adapters, and
 * curl against `stubtool serve` as a client in another language would.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { get, post as postStub, stubServer } from "../mod.ts";
import { loadConfigText } from "../src/stubs/config.ts";
import { ROOT, startServe } from "./_cli.ts";
import { ADAPTERS, type Answer, send, serverTest } from "./_http.ts";

/** What `body_file` says over the admin API of a server without `--files-root`. */
const NO_FILES = "body_file is not read over the admin API (the server reads no file of its machine): " +
  "send the bytes as body_base64, or use stubtool stubs add FILE, which reads body files on your side and sends " +
  "their bytes; a server started with --files-root DIR reads files inside DIR";

const JSON_HEADERS = { "content-type": "application/json" };
const post = (
  server: Parameters<typeof send>[0],
  path: string,
  body: unknown,
  headers: Record<string, string> = JSON_HEADERS,
) => send(server, "POST", path, { body: typeof body === "string" ? body : JSON.stringify(body), headers });
const ids = (answer: Answer) => answer.json.stubs.map((s: { id: string }) => s.id);

serverTest(
  "POST /__stubtool__/stubs adds one stub, a list, or {routes}; they answer from the next request",
  async (server) => {
    const one = await post(server, "/__stubtool__/stubs", { method: "GET", path: "/one", body: { n: 1 } });
    assert.equal(one.status, 201);
    assert.deepEqual(one.json, { stubs: [{ id: "stub-1", method: "GET", path: "/one" }] });
    const list = await post(server, "/__stubtool__/stubs", [
      { id: "two", method: "GET", path: "/two", body: 2 },
      { method: "POST", path: "/three", status: 201 },
    ]);
    assert.deepEqual(ids(list), ["two", "stub-2"]);
    const routes = await post(server, "/__stubtool__/stubs", { routes: [{ method: "GET", path: "/four" }] });
    assert.equal(routes.status, 201);
    assert.deepEqual((await send(server, "GET", "/one")).json, { n: 1 });
    assert.equal((await send(server, "GET", "/two")).json, 2);
    const listed = await send(server, "GET", "/__stubtool__/stubs");
    assert.deepEqual(
      listed.json.stubs.map((s: { id: string; source: string; hit_count: number }) => [s.id, s.source, s.hit_count]),
      [
        ["stub-1", "admin", 1],
        ["two", "admin", 1],
        ["stub-2", "admin", 0],
        ["stub-3", "admin", 0],
      ],
    );
  },
);

serverTest("a YAML body (content-type application/yaml) is read like a config file", async (server) => {
  const yaml = '- method: GET\n  path: /users/{id}\n  body: { id: "{id}" }\n';
  const added = await post(server, "/__stubtool__/stubs", yaml, { "content-type": "application/yaml" });
  assert.equal(added.status, 201);
  assert.deepEqual((await send(server, "GET", "/users/7")).json, { id: "7" });
  const broken = await post(server, "/__stubtool__/stubs", "- method: GET\n  path: [\n", {
    "content-type": "text/yaml",
  });
  assert.equal(broken.status, 400);
  assert.equal(broken.json.error, "the body is not valid YAML");
  assert.match(broken.json.problems[0].place, /^body:\d+:\d+$/);
});

serverTest(
  "invalid stubs: 400 with every problem in validate's words; nothing of the batch is added",
  async (server) => {
    const answer = await post(server, "/__stubtool__/stubs", [
      { method: "GET", path: "/fine" },
      { method: "FETCH", path: "/x", staus: 200 },
    ]);
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.json, {
      error: "invalid stubs",
      problems: [
        { level: "error", place: "routes[1]", message: "unknown field 'staus' (did you mean 'status'?)" },
        {
          level: "error",
          place: "routes[1]",
          message: "invalid method 'FETCH' (allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)",
        },
      ],
    });
    assert.equal((await send(server, "GET", "/fine")).status, 404, "the valid stub of the batch was not added");
    assert.equal((await post(server, "/__stubtool__/stubs", "{")).json.error, "the body is not valid JSON");
    assert.equal((await post(server, "/__stubtool__/stubs", "")).status, 400);
  },
);

serverTest(
  "a duplicate id is a 409 naming the stub that has it; ids are unique across the server",
  async (server) => {
    server.routes(get("/a").id("taken"));
    const answer = await post(server, "/__stubtool__/stubs", [{ method: "GET", path: "/b" }, {
      id: "taken",
      method: "GET",
      path: "/c",
    }]);
    assert.equal(answer.status, 409);
    assert.deepEqual(answer.json.problems, [
      { level: "error", place: "routes[1]", message: "id 'taken' is already used by GET /a (api)" },
    ]);
    assert.equal((await send(server, "GET", "/b")).status, 404);
    const twice = await post(server, "/__stubtool__/stubs", [{ id: "x", method: "GET", path: "/b" }, {
      id: "x",
      method: "GET",
      path: "/c",
    }]);
    assert.equal(twice.status, 409);
    assert.equal(twice.json.problems[0].message, "id 'x' is used twice in this batch");
  },
);

serverTest(
  "GET, PUT and DELETE one stub by id; PUT keeps the id and restarts the hit count; unknown ids are 404",
  async (server) => {
    await post(server, "/__stubtool__/stubs", { id: "user", method: "GET", path: "/user", body: "v1" });
    await send(server, "GET", "/user");
    const got = await send(server, "GET", "/__stubtool__/stubs/user");
    assert.deepEqual(got.json, {
      id: "user",
      source: "admin",
      hit_count: 1,
      method: "GET",
      path: "/user",
      status: 200,
      body: "v1",
    });
    const put = await send(server, "PUT", "/__stubtool__/stubs/user", {
      body: JSON.stringify({ method: "GET", path: "/user", status: 500, body: "down" }),
      headers: JSON_HEADERS,
    });
    assert.equal(put.status, 200);
    assert.deepEqual([put.json.id, put.json.hit_count, put.json.status], ["user", 0, 500]);
    assert.equal((await send(server, "GET", "/user")).status, 500);
    const clash = await send(server, "PUT", "/__stubtool__/stubs/user", {
      body: JSON.stringify({ id: "other", method: "GET", path: "/user" }),
    });
    assert.equal(clash.status, 400);
    assert.match(clash.json.problems[0].message, /^id 'other' differs from the id in the URL/);
    assert.equal((await send(server, "DELETE", "/__stubtool__/stubs/user")).status, 204);
    assert.equal((await send(server, "GET", "/user")).status, 404);
    for (const method of ["GET", "PUT", "DELETE"]) {
      const missing = await send(server, method, "/__stubtool__/stubs/user", {
        body: method === "PUT" ? "{}" : undefined,
      });
      assert.equal(missing.status, 404, method);
      assert.equal(missing.json.error, "no stub has id 'user'");
    }
    assert.equal((await send(server, "PATCH", "/__stubtool__/stubs/x")).headers.get("allow"), "GET, HEAD, PUT, DELETE");
  },
);

serverTest(
  "GET /__stubtool__/stubs lists a config stub's place and the line its routes entry starts on; a runtime stub has neither",
  async (server) => {
    const { config } = await loadConfigText(
      "routes:\n  # users\n  - {id: users, method: GET, path: /users}\n\n  - id: user\n    method: GET\n    path: /users/{id}\n",
      "stubs.yaml",
    );
    server.handler.registry.replaceSource(config!.routes, "config");
    await post(server, "/__stubtool__/stubs", { id: "added", method: "GET", path: "/added" });
    const listed = (await send(server, "GET", "/__stubtool__/stubs")).json.stubs;
    assert.deepEqual(
      listed.map((s: Record<string, unknown>) => [s.id, s.source, s.place, s.line]),
      [
        ["users", "config", "routes[0] of stubs.yaml", 3],
        ["user", "config", "routes[1] of stubs.yaml", 5],
        ["added", "admin", undefined, undefined],
      ],
    );
  },
);

serverTest(
  "DELETE /__stubtool__/stubs removes the stubs added at runtime (all, or one scope's); the config's stay",
  async (server) => {
    server.handler.registry.replaceSource([get("/config").toStub()], "config");
    server.routes(get("/api"));
    await post(server, "/__stubtool__/stubs", [{ method: "GET", path: "/w1", scope: "w1" }, {
      method: "GET",
      path: "/w2",
      scope: "w2",
    }]);
    assert.equal((await send(server, "DELETE", "/__stubtool__/stubs?scope=w1")).status, 204);
    assert.deepEqual(ids(await send(server, "GET", "/__stubtool__/stubs")).length, 3);
    assert.equal((await send(server, "DELETE", "/__stubtool__/stubs")).status, 204);
    const left = (await send(server, "GET", "/__stubtool__/stubs")).json.stubs;
    assert.deepEqual(left.map((s: { path: string; source: string }) => [s.path, s.source]), [["/config", "config"]]);
  },
);

serverTest(
  "a stub added over HTTP overrides the config's stub of the same pattern; deleting it brings the config's back",
  async (server) => {
    server.handler.registry.replaceSource([get("/flags").body({ beta: false }).toStub()], "config");
    const added = await post(server, "/__stubtool__/stubs", { method: "GET", path: "/flags", body: { beta: true } });
    assert.deepEqual((await send(server, "GET", "/flags")).json, { beta: true });
    await send(server, "DELETE", `/__stubtool__/stubs/${added.json.stubs[0].id}`);
    assert.deepEqual((await send(server, "GET", "/flags")).json, { beta: false });
  },
);

serverTest(
  "regression: a test's override lost to baseline stubs with header/json or query conditions, or a more specific path",
  async (server) => {
    server.handler.registry.replaceSource([
      postStub("/orders").withHeader("authorization", "Bearer {token}").withJson({ total: 10 }).status(201).toStub(),
      get("/orders").queryParams({ status: "open" }).body(["open"]).toStub(),
      get("/orders/{id}/items/{item}").body("deep").toStub(),
      postStub("/orders").withJson({ total: 0 }).priority(1).status(400).toStub(),
    ], "config");
    const added = await post(server, "/__stubtool__/stubs", [
      { method: "POST", path: "/orders", status: 500 },
      { method: "GET", path: "/orders", body: ["override"] },
      { method: "ANY", path: "/orders/{rest*}", status: 503 },
    ]);
    assert.equal(added.status, 201);
    const order = { body: '{"total":10}', headers: { authorization: "Bearer t", "content-type": "application/json" } };
    assert.equal((await send(server, "POST", "/orders", order)).status, 500);
    assert.deepEqual((await send(server, "GET", "/orders?status=open")).json, ["override"]);
    assert.equal((await send(server, "GET", "/orders/1/items/2")).status, 503);
    // Priority still comes before the batch.
    assert.equal((await send(server, "POST", "/orders", { ...order, body: '{"total":0}' })).status, 400);
    // Removed, the override gives the baseline back.
    assert.equal((await send(server, "DELETE", "/__stubtool__/stubs")).status, 204);
    assert.equal((await send(server, "POST", "/orders", order)).status, 201);
    assert.deepEqual((await send(server, "GET", "/orders?status=open")).json, ["open"]);
    assert.equal((await send(server, "GET", "/orders/1/items/2")).json, "deep");
  },
);

serverTest(
  "POST /__stubtool__/requests/find: the journal's requests a pattern matches, oldest first",
  async (server) => {
    server.routes(get("/ok"));
    await send(server, "POST", "/payments", {
      body: '{"amount":42,"currency":"EUR"}',
      headers: { authorization: "Bearer t" },
    });
    await send(server, "POST", "/payments", { body: '{"amount":7}' });
    await send(server, "GET", "/ok?x=1");
    const find = (pattern: unknown) => post(server, "/__stubtool__/requests/find", pattern);
    const found = await find({
      method: "POST",
      path: "/payments",
      request: { json: { amount: 42 }, headers: { authorization: "Bearer {t}" } },
    });
    assert.equal(found.status, 200);
    assert.equal(found.json.count, 1);
    assert.equal(found.json.complete, true);
    assert.equal(found.json.requests[0].body, '{"amount":42,"currency":"EUR"}');
    assert.equal((await find({ path: "/payments" })).json.count, 2);
    assert.equal((await find({ query_params: { x: "1" } })).json.count, 1);
    assert.equal((await find({})).json.count, 3);
    const bad = await find({ method: "GET", status: 200 });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json.problems, [{
      level: "error",
      place: "pattern",
      message: "unknown field 'status' (allowed: method, path, query_params, request, scope); a pattern has no answer",
    }]);
  },
);

serverTest(
  "eight parallel workers with their own scoped stubs for one path: 500 requests each, every answer from its scope, counts exact",
  async (server) => {
    server.routes(get("/who").body("nobody"));
    const workers = Array.from({ length: 8 }, (_, i) => `worker-${i}`);
    for (const scope of workers) {
      const added = await post(server, "/__stubtool__/stubs", { method: "GET", path: "/who", scope, body: scope });
      assert.equal(added.status, 201);
    }
    await Promise.all(workers.map(async (scope) => {
      for (let n = 0; n < 500; n++) {
        const answer = await send(server, "GET", "/who", { headers: { "x-stubtool-scope": scope } });
        assert.equal(answer.json, scope);
      }
    }));
    assert.equal((await send(server, "GET", "/who")).json, "nobody");
    const stubs = (await send(server, "GET", "/__stubtool__/stubs")).json.stubs;
    assert.deepEqual(stubs.map((s: { hit_count: number }) => s.hit_count), [1, ...workers.map(() => 500)]);
  },
);

Deno.test("a non-JavaScript client drives stubtool serve: curl adds, overrides, verifies and removes a stub", async () => {
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--stub",
    'GET /orders/{id} -> 200 {"id":"{id}","state":"open"}',
  ]);
  await using _ = served.process;
  const curl = async (...args: string[]) => {
    const { code, stdout, stderr } = await new Deno.Command("curl", { args: ["-sS", ...args] }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    return new TextDecoder().decode(stdout);
  };
  const added = JSON.parse(
    await curl(
      "-X",
      "POST",
      `${served.url}/__stubtool__/stubs`,
      "-H",
      "content-type: application/json",
      "-d",
      '{"id":"closed-order","method":"GET","path":"/orders/42","body":{"id":"42","state":"closed"}}',
    ),
  );
  assert.deepEqual(added, { stubs: [{ id: "closed-order", method: "GET", path: "/orders/42" }] });
  assert.deepEqual(JSON.parse(await curl(`${served.url}/orders/42`)), { id: "42", state: "closed" });
  assert.deepEqual(JSON.parse(await curl(`${served.url}/orders/7`)), { id: "7", state: "open" });
  const found = JSON.parse(
    await curl(
      "-X",
      "POST",
      `${served.url}/__stubtool__/requests/find`,
      "-d",
      '{"method":"GET","path":"/orders/42"}',
    ),
  );
  assert.equal(found.count, 1);
  assert.equal(
    await curl(
      "-X",
      "DELETE",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      `${served.url}/__stubtool__/stubs/closed-order`,
    ),
    "204",
  );
  assert.deepEqual(JSON.parse(await curl(`${served.url}/orders/42`)), { id: "42", state: "open" });
});

serverTest(
  "regression: body_file over the admin API served a file of the server's machine; refused (400 naming body_base64 and stubs add) without --files-root",
  async (server) => {
    const refused = {
      error: "invalid stubs",
      problems: [{ level: "error", place: "routes[0]", message: NO_FILES }],
    };
    const leak = await post(server, "/__stubtool__/stubs", {
      method: "GET",
      path: "/leak",
      body_file: "/etc/hostname",
    });
    assert.equal(leak.status, 400);
    assert.deepEqual(leak.json, refused);
    assert.equal((await send(server, "GET", "/leak")).status, 404, "nothing was added");
    const relative = await post(server, "/__stubtool__/stubs", [{ method: "GET", path: "/ok" }, {
      method: "GET",
      path: "/seq",
      sequence: [{ body: "first" }, { body_file: "deno.json" }],
    }]);
    assert.deepEqual(relative.json.problems, [{ level: "error", place: "routes[1].sequence[1]", message: NO_FILES }]);
    assert.equal((await send(server, "GET", "/ok")).status, 404);
    server.routes(get("/user").id("user"));
    const put = await send(server, "PUT", "/__stubtool__/stubs/user", {
      body: JSON.stringify({ method: "GET", path: "/user", body_file: "/etc/hostname" }),
      headers: JSON_HEADERS,
    });
    assert.equal(put.status, 400);
    assert.deepEqual(put.json, refused);
    assert.equal((await send(server, "GET", "/user")).text, "", "the stub was not replaced");
  },
);

assert.equal(
  NO_FILES,
  "body_file is not read over the admin API (the server reads no file of its machine): send the bytes as " +
    "body_base64, or use stubtool stubs add FILE, which reads body files on your side and sends their bytes; " +
    "a server started with --files-root DIR reads files inside DIR",
);

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] with filesRoot, body_file reads files inside it only: '..', absolute paths and symbolic links that leave it are refused`, async () => {
    const top = await Deno.realPath(await Deno.makeTempDir({ prefix: "stubtool-files-" }));
    try {
      const root = join(top, "files");
      await Deno.mkdir(join(root, "sub"), { recursive: true });
      await Deno.writeTextFile(join(top, "secret.txt"), "secret");
      await Deno.writeTextFile(join(root, "sub", "a.json"), '{"a":1}');
      await Deno.symlink(join(top, "secret.txt"), join(root, "out-link.txt"));
      await Deno.symlink(join(root, "sub", "a.json"), join(root, "in-link.json"));
      await using server = await stubServer(0, { adapter, filesRoot: root });
      const add = (body_file: string, path = "/f") =>
        post(server, "/__stubtool__/stubs", { method: "GET", path, body_file });

      const relative = await add("sub/a.json", "/a");
      assert.equal(relative.status, 201, relative.text);
      const a = await send(server, "GET", "/a");
      assert.deepEqual([a.text, a.headers.get("content-type")], ['{"a":1}', "application/json"]);
      assert.equal((await add(join(root, "sub", "a.json"), "/abs")).status, 201, "an absolute path inside the root");
      assert.equal((await add("in-link.json", "/in")).status, 201, "a link that stays inside");

      const outside = (file: string, looked: string) =>
        `body_file ${
          JSON.stringify(file)
        } cannot be read: it is not a file inside --files-root ${root} (looked for ${looked})`;
      for (
        const [file, looked] of [
          ["../secret.txt", join(top, "secret.txt")],
          ["sub/../../secret.txt", join(top, "secret.txt")],
          [join(top, "secret.txt"), join(top, "secret.txt")],
          ["/etc/hostname", "/etc/hostname"],
          ["out-link.txt", join(root, "out-link.txt")],
        ]
      ) {
        const refused = await add(file);
        assert.equal(refused.status, 400, file);
        assert.deepEqual(refused.json.problems, [{
          level: "error",
          place: "routes[0]",
          message: outside(file, looked),
        }]);
      }
      assert.equal((await send(server, "GET", "/f")).status, 404);
      const put = await send(server, "PUT", `/__stubtool__/stubs/${relative.json.stubs[0].id}`, {
        body: JSON.stringify({ method: "GET", path: "/a", body_file: "out-link.txt" }),
        headers: JSON_HEADERS,
      });
      assert.equal(put.status, 400);
      assert.equal(put.json.problems[0].message, outside("out-link.txt", join(root, "out-link.txt")));
      assert.equal((await send(server, "GET", "/a")).text, '{"a":1}', "the stub was not replaced");
    } finally {
      await Deno.remove(top, { recursive: true });
    }
  });
}

Deno.test("regression: admin body_file told whether a path outside --files-root exists (ENOENT vs outside); one message for both", async () => {
  const top = await Deno.realPath(await Deno.makeTempDir({ prefix: "stubtool-files-" }));
  try {
    const root = join(top, "files");
    await Deno.mkdir(root);
    await Deno.writeTextFile(join(top, "exists.txt"), "secret");
    await using server = await stubServer(0, { filesRoot: root });
    const message = async (body_file: string) =>
      (await post(server, "/__stubtool__/stubs", { method: "GET", path: "/f", body_file })).json.problems[0].message
        .replace(/ \(looked for .*\)$/, "").replace(JSON.stringify(body_file), "FILE");
    const said = [
      await message("../exists.txt"),
      await message("../missing.txt"),
      await message(join(top, "exists.txt")),
      await message(join(top, "missing.txt")),
      await message("/etc/passwd"),
      await message("/etc/no-such-file"),
    ];
    assert.deepEqual(
      new Set(said),
      new Set([`body_file FILE cannot be read: it is not a file inside --files-root ${root}`]),
    );
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("stubServer refuses a filesRoot that is no folder", async () => {
  await assert.rejects(
    () => stubServer(0, { filesRoot: "/no/such/folder" }),
    new TypeError('stubServer(port, options): filesRoot "/no/such/folder" cannot be read: no such folder'),
  );
  await assert.rejects(
    () => stubServer(0, { filesRoot: join(ROOT, "deno.json") }),
    new TypeError(`stubServer(port, options): filesRoot ${JSON.stringify(join(ROOT, "deno.json"))} is not a folder`),
  );
});

serverTest(
  "regression: a worker's stub without a scope answered every worker; an admin POST with x-stubtool-scope puts its stubs in that scope unless one names its own",
  async (server) => {
    const added = await post(server, "/__stubtool__/stubs", [
      { id: "mine", method: "GET", path: "/who", body: "w1" },
      { id: "theirs", method: "GET", path: "/who", body: "w2", scope: "w2" },
    ], { ...JSON_HEADERS, "x-stubtool-scope": "w1" });
    assert.equal(added.status, 201);
    assert.equal((await send(server, "GET", "/who")).status, 404, "no worker's stub answers unscoped requests");
    assert.equal((await send(server, "GET", "/who", { headers: { "x-stubtool-scope": "w1" } })).json, "w1");
    assert.equal((await send(server, "GET", "/who", { headers: { "x-stubtool-scope": "w3" } })).status, 404);
    assert.equal((await send(server, "GET", "/who", { headers: { "x-stubtool-scope": "w2" } })).json, "w2");
    const listed = (await send(server, "GET", "/__stubtool__/stubs")).json.stubs;
    assert.deepEqual(listed.map((s: { id: string; scope: string }) => [s.id, s.scope]), [["mine", "w1"], [
      "theirs",
      "w2",
    ]]);
    assert.equal((await send(server, "DELETE", "/__stubtool__/stubs?scope=w1")).status, 204);
    assert.deepEqual(ids(await send(server, "GET", "/__stubtool__/stubs")), ["theirs"]);
  },
);

const BASELINE = [
  get("/a").id("a").body("config a").toStub(),
  get("/b").id("b").body("config b").toStub(),
  get("/c").body("config c").toStub(),
];

serverTest(
  "POST /__stubtool__/stubs/reset brings back the stubs the server started with: runtime stubs go, a deleted or replaced config stub returns, hit counts of the others stay",
  async (server) => {
    await send(server, "GET", "/a");
    await send(server, "GET", "/a");
    await send(server, "GET", "/x");
    server.routes(get("/api"));
    await post(server, "/__stubtool__/stubs", { method: "GET", path: "/admin" });
    assert.equal((await send(server, "DELETE", "/__stubtool__/stubs/b")).status, 204);
    assert.equal((await send(server, "DELETE", "/__stubtool__/stubs/stub-1")).status, 204, "the config's /c");
    await send(server, "PUT", "/__stubtool__/stubs/x", {
      body: JSON.stringify({ method: "GET", path: "/x", status: 500 }),
    });
    assert.equal((await send(server, "GET", "/x")).status, 500);

    const reset = await send(server, "POST", "/__stubtool__/stubs/reset");
    assert.deepEqual([reset.status, reset.text], [204, ""]);
    const listed = (await send(server, "GET", "/__stubtool__/stubs")).json.stubs;
    assert.deepEqual(
      listed.map((s: { id: string; source: string; hit_count: number }) => [s.id, s.source, s.hit_count]),
      [["a", "config", 2], ["b", "config", 0], ["stub-1", "config", 0], ["x", "inline", 0]],
    );
    assert.equal((await send(server, "GET", "/b")).json, "config b");
    assert.equal((await send(server, "GET", "/c")).json, "config c");
    assert.equal((await send(server, "GET", "/x")).status, 200, "the replaced --stub is back");
    assert.equal((await send(server, "GET", "/api")).status, 404);
    assert.equal((await send(server, "GET", "/admin")).status, 404);
    const report = (await send(server, "GET", "/__stubtool__/report")).json;
    assert.deepEqual(report.summary, { total_stubs: 4, matched_stubs: 4, unmatched_requests: 2 });

    // After a reload (serve --watch) the reloaded config is the baseline.
    server.handler.registry.replaceSource(
      [get("/a").id("a").body("reloaded a").toStub(), get("/d").toStub()],
      "config",
    );
    server.routes(get("/api"));
    await server.resetStubs();
    assert.deepEqual(ids(await send(server, "GET", "/__stubtool__/stubs")), ["a", "stub-4", "x"]);
    assert.equal((await send(server, "GET", "/a")).json, "reloaded a");
    assert.equal((await send(server, "GET", "/api")).status, 404);
  },
  { stubs: BASELINE, inline: [get("/x").id("x").toStub()] },
);

serverTest(
  "a stub with id 'reset' is still read, replaced and deleted at /__stubtool__/stubs/reset; POST there resets",
  async (server) => {
    server.routes(get("/r").id("reset"));
    assert.equal((await send(server, "GET", "/__stubtool__/stubs/reset")).json.id, "reset");
    const patch = await send(server, "PATCH", "/__stubtool__/stubs/reset");
    assert.equal(patch.headers.get("allow"), "GET, HEAD, POST, PUT, DELETE");
    assert.equal((await send(server, "POST", "/__stubtool__/stubs/reset")).status, 204);
    assert.equal((await send(server, "GET", "/__stubtool__/stubs/reset")).status, 404, "reset removed it");
  },
);

serverTest(
  "regression: a form body got 'not valid JSON' and a YAML parser's message; now 415 naming the content types taken (a JSON body sent as a form, as curl -d does, is read)",
  async (server) => {
    const form = await post(server, "/__stubtool__/stubs", "method=GET&path=%2Fx", {
      "content-type": "application/x-www-form-urlencoded",
    });
    assert.equal(form.status, 415);
    assert.deepEqual(form.json, {
      error:
        "the body is application/x-www-form-urlencoded: send JSON (content-type: application/json) or YAML (application/yaml or text/yaml)",
    });
    const multipart = await post(
      server,
      "/__stubtool__/stubs",
      '--b\r\ncontent-disposition: form-data; name="stub"\r\n\r\nGET /x\r\n--b--\r\n',
      { "content-type": "multipart/form-data; boundary=b" },
    );
    assert.equal(multipart.status, 415);
    assert.equal(
      multipart.json.error,
      "the body is multipart/form-data: send JSON (content-type: application/json) or YAML (application/yaml or text/yaml)",
    );
    const find = await post(server, "/__stubtool__/requests/find", "method=GET", {
      "content-type": "application/x-www-form-urlencoded",
    });
    assert.equal(find.status, 415);
    const curl = await post(server, "/__stubtool__/stubs", { method: "GET", path: "/x" }, {
      "content-type": "application/x-www-form-urlencoded",
    });
    assert.equal(curl.status, 201);
    assert.equal((await send(server, "GET", "/x")).status, 200);
  },
);

serverTest(
  "regression: an unknown field in a requests/find pattern was reported twice; once now (also by server.requests)",
  async (server) => {
    const typo = await post(server, "/__stubtool__/requests/find", { methd: "GET", path: "/x" });
    assert.equal(typo.status, 400);
    assert.deepEqual(typo.json.problems, [{
      level: "error",
      place: "pattern",
      message: "unknown field 'methd' (did you mean 'method'?); a pattern has no answer",
    }]);
    await assert.rejects(
      () => server.requests({ methd: "GET" }),
      new TypeError("requests(…): unknown field 'methd' (did you mean 'method'?); a pattern has no answer"),
    );
  },
);

serverTest(
  "regression: deeply nested JSON to /__stubtool__/ answered 500 'Maximum call stack size exceeded'; 400 with its place",
  async (server) => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const stubs = await send(server, "POST", "/__stubtool__/stubs", {
      body: `{"method":"GET","path":"/x","body":${deep}}`,
    });
    assert.equal(stubs.status, 400);
    assert.deepEqual(stubs.json.problems, [{
      level: "error",
      place: "body body[0][0][0][0][0][0][0]…",
      message: "nests objects and arrays more than 128 levels deep, which stubtool does not read: flatten the document",
    }]);
    const find = await send(server, "POST", "/__stubtool__/requests/find", { body: `{"body":${deep}}` });
    assert.equal(find.status, 400);
    assert.equal(find.json.problems[0].place, "body body[0][0][0][0][0][0][0]…");
    const yaml = await send(server, "POST", "/__stubtool__/stubs", {
      body: `method: GET\npath: /x\nbody: ${deep}\n`,
      headers: { "content-type": "application/yaml" },
    });
    assert.equal(yaml.status, 400);
    assert.match(yaml.json.problems[0].message, /^nests objects and arrays more than 128 levels deep/);
  },
);
