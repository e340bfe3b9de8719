// The request journal: the ring itself (order, cap, reset, size 0), then what the handler
// records in it and serves at GET /__stubtool__/requests, over both adapters.
import assert from "node:assert/strict";
import { get, post, type RequestLogEntry, stubServer } from "../mod.ts";
import {
  DEFAULT_JOURNAL_SIZE,
  Journal,
  type JournalRecord,
  recordOf,
  sharedRecord,
} from "../src/server/journal/journal.ts";
import { send, serverTest } from "./_http.ts";

const record = (target: string, extra: Partial<JournalRecord> = {}): JournalRecord => ({
  method: "GET",
  target,
  time: Date.now(),
  status: 200,
  ms: 0.25,
  stub: "GET /x",
  id: "x",
  closest: undefined,
  scope: null,
  headers: undefined,
  body: undefined,
  bodyTruncated: false,
  ...extra,
});

Deno.test("journal: keeps requests oldest first until the ring is full", () => {
  const journal = new Journal(3);
  journal.add(record("/0"));
  journal.add(record("/1"));
  const { capacity, total, requests } = journal.snapshot();
  assert.equal(capacity, 3);
  assert.equal(total, 2);
  assert.deepEqual(requests.map((r) => r.target), ["/0", "/1"]);
});

Deno.test("journal: past its capacity the oldest fall out, order stays oldest first, the total stays exact", () => {
  const journal = new Journal(3);
  for (let i = 0; i < 3; i++) journal.add(record(`/${i}`));
  assert.deepEqual(journal.snapshot().requests.map((r) => r.target), ["/0", "/1", "/2"]);
  for (let i = 3; i < 8; i++) journal.add(record(`/${i}`));
  const { total, requests } = journal.snapshot();
  assert.equal(total, 8);
  assert.deepEqual(requests.map((r) => r.target), ["/5", "/6", "/7"]);
  // Wrapping exactly onto the start again.
  journal.add(record("/8"));
  assert.deepEqual(journal.snapshot().requests.map((r) => r.target), ["/6", "/7", "/8"]);
});

Deno.test("journal: clear forgets requests and the total; the ring fills again from empty", () => {
  const journal = new Journal(2);
  for (let i = 0; i < 5; i++) journal.add(record(`/${i}`));
  journal.clear();
  assert.deepEqual(journal.snapshot(), { capacity: 2, total: 0, requests: [] });
  journal.add(record("/a"));
  assert.deepEqual(journal.snapshot().requests.map((r) => r.target), ["/a"]);
});

Deno.test("journal: capacity 0 keeps nothing", () => {
  const journal = new Journal(0);
  journal.add(record("/a"));
  assert.deepEqual(journal.snapshot().requests, []);
});

Deno.test("journal: default capacity is 500; a negative or fractional size is a RangeError", () => {
  assert.equal(DEFAULT_JOURNAL_SIZE, 500);
  assert.equal(new Journal().capacity, 500);
  assert.throws(() => new Journal(-1), RangeError);
  assert.throws(() => new Journal(1.5), /journalSize must be a whole number of 0 or more, got 1.5/);
});

Deno.test("journal: entries carry time, method, target, status, stub or closest, and duration_ms in that order", () => {
  const journal = new Journal(4);
  const before = Date.now();
  journal.add(record("/users/1?x=1", { stub: "GET /users/{id}", id: "user", ms: 1.23456 }));
  const closest = [{ method: "POST", path: "/users", reason: "method differs (stub is POST)" }];
  journal.add(record("/users", { method: "PUT", status: 404, stub: undefined, id: undefined, closest }));
  journal.add(record("/nothing", { status: 404, stub: undefined, id: undefined, closest: undefined }));
  const [matched, missed, alone] = journal.snapshot().requests;
  assert.deepEqual(Object.keys(matched), [
    "time",
    "method",
    "target",
    "status",
    "id",
    "stub",
    "duration_ms",
    "headers",
  ]);
  assert.deepEqual({ ...matched, time: "" }, {
    time: "",
    method: "GET",
    target: "/users/1?x=1",
    status: 200,
    id: "user",
    stub: "GET /users/{id}",
    duration_ms: 1.235,
    headers: {},
  });
  assert.match(matched.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Math.abs(Date.parse(matched.time) - before) < 1000, `${matched.time} vs ${new Date(before).toISOString()}`);
  assert.deepEqual(Object.keys(missed), ["time", "method", "target", "status", "closest", "duration_ms", "headers"]);
  assert.deepEqual(missed.closest, closest);
  assert.deepEqual(alone.closest, []);
});

