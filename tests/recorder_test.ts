import assert from "node:assert/strict";
import { Recorder } from "../src/recorder.ts";
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
