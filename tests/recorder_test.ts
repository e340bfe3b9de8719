import assert from "node:assert/strict";
import { MAX_SCOPE_LENGTH, MAX_SCOPES, Recorder } from "../src/server/recorder.ts";
import { get } from "../mod.ts";

const at = (path: string) => ({ method: "GET", path, timestamp: "2026-01-01T00:00:00.000Z" });

Deno.test("hits are counted per stub and unused stubs listed", () => {
  const recorder = new Recorder();
  const stubs = [get("/a").toStub(), get("/b?x=1").toStub()];
  recorder.hit(1);
  recorder.hit(1);
  assert.deepEqual(recorder.report(stubs), {
    summary: { total_stubs: 2, matched_stubs: 1, unmatched_requests: 0 },
    stubs: [{ method: "GET", path: "/a", hit_count: 0 }, {
      method: "GET",
      path: "/b",
      hit_count: 2,
      query_params: { x: "1" },
    }],
    unused_stubs: [{ method: "GET", path: "/a" }],
    unmatched_requests: [],
  });
});

Deno.test("the unmatched ring keeps the newest entries oldest first; the total is exact", () => {
  const recorder = new Recorder(3);
  for (let i = 0; i < 3; i++) recorder.unmatched(at(`/${i}`));
  assert.deepEqual(recorder.report([]).unmatched_requests.map((u) => u.path), ["/0", "/1", "/2"]);
  for (let i = 3; i < 8; i++) recorder.unmatched(at(`/${i}`));
  const report = recorder.report([]);
  assert.deepEqual(report.unmatched_requests.map((u) => u.path), ["/5", "/6", "/7"]);
  assert.equal(report.summary.unmatched_requests, 8);
});

Deno.test("maxUnmatched 0 keeps no entries but still counts", () => {
  const recorder = new Recorder(0);
  recorder.unmatched(at("/x"));
  assert.deepEqual(recorder.report([]).unmatched_requests, []);
  assert.equal(recorder.report([]).summary.unmatched_requests, 1);
});

Deno.test("reset forgets hits and unmatched requests", () => {
  const recorder = new Recorder(2);
  recorder.hit(0);
  recorder.unmatched(at("/x"));
  recorder.reset();
  const report = recorder.report([get("/a").toStub()]);
  assert.deepEqual(report.summary, { total_stubs: 1, matched_stubs: 0, unmatched_requests: 0 });
  assert.deepEqual(report.unmatched_requests, []);
});

Deno.test("a bad capacity is refused with the reason", () => {
  assert.throws(() => new Recorder(-1), { message: "maxUnmatched must be a whole number of 0 or more, got -1" });
});

Deno.test("scopes: a scoped hit or miss counts in its scope and overall; an unscoped one only overall", () => {
  const recorder = new Recorder();
  const stubs = [get("/a").toStub(), get("/b").toStub()];
  recorder.hit(0, "a_test.ts");
  recorder.hit(1, "b_test.ts");
  recorder.hit(1, null);
  recorder.unmatched(at("/nope"), "a_test.ts");
  assert.deepEqual(recorder.report(stubs, "a_test.ts"), {
    summary: { total_stubs: 2, matched_stubs: 1, unmatched_requests: 1 },
    stubs: [{ method: "GET", path: "/a", hit_count: 1 }, { method: "GET", path: "/b", hit_count: 0 }],
    unused_stubs: [{ method: "GET", path: "/b" }],
    unmatched_requests: [at("/nope")],
  });
  assert.deepEqual(recorder.report(stubs, "b_test.ts").stubs.map((s) => s.hit_count), [0, 1]);
  assert.deepEqual(recorder.report(stubs).stubs.map((s) => s.hit_count), [1, 2]);
  assert.equal(recorder.report(stubs).summary.unmatched_requests, 1);
  // A scope nobody used has the report's shape, with nothing in it.
  assert.deepEqual(recorder.report(stubs, "never").summary, {
    total_stubs: 2,
    matched_stubs: 0,
    unmatched_requests: 0,
  });
});

Deno.test(`scopes: at most ${MAX_SCOPES} are kept, starting one more drops the oldest; overlong names are ignored`, () => {
  const recorder = new Recorder();
  const stubs = [get("/a").toStub()];
  for (let i = 0; i <= MAX_SCOPES; i++) recorder.hit(0, `scope-${i}`);
  assert.equal(recorder.report(stubs, "scope-0").summary.matched_stubs, 0, "the oldest scope was dropped");
  assert.equal(recorder.report(stubs, "scope-1").summary.matched_stubs, 1);
  assert.equal(recorder.report(stubs, `scope-${MAX_SCOPES}`).summary.matched_stubs, 1);
  const long = "x".repeat(MAX_SCOPE_LENGTH + 1);
  recorder.hit(0, long);
  recorder.hit(0, "");
  assert.equal(recorder.report(stubs, long).summary.matched_stubs, 0);
  assert.equal(recorder.report(stubs, "scope-1").summary.matched_stubs, 1, "an ignored name drops no scope");
  assert.equal(recorder.report(stubs).stubs[0].hit_count, MAX_SCOPES + 3);
});

Deno.test("scopes: reset forgets them; remap carries hits to new indexes in every scope", () => {
  const recorder = new Recorder();
  const stubs = [get("/a").toStub(), get("/b").toStub()];
  recorder.hit(0, "s");
  recorder.hit(1, "s");
  recorder.hit(1, "s");
  // New list: /b first, then a new stub; /a is gone.
  recorder.remap([1, undefined]);
  assert.deepEqual(recorder.report(stubs, "s").stubs.map((s) => s.hit_count), [2, 0]);
  assert.deepEqual(recorder.report(stubs).stubs.map((s) => s.hit_count), [2, 0]);
  recorder.reset();
  assert.deepEqual(recorder.report(stubs, "s").summary, { total_stubs: 2, matched_stubs: 0, unmatched_requests: 0 });
});