// ---------------------------------------------------------------- the handler and the endpoint

serverTest(
  "GET /__stubtool__/requests lists stub requests with status, stub or closest, oldest first",
  async (server) => {
    server.routes(get("/users/{id}").body({ id: "{id}" }), post("/users").status(201));
    await send(server, "GET", "/users/7?verbose=1");
    await send(server, "PUT", "/users");
    await send(server, "GET", "/nowhere");
    const answer = await send(server, "GET", "/__stubtool__/requests");
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-type"), "application/json");
    const { capacity, total, requests } = answer.json;
    assert.equal(capacity, 500);
    assert.equal(total, 3);
    assert.deepEqual(
      // headers and header_lines (P19.4, tests/conditions_test.ts) aside.
      requests.map((
        { time: _, duration_ms: __, headers: ___, header_lines: ____, ...rest }: Record<string, unknown>,
      ) => rest),
      [
        { method: "GET", target: "/users/7?verbose=1", status: 200, id: "stub-1", stub: "GET /users/{id}" },
        {
          method: "PUT",
          target: "/users",
          status: 404,
          closest: [
            { method: "POST", path: "/users", reason: "method differs (stub is POST)", id: "stub-2", place: "api" },
          ],
        },
        { method: "GET", target: "/nowhere", status: 404, closest: [] },
      ],
    );
    for (const r of requests) assert.ok(typeof r.duration_ms === "number" && r.duration_ms >= 0);
    assert.deepEqual(await server.journal(), answer.json, "server.journal() is what the endpoint serves");
  },
);

serverTest("the journal records reserved-endpoint requests never; the report counts them never", async (server) => {
  server.routes(get("/a").status(204));
  await send(server, "GET", "/__stubtool__/health");
  await send(server, "GET", "/__stubtool__/report");
  await send(server, "GET", "/__stubtool__/");
  await send(server, "GET", "/__stubtool__/nope");
  await send(server, "GET", "/a");
  const journal = await server.journal();
  assert.equal(journal.total, 1);
  assert.deepEqual(journal.requests.map((r) => r.target), ["/a"]);
  assert.equal((await server.report()).summary.unmatched_requests, 0);
});

serverTest("the journal keeps the newest journalSize requests", async (server) => {
  for (let i = 0; i < 6; i++) await send(server, "GET", `/r/${i}`);
  const journal = await server.journal();
  assert.equal(journal.capacity, 4);
  assert.equal(journal.total, 6);
  assert.deepEqual(journal.requests.map((r) => r.target), ["/r/2", "/r/3", "/r/4", "/r/5"]);
}, { journalSize: 4 });

serverTest("POST /__stubtool__/reset clears the journal", async (server) => {
  server.routes(get("/a").status(204));
  await send(server, "GET", "/a");
  await send(server, "GET", "/b");
  assert.equal((await send(server, "POST", "/__stubtool__/reset")).status, 204);
  assert.deepEqual(await server.journal(), { capacity: 500, total: 0, requests: [] });
  await send(server, "GET", "/a");
  await server.reset();
  assert.deepEqual((await server.journal()).requests, [], "server.reset() clears it too");
});

serverTest("journalSize 0 turns the journal off: nothing recorded, the endpoint says capacity 0", async (server) => {
  server.routes(get("/a").status(204));
  await send(server, "GET", "/a");
  await send(server, "GET", "/b");
  assert.deepEqual((await send(server, "GET", "/__stubtool__/requests")).json, {
    capacity: 0,
    total: 0,
    requests: [],
  });
  // Hits and unmatched requests are counted all the same.
  assert.deepEqual((await server.report()).summary, { total_stubs: 1, matched_stubs: 1, unmatched_requests: 1 });
}, { journalSize: 0 });

