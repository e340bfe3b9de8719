/**
 * Property: the router agrees with a brute-force reference of the precedence order (README, Precedence), written here from the
 * contract's words, on random stub sets and requests: scopes, priorities, static /
 * `{name}` / `{name*}` segments, specific methods and `ANY`, query and header conditions
 * (literal, capture, absent), batches and declaration order.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Incoming } from "../src/server/incoming.ts";
import { RequestView } from "../src/server/request_view.ts";
import { Route } from "../src/server/matching/route.ts";
import { NEED_BODY, Router } from "../src/server/matching/router.ts";
import { validateStub } from "../src/stubs/validate.ts";

const RUNS = 1000;
const SEED = 0x10e6;

type Piece = { literal: string } | { param: true } | { rest: true };
type Condition = { literal: string } | { capture: true } | { absent: true };

interface RefStub {
  method: "GET" | "POST" | "ANY";
  pieces: Piece[];
  query: [name: string, condition: Condition][];
  header: Condition | undefined;
  priority: number;
  scope: string | undefined;
  batch: number;
}

interface RefRequest {
  method: "GET" | "POST" | "HEAD" | "PUT";
  segments: string[];
  query: [string, string][];
  env: string | undefined;
  scope: string | undefined;
}

const LITERALS = ["a", "b", "c"];
const conditionArb: fc.Arbitrary<Condition> = fc.oneof(
  fc.constantFrom("x", "y").map((literal) => ({ literal })),
  fc.constant({ capture: true as const }),
  fc.constant({ absent: true as const }),
);
const piecesArb: fc.Arbitrary<Piece[]> = fc.tuple(
  fc.array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...LITERALS).map((literal): Piece => ({ literal })) },
      { weight: 2, arbitrary: fc.constant<Piece>({ param: true }) },
    ),
    { minLength: 0, maxLength: 3 },
  ),
  fc.boolean(),
).map(([pieces, rest]) => rest || pieces.length === 0 ? [...pieces, { rest: true } as Piece] : pieces);

const stubArb: fc.Arbitrary<RefStub> = fc.record({
  method: fc.constantFrom<RefStub["method"]>("GET", "GET", "POST", "ANY"),
  pieces: piecesArb,
  query: fc.uniqueArray(fc.tuple(fc.constantFrom("q", "s"), conditionArb), { maxLength: 2, selector: ([n]) => n }),
  header: fc.option(conditionArb, { nil: undefined, freq: 2 }),
  priority: fc.constantFrom(0, 0, 0, 1),
  scope: fc.option(fc.constant("w1"), { nil: undefined, freq: 4 }),
  batch: fc.nat(3),
});

const requestArb: fc.Arbitrary<RefRequest> = fc.record({
  method: fc.constantFrom<RefRequest["method"]>("GET", "GET", "POST", "HEAD", "PUT"),
  segments: fc.array(fc.constantFrom(...LITERALS, "z"), { minLength: 1, maxLength: 4 }),
  query: fc.array(fc.tuple(fc.constantFrom("q", "s"), fc.constantFrom("x", "y", "")), { maxLength: 3 }),
  env: fc.option(fc.constantFrom("x", "y"), { nil: undefined }),
  scope: fc.option(fc.constant("w1"), { nil: undefined }),
});

/** The stub as config data (names chosen so that no capture name repeats). */
function configOf(stub: RefStub): Record<string, unknown> {
  const path = "/" +
    stub.pieces.map((p, i) => "literal" in p ? p.literal : "param" in p ? `{p${i}}` : "{rest*}").join("/");
  const pattern = (c: Condition, name: string) =>
    "literal" in c ? c.literal : "capture" in c ? `{${name}}` : { absent: true };
  const raw: Record<string, unknown> = { method: stub.method, path };
  if (stub.query.length) raw.query_params = Object.fromEntries(stub.query.map(([n, c]) => [n, pattern(c, `q_${n}`)]));
  if (stub.header) raw.request = { headers: { "x-env": pattern(stub.header, "h_env") } };
  if (stub.priority) raw.priority = stub.priority;
  if (stub.scope) raw.scope = stub.scope;
  return raw;
}

