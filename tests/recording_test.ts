// src/stubs/recording.ts, the writer `record` and `import har` share: which exchanges become
// one stub, which conditions tell stubs apart, and that the config it writes validates and
// answers each recorded request as it was answered (replayed on both adapters).
import assert from "node:assert/strict";
import { stringify } from "yaml";
import { loadConfigText } from "../src/stubs/config.ts";
import { type Exchange, recordedConfig, type RecordingOptions } from "../src/stubs/recording.ts";
import { send, serverTest } from "./_http.ts";
import type { StubServer } from "../mod.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const JSON_HEADERS = { "content-type": "application/json" };

/** A JSON exchange: `request` is the request's body (JSON unless `type` says otherwise) and headers. */
function exchange(
  method: string,
  target: string,
  status: number,
  answer: unknown,
  request: { body?: string; type?: string; headers?: Record<string, string> } = {},
  latency?: number,
): Exchange {
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers["content-type"] = request.type ?? "application/json";
  return {
    method,
    target,
    status,
    headers: JSON_HEADERS,
    body: bytes(JSON.stringify(answer)),
    request: { headers, body: bytes(request.body ?? "") },
    ...(latency === undefined ? {} : { latency }),
  };
}

/** The config as written, loaded as `serve --config` would, onto `server`. */
async function serveRecorded(server: StubServer, exchanges: Exchange[], options: RecordingOptions = {}) {
  const { config } = recordedConfig(exchanges, options);
  const loaded = await loadConfigText(stringify(config), "recorded.yaml");
  assert.deepEqual(loaded.problems, [], "the recording validates without warnings");
  server.handler.registry.replaceSource(loaded.config!.routes, "config");
  return config.routes;
}

const ORDERS = [
  exchange("POST", "/orders", 201, { id: "o-1" }, { body: '{"sku":"b-1","qty":1}' }),
  exchange("POST", "/orders", 201, { id: "o-2" }, { body: '{"sku":"p-2","qty":3}' }),
];

Deno.test("recording: requests to one path that differ by JSON body get a stub each with a json condition", () => {
  const { config } = recordedConfig(ORDERS);
  assert.deepEqual(config.routes, [
    {
      method: "POST",
      path: "/orders",
      request: { json: { sku: "b-1", qty: 1 } },
      status: 201,
      headers: JSON_HEADERS,
      body: { id: "o-1" },
    },
    {
      method: "POST",
      path: "/orders",
      request: { json: { sku: "p-2", qty: 3 } },
      status: 201,
      headers: JSON_HEADERS,
      body: { id: "o-2" },
    },
  ]);
});

Deno.test("recording: requests with one body between them need no body condition", () => {
  const same = [ORDERS[0], { ...ORDERS[0], status: 409 }];
  assert.deepEqual(recordedConfig(same).config.routes.map((r) => [r.request, r.sequence !== undefined]), [
    [undefined, true],
  ]);
});

Deno.test("recording: ignoreBody keeps one stub per method + path + query (the differing answers a sequence)", () => {
  const { config } = recordedConfig(ORDERS, { ignoreBody: true });
  assert.equal(config.routes.length, 1);
  assert.equal(config.routes[0].request, undefined);
  assert.deepEqual((config.routes[0].sequence as { body: unknown }[]).map((s) => s.body), [{ id: "o-1" }, {
    id: "o-2",
  }]);
});

Deno.test("recording: form bodies become form conditions; a value holding {name} is matched as a literal regex", async () => {
  const form = "application/x-www-form-urlencoded";
  const { config } = recordedConfig([
    exchange("POST", "/login", 200, { token: "t" }, { body: "user=ada&pass=s3cret", type: form }),
    exchange("POST", "/login", 401, { error: "no" }, { body: "user=ada&pass=%7Bx%7D.1", type: form }),
  ]);
  assert.deepEqual(config.routes.map((r) => r.request), [
    { form: { user: "ada", pass: "s3cret" } },
    { form: { user: "ada", pass: { regex: "\\{x\\}\\.1" } } },
  ]);
  assert.deepEqual((await loadConfigText(stringify(config), "recorded.yaml")).problems, []);
});

Deno.test("recording: a JSON string holding {name} is left out of the condition (a json pattern would read it as a capture)", () => {
  const { config } = recordedConfig([
    exchange("POST", "/t", 201, 1, { body: '{"kind":"a","text":"hi {name}"}' }),
    exchange("POST", "/t", 201, 2, { body: '{"kind":"b","text":"hi"}' }),
    exchange("POST", "/t", 201, 3, { body: '["{x}"]' }),
  ]);
  assert.deepEqual(config.routes.map((r) => r.request), [
    { json: { kind: "a" } },
    { json: { kind: "b", text: "hi" } },
    undefined, // a list cannot leave an element out: no condition, the others still win their bodies
  ]);
});

Deno.test("recording: a kept request header that one request carried becomes a condition: the value, or absent", () => {
  const auth = { authorization: "Bearer tok" };
  const exchanges = [
    exchange("POST", "/orders", 201, { id: "o-1" }, { body: '{"sku":"b-1"}', headers: auth }),
    exchange("POST", "/orders", 401, { error: "login" }, { body: '{"sku":"b-1"}' }),
    exchange("GET", "/health", 200, "up"),
  ];
  assert.deepEqual(recordedConfig(exchanges).config.routes.map((r) => r.sequence ? "sequence" : r.status), [
    "sequence",
    200,
  ]);
  const { config } = recordedConfig(exchanges, { keepRequestHeaders: ["Authorization"] });
  assert.deepEqual(config.routes.map((r) => [r.request, r.status]), [
    [{ headers: { authorization: "Bearer tok" } }, 201],
    [{ headers: { authorization: { absent: true } } }, 401],
    [undefined, 200], // no request to /health carried it: no condition there
  ]);
});