const logged: RequestLogEntry[] = [];
serverTest("the journal and the request log see the same requests", async (server) => {
  logged.length = 0;
  server.routes(get("/a").status(204));
  await send(server, "GET", "/a");
  await send(server, "GET", "/__stubtool__/health");
  await send(server, "GET", "/b?q=1");
  const journal = await server.journal();
  const seen = [["GET", "/a", 204, "GET /a"], ["GET", "/b?q=1", 404, undefined]];
  assert.deepEqual(journal.requests.map((r) => [r.method, r.target, r.status, r.stub]), seen);
  assert.deepEqual(logged.map((e) => [e.method, e.target, e.status, e.stub]), seen);
  assert.deepEqual(
    Object.keys(logged[0]),
    ["method", "target", "status", "stub", "id", "closest", "ms"],
    "log entries keep their shape",
  );
}, { onRequest: (entry) => logged.push(entry) });

serverTest(
  "duration_ms times answers that wait (delay, response function); an answer given at once is 0",
  async (server) => {
    server.routes(
      get("/slow").delay(60).status(204),
      get("/func").responseFunc(async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return [200, { ok: true }];
      }),
      get("/fast").status(204),
    );
    await send(server, "GET", "/slow");
    await send(server, "GET", "/func");
    await send(server, "GET", "/fast");
    await send(server, "GET", "/missing");
    const [slow, func, fast, missing] = (await server.journal()).requests;
    assert.ok(slow.duration_ms >= 55 && slow.duration_ms < 2000, `${slow.duration_ms}`);
    assert.ok(func.duration_ms >= 25 && func.duration_ms < 2000, `${func.duration_ms}`);
    assert.equal(fast.duration_ms, 0);
    assert.equal(missing.duration_ms, 0);
  },
);

serverTest("GET /__stubtool__/requests answers HEAD without a body and other methods with 405", async (server) => {
  const headAnswer = await send(server, "HEAD", "/__stubtool__/requests");
  assert.equal(headAnswer.status, 200);
  assert.equal(headAnswer.text, "");
  const posted = await send(server, "POST", "/__stubtool__/requests");
  assert.equal(posted.status, 405);
  assert.equal(posted.headers.get("allow"), "GET, HEAD");
});

serverTest(
  "an unmatched report entry carries the 404's closest stubs, and only when there are some",
  async (server) => {
    server.routes(get("/search?q={term}").body({}));
    const miss = await send(server, "GET", "/search");
    await send(server, "GET", "/elsewhere");
    const [near, far] = (await server.report()).unmatched_requests;
    assert.deepEqual(near.closest, miss.json.closest);
    assert.deepEqual(near.closest, [
      {
        method: "GET",
        path: "/search",
        reason: "missing query parameter 'q'",
        query_params: { q: "{term}" },
        id: "stub-1",
        place: "api",
      },
    ]);
    assert.deepEqual(Object.keys(far), ["method", "path", "timestamp"]);
  },
);

Deno.test("stubServer: a bad journalSize is a RangeError before anything listens", async () => {
  await assert.rejects(stubServer(0, { journalSize: -5 }), /journalSize must be a whole number of 0 or more, got -5/);
});

// ---------------------------------------------------------------- what was sent and its budget

serverTest(
  "journal entries carry the stub's id, the request headers and body; binary bodies as base64",
  async (server) => {
    const [id] = server.routes(post("/orders").id("create-order").status(201));
    assert.equal(id, "create-order");
    await send(server, "POST", "/orders", { body: '{"sku":"a-1"}', headers: { "x-trace": "t1" } });
    await send(server, "POST", "/orders", { body: new Uint8Array([0xff, 0x00, 0xfe]) });
    await send(server, "GET", "/nowhere");
    const { requests } = await server.journal();
    assert.equal(requests[0].id, "create-order");
    assert.equal(requests[0].headers?.["x-trace"], "t1");
    assert.equal(requests[0].body, '{"sku":"a-1"}');
    assert.equal(requests[1].body, undefined);
    assert.equal(requests[1].body_base64, "/wD+");
    assert.equal(requests[2].id, undefined);
    assert.equal(requests[2].body, undefined, "no body, no body field");
  },
);