/** The precedence order by brute force: every stub is tried; the best by the contract's order wins. */
function reference(
  stubs: readonly (RefStub | undefined)[],
  request: RefRequest,
): { index: number; values: string[] } | undefined {
  type Candidate = { index: number; values: string[]; key: number[] };
  let best: Candidate | undefined;
  stubs.forEach((stub, index) => {
    if (!stub) return;
    // Methods: the request's own, GET for HEAD (there are no HEAD stubs here), or ANY.
    const methodRank = stub.method === request.method
      ? 0
      : request.method === "HEAD" && stub.method === "GET"
      ? 1
      : stub.method === "ANY"
      ? 2
      : -1;
    if (methodRank < 0) return;
    if (stub.scope !== undefined && stub.scope !== request.scope) return;
    const values: string[] = [];
    const kinds: number[] = [];
    let at = 0;
    for (const piece of stub.pieces) {
      if ("rest" in piece) {
        const rest = request.segments.slice(at);
        if (rest.length === 0 || rest.join("/") === "") return;
        values.push(rest.join("/"));
        kinds.push(2);
        at = request.segments.length;
        break;
      }
      const segment = request.segments[at++];
      if (segment === undefined) return;
      if ("literal" in piece) {
        if (segment !== piece.literal) return;
        kinds.push(0);
      } else {
        if (segment === "") return;
        values.push(segment);
        kinds.push(1);
      }
    }
    if (at !== request.segments.length) return;
    const holds = (c: Condition, given: string[]): boolean => {
      if ("absent" in c) return given.length === 0;
      if (given.length === 0) return false;
      if ("literal" in c) return given.includes(c.literal);
      values.push(given[0]);
      return true;
    };
    for (const [name, condition] of stub.query) {
      if (!holds(condition, request.query.filter(([n]) => n === name).map(([, v]) => v))) return;
    }
    if (stub.header && !holds(stub.header, request.env === undefined ? [] : [request.env])) return;
    const weight = stub.query.length + (stub.header ? 1 : 0);
    // Lower sorts first: scoped, higher priority, later batch, specificity, method, more conditions, first declared.
    const key = [
      stub.scope !== undefined ? 0 : 1,
      -stub.priority,
      -stub.batch,
      ...kinds.map((k) => k),
      9, // ends the kinds: a shorter list with equal prefix does not happen for paths that both match
      methodRank,
      -weight,
      index,
    ];
    if (!best || lessThan(key, best.key)) best = { index, values, key };
  });
  return best && { index: best.index, values: best.values };
}

function lessThan(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i];
  return a.length < b.length;
}

function viewOf(request: RefRequest): RequestView {
  const headers: Record<string, string> = {};
  if (request.env !== undefined) headers["x-env"] = request.env;
  const incoming = { header: (name: string) => headers[name] ?? null } as unknown as Incoming;
  const query = request.query.map(([n, v]) => `${n}=${v}`).join("&");
  const view = new RequestView(incoming, request.method, "/" + request.segments.join("/"), query);
  view.scope = request.scope ?? null;
  return view;
}

Deno.test("property: the router picks the stub the precedence order picks, with the same captures (scope, priority, batch, specificity, ANY, conditions, order)", () => {
  let matched = 0;
  fc.assert(
    fc.property(
      fc.array(stubArb, { maxLength: 12 }),
      fc.array(requestArb, { minLength: 1, maxLength: 8 }),
      fc.array(fc.boolean(), { maxLength: 12 }),
      (stubs, requests, removing) => {
        // Batches arrive in order, each batch's stubs in declaration order.
        const order = stubs.map((_, i) => i).sort((a, b) => stubs[a].batch - stubs[b].batch || a - b);
        const router = new Router<Route>();
        const routes: Route[] = [];
        for (const i of order) {
          const { stub, errors } = validateStub(configOf(stubs[i]));
          assert.deepEqual(errors, [], JSON.stringify(configOf(stubs[i])));
          router.add(routes[i] = new Route(stub!, { id: String(i), source: "api", batch: stubs[i].batch, order: i }));
        }
        // Some stubs are removed again (a test's cleanup): what is left routes as if they never were.
        const removed = new Set(stubs.flatMap((_, i) => removing[i] ? [i] : []));
        for (const i of removed) assert.ok(router.remove(routes[i]));
        const left = stubs.map((stub, i) => removed.has(i) ? undefined : stub);
        for (const request of requests) {
          const expected = reference(left, request);
          const found = router.match(viewOf(request));
          assert.notEqual(found, NEED_BODY);
          const actual = found && found !== NEED_BODY
            ? { index: Number(found.route.id), values: [...found.values] }
            : undefined;
          if (expected) matched++;
          assert.deepEqual(
            actual,
            expected,
            `${JSON.stringify(request)}\n${
              stubs.map((s, i) => `${i}: ${JSON.stringify(configOf(s))} batch ${s.batch}`).join("\n")
            }`,
          );
        }
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
  assert.ok(matched > RUNS / 2, `only ${matched} requests matched: the generators say too little`);
});
