import assert from "node:assert/strict";
import { MAX_SCOPES, MAX_VIOLATIONS, Recorder, UNMATCHED_PART_MAX } from "../src/server/coverage/recorder.ts";
import { Route } from "../src/server/matching/route.ts";
import { MAX_SCOPE_LENGTH } from "../src/util/scope_name.ts";
import { get } from "../mod.ts";
import { checkedStubs } from "../src/server/registry.ts";

/** Routes of `get(path)` stubs, ids `r0`, `r1`, … in declaration order. */
function routes(...paths: string[]): Route[] {
  return paths.map((path, order) =>
    new Route(checkedStubs([get(path).toStub()])[0], { id: `r${order}`, source: "api", batch: 0, order })
  );
}

/** Records an unmatched GET of `path` and returns nothing (the report is what is checked). */
function miss(recorder: Recorder, path: string, scope?: string | null, query = ""): void {
  recorder.unmatched("GET", path, query, [], scope);
}

const noTime = <T extends { timestamp: string }>(entries: T[]) => entries.map((e) => ({ ...e, timestamp: "-" }));

Deno.test("hits are counted per stub and unused stubs listed, each with its id", () => {
  const recorder = new Recorder();
  const [a, b] = routes("/a", "/b?x=1");
  recorder.hit(b);
  recorder.hit(b);
  assert.deepEqual(recorder.report([a, b]), {
    summary: { total_stubs: 2, matched_stubs: 1, unmatched_requests: 0 },
    stubs: [
      { id: "r0", method: "GET", path: "/a", hit_count: 0 },
      { id: "r1", method: "GET", path: "/b", hit_count: 2, query_params: { x: "1" } },
    ],
    unused_stubs: [{ id: "r0", method: "GET", path: "/a" }],
    unmatched_requests: [],
  });
});

Deno.test("the unmatched ring keeps the newest entries oldest first; the total is exact", () => {
  const recorder = new Recorder(3);
  for (let i = 0; i < 3; i++) miss(recorder, `/${i}`);
  assert.deepEqual(recorder.report([]).unmatched_requests.map((u) => u.path), ["/0", "/1", "/2"]);
  for (let i = 3; i < 8; i++) miss(recorder, `/${i}`);
  const report = recorder.report([]);
  assert.deepEqual(report.unmatched_requests.map((u) => u.path), ["/5", "/6", "/7"]);
  assert.equal(report.summary.unmatched_requests, 8);
});

Deno.test("unmatched entries: method, path, query (only when non-empty), timestamp, closest (only when some)", () => {
  const recorder = new Recorder();
  recorder.unmatched("GET", "/a", "x=1", [{ method: "GET", path: "/b", reason: "segment 1 is 'a', stub has 'b'" }]);
  recorder.unmatched("PUT", "/c", "", []);
  const [first, second] = recorder.report([]).unmatched_requests;
  assert.deepEqual(Object.keys(first), ["method", "path", "query", "timestamp", "closest"]);
  assert.deepEqual(Object.keys(second), ["method", "path", "timestamp"]);
});

Deno.test("memory in bytes: method, path and query are cut at 2 KiB each, marked truncated", () => {
  const recorder = new Recorder();
  const long = "/" + "a".repeat(64 * 1024);
  recorder.unmatched("GET", long, "q=" + "b".repeat(64 * 1024), []);
  recorder.unmatched("X".repeat(5000), "/short", "", []);
  miss(recorder, "/fine");
  const [path, method, fine] = recorder.report([]).unmatched_requests;
  assert.equal(path.path, long.slice(0, UNMATCHED_PART_MAX));
  assert.equal(path.query!.length, UNMATCHED_PART_MAX);
  assert.equal(path.truncated, true);
  assert.equal(method.method.length, UNMATCHED_PART_MAX);
  assert.equal(method.truncated, true);
  assert.equal(fine.truncated, undefined);
});

Deno.test("maxUnmatched 0 keeps no entries but still counts", () => {
  const recorder = new Recorder(0);
  miss(recorder, "/x");
  assert.deepEqual(recorder.report([]).unmatched_requests, []);
  assert.equal(recorder.report([]).summary.unmatched_requests, 1);
});

Deno.test("reset forgets hits and unmatched requests", () => {
  const recorder = new Recorder(2);
  const stubs = routes("/a");
  recorder.hit(stubs[0]);
  miss(recorder, "/x");
  recorder.reset(stubs);
  const report = recorder.report(stubs);
  assert.deepEqual(report.summary, { total_stubs: 1, matched_stubs: 0, unmatched_requests: 0 });
  assert.deepEqual(report.unmatched_requests, []);
});

Deno.test("a bad capacity is refused with the reason", () => {
  assert.throws(() => new Recorder(-1), { message: "maxUnmatched must be a whole number of 0 or more, got -1" });
});