serverTest(
  "an empty POST (content-length: 0) reaches a function as an empty body and is journaled without one",
  async (server) => {
    server.routes(post("/ping").responseFunc(({ body }) => [200, { length: body.length }]));
    assert.deepEqual((await send(server, "POST", "/ping", { body: "" })).json, { length: 0 });
    const [entry] = (await server.journal()).requests;
    assert.equal(entry.headers?.["content-length"], "0");
    assert.deepEqual([entry.body, entry.body_base64, entry.body_truncated], [undefined, undefined, undefined]);
  },
);

serverTest(
  "a body is journaled up to 64 KiB, body_truncated beyond; the stub still gets all of it",
  async (server) => {
    server.routes(post("/upload").responseFunc(({ body }) => [200, { length: body.length }]));
    const big = "x".repeat(100 * 1024);
    assert.deepEqual((await send(server, "POST", "/upload", { body: big })).json, { length: big.length });
    const [entry] = (await server.journal()).requests;
    assert.equal(entry.body, big.slice(0, 64 * 1024));
    assert.equal(entry.body_truncated, true);
  },
);

serverTest("GET /__stubtool__/requests filters: method, path, stub, unmatched, scope, limit", async (server) => {
  server.routes(get("/a").id("a"), post("/b").id("b"));
  await send(server, "GET", "/a?x=1", { headers: { "x-stubtool-scope": "s1" } });
  await send(server, "POST", "/b");
  await send(server, "GET", "/nope");
  await send(server, "GET", "/a");
  const targets = async (query: string) =>
    (await send(server, "GET", `/__stubtool__/requests?${query}`)).json.requests.map((r: { target: string }) =>
      r.target
    );
  assert.deepEqual(await targets("method=get"), ["/a?x=1", "/nope", "/a"]);
  assert.deepEqual(await targets("path=/a"), ["/a?x=1", "/a"]);
  assert.deepEqual(await targets("stub=b"), ["/b"]);
  assert.deepEqual(await targets("unmatched=true"), ["/nope"]);
  assert.deepEqual(await targets("scope=s1"), ["/a?x=1"]);
  assert.deepEqual(await targets("limit=2"), ["/nope", "/a"]);
  assert.deepEqual(await targets("method=GET&path=/a&limit=1"), ["/a"]);
  const bad = await send(server, "GET", "/__stubtool__/requests?limit=many");
  assert.equal(bad.status, 400);
  assert.equal(bad.json.error, "limit must be a whole number, got 'many'");
  assert.equal(
    (await send(server, "GET", "/__stubtool__/requests?color=red")).json.error,
    "unknown filter 'color' (method, path, stub, unmatched, scope, limit)",
  );
});

Deno.test("journal: a long target (kept as bytes) comes back as the same text, and counts its UTF-8 bytes", () => {
  // 2,704 characters, 3,404 bytes: two fit 6,000 by characters, one by bytes.
  const long = `/${"é".repeat(700)}?q=${"x".repeat(2000)}`;
  const journal = new Journal(10, 6000);
  for (const target of [long, "/short", long, long]) journal.add(record(target));
  assert.deepEqual(journal.snapshot().requests.map((r) => r.target), [long]);
  assert.deepEqual(journal.records().map((r) => r.target), [long]);
  journal.add(record("/next"));
  assert.deepEqual(journal.snapshot().requests.map((r) => r.target), [long, "/next"]);
});

