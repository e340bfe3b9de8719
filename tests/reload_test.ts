// Stub-set reloads: what diffStubs pairs up, and StubRegistry.replaceSource carrying hit counts
// and sequence positions over for stubs whose identity is unchanged.
import assert from "node:assert/strict";
import { get, post } from "../mod.ts";
import { StubHandler } from "../handler.ts";
import { describeChanges, diffStubs } from "../src/stubs/reload.ts";
import { checkedStubs } from "../src/server/registry.ts";

Deno.test("diffStubs: identity is method + path + required query (any order); the n-th duplicate pairs with the n-th", () => {
  const before = checkedStubs([
    get("/a").toStub(),
    get("/s?x=1&y=2").toStub(),
    get("/dup").status(201).toStub(),
    get("/dup").status(202).toStub(),
    post("/gone").toStub(),
  ]);
  const after = checkedStubs([
    get("/s?y=2&x=1").toStub(), // same identity, query in another order
    get("/dup").status(201).toStub(),
    get("/a").body({ changed: true }).toStub(),
    get("/dup").status(203).toStub(),
    get("/new").toStub(),
  ]);
  assert.deepEqual(diffStubs(before, after), {
    from: [1, 2, 0, 3, undefined],
    added: [4],
    removed: [4],
    changed: [2, 3],
  });
  assert.equal(
    describeChanges(diffStubs(before, after), before, after),
    "+1 -1 ~2 stubs (+GET /new, -POST /gone, ~GET /a, ~GET /dup)",
  );
  assert.equal(describeChanges(diffStubs(before, before), before, before), "+0 -0 ~0 stubs");
  const many = checkedStubs(Array.from({ length: 12 }, (_, i) => get(`/m${i}`).toStub()));
  assert.match(
    describeChanges(diffStubs([], many), [], many),
    /^\+12 -0 ~0 stubs \(\+GET \/m0, .*, \+GET \/m7, … 4 more\)$/,
  );
});

async function status(handler: StubHandler, path: string): Promise<number> {
  const response = await handler.fetch(new Request(`http://stub${path}`));
  await response.body?.cancel();
  return response.status;
}

Deno.test("StubRegistry.replaceSource: kept stubs keep hit counts (also per scope) and sequence positions; the rest start at 0", async () => {
  const handler = new StubHandler([
    get("/kept").toStub(),
    get("/seq").sequence({ status: 201 }, { status: 202 }, { status: 203 }).toStub(),
    get("/cycle").sequence({ status: 201 }, { status: 202 }, { status: 203 }).sequenceMode("cycle").toStub(),
    get("/gone").toStub(),
  ], { scopes: true });
  await status(handler, "/kept");
  await handler.fetch(new Request("http://stub/kept", { headers: { "x-stubtool-scope": "s" } }));
  for (let i = 0; i < 2; i++) await status(handler, "/seq");
  for (let i = 0; i < 2; i++) await status(handler, "/cycle");
  await status(handler, "/gone");

  const changes = handler.registry.replaceSource([
    get("/new").toStub(),
    get("/cycle").sequence({ status: 301 }, { status: 302 }).sequenceMode("cycle").toStub(), // shorter now
    get("/kept").toStub(),
    get("/seq").sequence({ status: 201 }, { status: 202 }, { status: 203 }).toStub(),
  ]);
  assert.deepEqual(changes, { from: [undefined, 2, 0, 1], added: [0], removed: [3], changed: [1] });
  assert.deepEqual(handler.report().stubs.map((s) => [s.path, s.hit_count]), [
    ["/new", 0],
    ["/cycle", 2],
    ["/kept", 2],
    ["/seq", 2],
  ]);
  assert.deepEqual(handler.report({ scope: "s" }).stubs.map((s) => s.hit_count), [0, 0, 1, 0]);
  assert.equal(await status(handler, "/seq"), 203, "the sequence goes on where it was");
  assert.equal(await status(handler, "/cycle"), 301, "position 2 of a cycle of 2 is its start");
  assert.equal(await status(handler, "/gone"), 404);
  assert.equal(await status(handler, "/new"), 200);
  // Unmatched requests recorded before the reload stay.
  assert.deepEqual(handler.report().unmatched_requests.map((r) => r.path), ["/gone"]);
});
