// The idle collector (P13.1): after a burst, the first quiet tick runs one full garbage
// collection, which gives back the heap a flood grew (the RSS figures are in bench:memory).
import assert from "node:assert/strict";
import { fullCollection, IDLE_COLLECT_GROWTH, IdleCollector } from "../src/server/idle.ts";

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

Deno.test("idle collector: collects once on the first quiet tick after requests, never while they come", async () => {
  const host = fakeHost();
  const collector = new IdleCollector(host);
  assert.equal(await collector.tick(), false, "quiet from the start: nothing to give back");
  host.count = 10;
  assert.equal(await collector.tick(), false, "busy");
  host.count = 20;
  assert.equal(await collector.tick(), false, "still busy");
  assert.equal(await collector.tick(), true, "the first quiet tick collects");
  assert.equal(await collector.tick(), false, "quiet again: once is enough");
  assert.equal(host.collections, 1);
});

Deno.test("idle collector: later bursts collect only when RSS grew by IDLE_COLLECT_GROWTH over the last collection", async () => {
  const host = fakeHost(100);
  const collector = new IdleCollector(host);
  host.count = 1;
  await collector.tick();
  assert.equal(await collector.tick(), true);
  // A small burst: RSS a little over what the last collection left.
  host.count = 2;
  host.rssNow = 100 + IDLE_COLLECT_GROWTH - 1;
  await collector.tick();
  assert.equal(await collector.tick(), false);
  // A flood: RSS well over it.
  host.count = 3;
  host.rssNow = 100 + IDLE_COLLECT_GROWTH;
  await collector.tick();
  assert.equal(await collector.tick(), true);
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