Deno.test("recording: keepDelay writes the latency, the median of equal answers, each step's own in a sequence", () => {
  const { config } = recordedConfig([
    exchange("GET", "/a", 200, 1, {}, 30.4),
    exchange("GET", "/a", 200, 1, {}, 90),
    exchange("GET", "/a", 200, 1, {}, 41.6),
    exchange("GET", "/b", 202, "running", {}, 10),
    exchange("GET", "/b", 200, "done", {}, 0.2),
  ], { keepDelay: true });
  assert.equal(config.routes[0].delay, 42);
  assert.equal(config.routes[0].sequence, undefined, "equal answers stay one answer whatever their latency");
  assert.deepEqual(config.routes[1].sequence, [
    { status: 202, headers: JSON_HEADERS, body: "running", delay: 10 },
    { status: 200, headers: JSON_HEADERS, body: "done" },
  ]);
  assert.equal(recordedConfig([exchange("GET", "/a", 200, 1, {}, 30)]).config.routes[0].delay, undefined);
});

serverTest(
  "recording: each recorded request gets its own answer back, by body, header and position",
  async (server) => {
    const auth = { authorization: "Bearer tok" };
    await serveRecorded(server, [
      exchange("POST", "/orders", 201, { id: "o-1" }, { body: '{"sku":"b-1","qty":1}', headers: auth }),
      exchange("POST", "/orders", 201, { id: "o-2" }, { body: '{"sku":"b-1","qty":1,"gift":true}', headers: auth }),
      exchange("POST", "/orders", 401, { error: "login" }, { body: '{"sku":"b-1","qty":1}' }),
      exchange("POST", "/orders", 400, { error: "empty" }, { headers: auth }),
      exchange("GET", "/jobs/7", 202, { state: "running" }),
      exchange("GET", "/jobs/7", 200, { state: "done" }),
    ], { keepRequestHeaders: ["authorization"] });
    const post = (body: string | undefined, headers: Record<string, string> = {}) =>
      send(server, "POST", "/orders", { body, headers: { ...headers, "content-type": "application/json" } });
    // A body with more fields than another recorded one: its stub has more conditions, so it wins.
    assert.deepEqual((await post('{"sku":"b-1","qty":1,"gift":true}', auth)).json, { id: "o-2" });
    assert.deepEqual((await post('{"sku":"b-1","qty":1}', auth)).json, { id: "o-1" });
    const unauthorised = await post('{"sku":"b-1","qty":1}');
    assert.deepEqual([unauthorised.status, unauthorised.json], [401, { error: "login" }]);
    const empty = await post(undefined, auth);
    assert.deepEqual([empty.status, empty.json], [400, { error: "empty" }]);
    assert.deepEqual((await send(server, "GET", "/jobs/7")).json, { state: "running" });
    assert.deepEqual((await send(server, "GET", "/jobs/7")).json, { state: "done" });
  },
);

serverTest(
  "regression: a recorded query value '{q}' (an unfilled URL template) became a capture that echoed any value back as text/html; it is answered literally",
  async (server) => {
    const page = "<p>results for {q}</p>";
    const { config } = recordedConfig([{
      method: "GET",
      target: "/search?q={q}&page=1",
      status: 200,
      headers: { "content-type": "text/html" },
      body: bytes(page),
      request: { headers: {}, body: bytes("") },
    }]);
    assert.deepEqual(config.routes[0].query_params, { q: { regex: "\\{q\\}" }, page: "1" });
    const loaded = await loadConfigText(stringify(config), "recorded.yaml");
    // The page's `{q}` names no capture: sent as written, and the loader says so.
    assert.deepEqual(loaded.problems.map((p) => p.message.split(",")[0]), ["body holds {q}"]);
    server.handler.registry.replaceSource(loaded.config!.routes, "config");
    const literal = await send(server, "GET", "/search?q=%7Bq%7D&page=1");
    assert.deepEqual([literal.status, literal.text], [200, page]);
    const attack = await send(server, "GET", `/search?q=${encodeURIComponent("<script>alert(1)</script>")}&page=1`);
    assert.equal(attack.status, 404);
    // The 404 is JSON that quotes the request, never the recorded page with the value in it.
    assert.match(attack.headers.get("content-type") ?? "", /^application\/json/);
    assert.ok(!attack.text.includes("results for"), attack.text);
  },
);

Deno.test("recordedConfig: equal event streams are one stream: stub, each event's delay the median of those seen", () => {
  const body = new TextEncoder().encode("data: a\n\ndata: b\n\n");
  const sse = (second: number) => ({
    method: "GET",
    target: "/events",
    status: 200,
    headers: { "content-type": "text/event-stream" },
    body,
    arrivals: [{ end: 9, ms: 0 }, { end: 18, ms: second }],
  });
  const { config, warnings } = recordedConfig([sse(100), sse(300), sse(200)], { keepDelay: true });
  assert.deepEqual(warnings, []);
  assert.deepEqual(config.routes, [{
    method: "GET",
    path: "/events",
    status: 200,
    headers: { "content-type": "text/event-stream" },
    stream: [{ data: "a" }, { data: "b", delay_ms: 200 }],
  }]);
  // Without --keep-delay the events carry no delays.
  assert.deepEqual(recordedConfig([sse(100)]).config.routes[0].stream, [{ data: "a" }, { data: "b" }]);
  // Nor without arrival times (a HAR file's exchanges have none).
  const { arrivals: _, ...untimed } = sse(100);
  assert.deepEqual(recordedConfig([untimed], { keepDelay: true }).config.routes[0].stream, [
    { data: "a" },
    { data: "b" },
  ]);
});