Deno.test("scopes: a scoped hit or miss counts in its scope and overall; an unscoped one only overall", () => {
  const recorder = new Recorder();
  const stubs = routes("/a", "/b");
  recorder.hit(stubs[0], "a_test.ts");
  recorder.hit(stubs[1], "b_test.ts");
  recorder.hit(stubs[1], null);
  miss(recorder, "/nope", "a_test.ts");
  miss(recorder, "/other");
  const scoped = recorder.report(stubs, { scope: "a_test.ts" });
  assert.deepEqual({ ...scoped, unmatched_requests: noTime(scoped.unmatched_requests) }, {
    summary: { total_stubs: 2, matched_stubs: 1, unmatched_requests: 1 },
    stubs: [{ id: "r0", method: "GET", path: "/a", hit_count: 1 }, {
      id: "r1",
      method: "GET",
      path: "/b",
      hit_count: 0,
    }],
    unused_stubs: [{ id: "r1", method: "GET", path: "/b" }],
    unmatched_requests: [{ method: "GET", path: "/nope", timestamp: "-" }],
  });
  assert.deepEqual(recorder.report(stubs, { scope: "b_test.ts" }).stubs.map((s) => s.hit_count), [0, 1]);
  assert.deepEqual(recorder.report(stubs).stubs.map((s) => s.hit_count), [1, 2]);
  assert.equal(recorder.report(stubs).summary.unmatched_requests, 2);
  // A scope nobody used has the report's shape, with nothing in it.
  assert.deepEqual(recorder.report(stubs, { scope: "never" }).summary, {
    total_stubs: 2,
    matched_stubs: 0,
    unmatched_requests: 0,
  });
});

Deno.test("regression (issue 13 #1): scoped reports filter the one unmatched list instead of keeping 1,000 entries per scope", () => {
  const recorder = new Recorder(10);
  for (let i = 0; i < 100; i++) miss(recorder, `/${i}`, `scope-${i % 50}`);
  // The whole list keeps 10 entries; every scope's report is a filter of those 10.
  assert.equal(recorder.report([]).unmatched_requests.length, 10);
  let kept = 0;
  for (let s = 0; s < 50; s++) kept += recorder.report([], { scope: `scope-${s}` }).unmatched_requests.length;
  assert.equal(kept, 10);
  assert.equal(
    recorder.report([], { scope: "scope-49" }).summary.unmatched_requests,
    2,
    "the scope's total stays exact",
  );
});

Deno.test(`scopes: at most ${MAX_SCOPES} are kept, starting one more drops the oldest; overlong names are ignored`, () => {
  const recorder = new Recorder();
  const stubs = routes("/a");
  for (let i = 0; i <= MAX_SCOPES; i++) recorder.hit(stubs[0], `scope-${i}`);
  assert.equal(recorder.report(stubs, { scope: "scope-0" }).summary.matched_stubs, 0, "the oldest scope was dropped");
  assert.equal(recorder.report(stubs, { scope: "scope-1" }).summary.matched_stubs, 1);
  assert.equal(recorder.report(stubs, { scope: `scope-${MAX_SCOPES}` }).summary.matched_stubs, 1);
  const long = "x".repeat(MAX_SCOPE_LENGTH + 1);
  recorder.hit(stubs[0], long);
  recorder.hit(stubs[0], "");
  assert.equal(recorder.report(stubs, { scope: long }).summary.matched_stubs, 0);
  assert.equal(recorder.report(stubs, { scope: "scope-1" }).summary.matched_stubs, 1, "an ignored name drops no scope");
  assert.equal(recorder.report(stubs).stubs[0].hit_count, MAX_SCOPES + 3);
});

Deno.test("scopes: reset forgets them; carry moves scoped hits to the stub that continues one", () => {
  const recorder = new Recorder();
  const [a, b] = routes("/a", "/b");
  recorder.hit(a, "s");
  recorder.hit(b, "s");
  recorder.hit(b, "s");
  const [b2] = routes("/b");
  recorder.carry([[b, b2]]);
  recorder.forget([a]);
  assert.deepEqual(recorder.report([b2], { scope: "s" }).stubs.map((s) => s.hit_count), [2]);
  recorder.reset([b2]);
  assert.deepEqual(recorder.report([b2], { scope: "s" }).summary, {
    total_stubs: 1,
    matched_stubs: 0,
    unmatched_requests: 0,
  });
});

Deno.test("violations are counted per operation + location + message, first seen first, per scope too; reset forgets them", () => {
  const recorder = new Recorder();
  const [a] = routes("/a");
  const name = { operation: "POST /pets", location: ["body", "name"], message: "must have required property 'name'" };
  const age = { operation: "POST /pets", location: ["body", "age"], message: "must be integer" };
  recorder.violations([name, age]);
  recorder.violations([name], "t1");
  recorder.violations([]);
  assert.equal(recorder.report([a]).violations, undefined, "only a server that checks requests has the key");
  assert.deepEqual(recorder.report([a], { violations: true }).violations, [
    { operation: "POST /pets", location: "body.name", message: "must have required property 'name'", count: 2 },
    { operation: "POST /pets", location: "body.age", message: "must be integer", count: 1 },
  ]);
  assert.deepEqual(recorder.report([a], { violations: true, scope: "t1" }).violations, [
    { operation: "POST /pets", location: "body.name", message: "must have required property 'name'", count: 1 },
  ]);
  assert.deepEqual(recorder.report([a], { violations: true, scope: "t2" }).violations, []);
  recorder.reset([a]);
  assert.deepEqual(recorder.report([a], { violations: true }).violations, []);
});

Deno.test("violations stay bounded: 5,000 distinct ones keep 1,000 entries and one (other) entry, the total exact; long parts are cut", () => {
  const recorder = new Recorder();
  for (let i = 0; i < 5000; i++) {
    recorder.violations([{ operation: "GET /a", location: ["query", `k${i}`], message: "x".repeat(10_000) }]);
  }
  const violations = recorder.report([], { violations: true }).violations!;
  assert.equal(violations.length, MAX_VIOLATIONS + 1);
  assert.equal(violations.reduce((sum, v) => sum + v.count, 0), 5000);
  assert.deepEqual(violations.at(-1), {
    operation: "(other)",
    location: "",
    message: "more distinct violations than the report keeps (1000)",
    count: 4000,
  });
  assert.equal(violations[0].message.length, UNMATCHED_PART_MAX);
});
