// The idle collector: after a burst, QUIET_TICKS quiet ticks in a row run one full garbage
// collection, which gives back the heap a flood grew (the RSS figures are in bench:memory).
import assert from "node:assert/strict";
import {
  collectWhenIdle,
  fullCollection,
  IDLE_COLLECT_GROWTH,
  IdleCollector,
  QUIET_TICKS,
} from "../src/server/idle.ts";
import { serve as serveDeno } from "../src/server/adapters/deno.ts";
import { serve as serveNode } from "../src/server/adapters/node.ts";

/** A host whose counts the test sets, recording each collection. */
function fakeHost(rssAfterCollect = 100) {
  const host = {
    count: 0,
    rssNow: 100,
    collections: 0,
    requests: () => host.count,
    rss: () => host.rssNow,
    collect: () => {
      host.collections++;
      host.rssNow = rssAfterCollect;
      return Promise.resolve();
    },
  };
  return host;
}

/** Ticks `count` times; what each tick returned. */
async function ticks(collector: IdleCollector, count: number): Promise<boolean[]> {
  const results = [];
  for (let i = 0; i < count; i++) results.push(await collector.tick());
  return results;
}

Deno.test("idle collector: collects once after QUIET_TICKS quiet ticks in a row after requests, never while they come", async () => {
  assert.equal(QUIET_TICKS, 5);
  const host = fakeHost();
  const collector = new IdleCollector(host);
  assert.deepEqual(await ticks(collector, 8), Array(8).fill(false), "quiet from the start: nothing to give back");
  host.count = 10;
  assert.equal(await collector.tick(), false, "busy");
  host.count = 20;
  assert.equal(await collector.tick(), false, "still busy");
  assert.deepEqual(await ticks(collector, 4), [false, false, false, false], "a pause shorter than QUIET_TICKS");
  host.count = 30; // the burst goes on: the quiet count starts over
  assert.equal(await collector.tick(), false, "busy again");
  assert.deepEqual(await ticks(collector, 5), [false, false, false, false, true], "the fifth quiet tick collects");
  assert.deepEqual(await ticks(collector, 10), Array(10).fill(false), "quiet again: once is enough");
  assert.equal(host.collections, 1);
});

Deno.test("idle collector: later bursts collect only when RSS grew by IDLE_COLLECT_GROWTH over the last collection", async () => {
  const host = fakeHost(100);
  const collector = new IdleCollector(host);
  host.count = 1;
  await collector.tick();
  assert.equal((await ticks(collector, QUIET_TICKS)).at(-1), true);
  // A small burst: RSS a little over what the last collection left.
  host.count = 2;
  host.rssNow = 100 + IDLE_COLLECT_GROWTH - 1;
  await collector.tick();
  assert.deepEqual(await ticks(collector, QUIET_TICKS * 2), Array(QUIET_TICKS * 2).fill(false));
  // A flood: RSS well over it.
  host.count = 3;
  host.rssNow = 100 + IDLE_COLLECT_GROWTH;
  await collector.tick();
  assert.equal((await ticks(collector, QUIET_TICKS)).at(-1), true);
  assert.equal(host.collections, 2);
});

Deno.test("idle collector: the full collection it runs frees what nothing holds", async () => {
  let garbage: Uint8Array | undefined = new Uint8Array(1024 * 1024);
  const ref = new WeakRef(garbage);
  garbage = undefined;
  // A WeakRef target lives at least to the end of the current job: collect in a later one.
  await new Promise((resolve) => setTimeout(resolve, 0));
  await fullCollection();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(ref.deref(), undefined);
});

Deno.test("collectWhenIdle: the quiet tick's collection is followed by one release, not before and not again", async () => {
  let requests = 0;
  const released: number[] = [];
  const stop = collectWhenIdle(() => requests, () => released.push(requests), 10);
  try {
    requests = 5; // a burst, then quiet
    for (let waited = 0; released.length === 0 && waited < 5000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // ten more quiet ticks
    assert.deepEqual(released, [5]);
  } finally {
    stop();
  }
});

for (const [adapter, serve] of [["Deno", serveDeno], ["Node (under Deno)", serveNode]] as const) {
  Deno.test(`${adapter} adapter: releaseMemory gives the pages a collection freed in the C heap back to the OS (glibc)`, async () => {
    assert.equal(Deno.build.os, "linux", "this check needs glibc's malloc_trim");
    const listener = await serve({ fetch: () => new Response(), handle: () => Promise.reject() }, {
      port: 0,
      hostname: "127.0.0.1",
    });
    try {
      const rssMb = () => Deno.memoryUsage().rss / 2 ** 20;
      // 16 KiB ArrayBuffers live in the C heap; one in 64 kept alive pins the heap's top, so
      // glibc gives nothing back by itself once the others are freed.
      const kept: ArrayBuffer[] = [];
      let all: ArrayBuffer[] | undefined = [];
      for (let i = 0; i < 16_000; i++) {
        const buffer = new ArrayBuffer(16 * 1024);
        new Uint8Array(buffer).fill(1);
        all.push(buffer);
        if (i % 64 === 0) kept.push(buffer);
      }
      all = undefined;
      await new Promise((resolve) => setTimeout(resolve, 0));
      await fullCollection();
      const collected = rssMb();
      assert.ok(listener.releaseMemory, `the ${adapter} adapter offers releaseMemory`);
      listener.releaseMemory();
      const released = rssMb();
      assert.ok(collected - released > 100, `RSS ${collected.toFixed(0)} MB → ${released.toFixed(0)} MB`);
      assert.equal(kept.length, 250);
    } finally {
      await listener.close(0, () => {});
    }
  });
}