Deno.test("the journal keeps a body that is a view of a larger buffer as a copy of the view, not the buffer", () => {
  const whole = new Uint8Array(1024 * 1024).fill(7);
  const journal = new Journal(10, 16 * 1024 * 1024);
  journal.add(record("/upload", { body: whole.subarray(0, 1000), bodyTruncated: true }));
  journal.add(record("/small", { body: new Uint8Array([1, 2, 3]) }));
  const [upload, small] = journal.records();
  assert.deepEqual([upload.body!.byteLength, upload.body!.buffer.byteLength, upload.body![999]], [1000, 1000, 7]);
  assert.deepEqual([...small.body!], [1, 2, 3]);
});

Deno.test("the journal keeps at most journalBytes of targets and bodies: the oldest go first", () => {
  const journal = new Journal(100, 10_000);
  const body = new Uint8Array(3000);
  for (let i = 0; i < 10; i++) journal.add(record(`/${i}`, { body }));
  const kept = journal.snapshot().requests.map((r) => r.target);
  assert.deepEqual(kept, ["/7", "/8", "/9"], "3 × (3,000 + target + 64) fit in 10,000 bytes");
  assert.equal(journal.total, 10);
  assert.equal(journal.complete, false);
  // A single body over the whole budget keeps no body rather than emptying the journal.
  journal.add(record("/huge", { body: new Uint8Array(20_000) }));
  const last = journal.snapshot().requests.at(-1)!;
  assert.equal(last.target, "/huge");
  assert.equal(last.body, undefined);
  assert.equal(last.body_truncated, true);
});

Deno.test("journal: a record another replica shared keeps its replica's name; own records and the single-process shape carry none", () => {
  const journal = new Journal(5);
  journal.add(record("/own"));
  journal.keep(recordOf(JSON.parse(JSON.stringify(sharedRecord(record("/there"), "host-a:8080")))));
  journal.keep(recordOf(sharedRecord(record("/unnamed"))));
  const entries = journal.snapshot().requests;
  assert.deepEqual(entries.map((e) => [e.target, e.replica]), [
    ["/own", undefined],
    ["/there", "host-a:8080"],
    ["/unnamed", undefined],
  ]);
  assert.deepEqual([entries[0], entries[2]].map((e) => "replica" in e), [false, false]);
  assert.deepEqual("replica" in sharedRecord(record("/x")), false);
});

Deno.test("regression: removing records (WireMock's DELETE /__admin/requests/{id}) put every kept record back as new, so --state re-sent them to the cluster", () => {
  const journal = new Journal(10);
  for (const target of ["/a", "/b"]) journal.add(record(target));
  const mark = journal.ownMark;
  journal.add(record("/c"));
  const removed = journal.removeWhere((r) => r.target === "/b");
  assert.deepEqual(removed.map((r) => r.target), ["/b"]);
  assert.deepEqual(journal.records().map((r) => r.target), ["/a", "/c"]);
  // Only /c, journaled after the mark, is new: /a was sent before the removal.
  assert.deepEqual(journal.ownSince(mark, 10).map((r) => r.target), ["/c"]);
  assert.equal(journal.total, 3);
});

Deno.test("ownSince gives this process's requests journaled after a mark, newest first, within the limit; another replica's are left out", () => {
  const journal = new Journal(5);
  assert.deepEqual(journal.ownSince(journal.ownMark, 10), []);
  journal.add(record("/old"));
  const mark = journal.ownMark;
  journal.add(record("/1"));
  journal.keep(record("/there", { replica: "host-b:1" }));
  journal.add(record("/2"));
  journal.add(record("/3"));
  assert.deepEqual(journal.ownSince(mark, 10).map((r) => r.target), ["/3", "/2", "/1"]);
  assert.deepEqual(journal.ownSince(mark, 2).map((r) => r.target), ["/3", "/2"]);
  assert.deepEqual(journal.ownSince(journal.ownMark, 10), []);
  // Past the journal's bound the oldest are gone from it, and so from what is shared.
  for (const target of ["/4", "/5", "/6"]) journal.add(record(target));
  assert.deepEqual(journal.ownSince(mark, 10).map((r) => r.target), ["/6", "/5", "/4", "/3", "/2"]);
  // A cleared journal (reset) has nothing left to share.
  journal.clear();
  assert.deepEqual(journal.ownSince(mark, 10), []);
});
