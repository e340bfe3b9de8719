/**
 * WireMock priorities as stubtool ranks: the indexed ranking agrees with comparing every
 * pair (the definition: one rank above the highest earlier stub one request could match
 * too), on random stub sets; and it stays near linear where comparing pairs was quadratic.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { PRIORITY_BAND, rankPriorities } from "../src/formats/wiremock/ranks.ts";

/** The definition, pair by pair, for the shapes the generator makes. */
function referenceRanks(routes: Record<string, unknown>[], priorities: number[]): (number | undefined)[] {
  const method = (r: Record<string, unknown>) => r.method === "HEAD" ? "GET" : String(r.method ?? "ANY");
  const segments = (r: Record<string, unknown>) => String(r.path).split("/").slice(1);
  const headers = (
    r: Record<string, unknown>,
  ) => ((r.request as { headers?: Record<string, string> } | undefined)?.headers ?? {});
  const pathsOverlap = (a: string[], b: string[]): boolean => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i].endsWith("*}") || b[i].endsWith("*}")) return true;
      if (!a[i].startsWith("{") && !b[i].startsWith("{") && a[i] !== b[i]) return false;
    }
    return a.length === b.length;
  };
  const overlap = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    (method(a) === method(b) || method(a) === "ANY" || method(b) === "ANY") &&
    pathsOverlap(segments(a), segments(b)) &&
    Object.entries(headers(a)).every(([k, v]) => headers(b)[k] === undefined || headers(b)[k] === v);
  const order = routes.map((_, i) => i).sort((a, b) => (priorities[b] - priorities[a]) || (a - b));
  const ranks = new Array(routes.length).fill(0);
  order.forEach((index, k) => {
    for (const other of order.slice(0, k)) {
      if (priorities[other] === priorities[index] && overlap(routes[index], routes[other])) {
        ranks[index] = Math.max(ranks[index], ranks[other] + 1);
      }
    }
  });
  return ranks.map((rank, i) => (5 - priorities[i]) * PRIORITY_BAND + rank || undefined);
}

const segment = fc.constantFrom("a", "b", "c", "{id}", "{rest*}");
const route = fc.record({
  method: fc.constantFrom("GET", "HEAD", "POST", undefined),
  path: fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => {
    const end = s.findIndex((x) => x.endsWith("*}"));
    return "/" + (end === -1 ? s : s.slice(0, end + 1)).join("/");
  }),
  headers: fc.dictionary(fc.constantFrom("x-a", "x-b"), fc.constantFrom("1", "2"), { maxKeys: 2 }),
  priority: fc.constantFrom(3, 5, 5, 5),
});

Deno.test("wiremock ranks: the index gives the ranks of comparing every pair", () => {
  fc.assert(
    fc.property(fc.array(route, { maxLength: 40 }), (generated) => {
      const routes = generated.map(({ method, path, headers }) => ({
        ...(method ? { method } : {}),
        path,
        ...(Object.keys(headers).length ? { request: { headers } } : {}),
      }));
      const priorities = generated.map((g) => g.priority);
      const expected = referenceRanks(routes, priorities);
      rankPriorities(routes, priorities);
      assert.deepEqual(routes.map((r) => (r as { priority?: number }).priority), expected);
    }),
    { numRuns: 2000, seed: 0x5eed },
  );
});

Deno.test("regression: ranking 40,000 mappings compared every pair (13 s for one folder); the index compares few", () => {
  // Distinct paths, one path with distinct header values, catch-alls, and {id} paths beside static ones.
  const routes: Record<string, unknown>[] = [];
  for (let i = 0; i < 10_000; i++) {
    routes.push({ method: "GET", path: `/item/${i}` });
    routes.push({ method: "GET", path: "/one", request: { headers: { "x-n": String(i) } } });
    routes.push({ method: "GET", path: "/api/{wiremock_path*}" });
    routes.push(i % 2 ? { method: "GET", path: `/users/${i}` } : { method: "GET", path: "/users/{id}" });
  }
  const started = performance.now();
  rankPriorities(routes, routes.map(() => 5));
  const ms = performance.now() - started;
  // Comparing every pair is 800 million comparisons (minutes); the index takes well under a second.
  assert.ok(ms < 5_000, `ranking took ${Math.round(ms)} ms`);
  // Distinct paths and distinct header values share rank 0; each catch-all ranks above the one before.
  assert.equal(routes[0].priority, undefined);
  assert.equal(routes[4].priority, undefined);
  assert.equal(routes[1].priority, undefined);
  assert.equal(routes[5].priority, undefined);
  assert.equal(routes[6].priority, 1);
  assert.equal(routes[routes.length - 2].priority, 9_999);
});
