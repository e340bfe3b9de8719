import assert from "node:assert/strict";
import type { Incoming } from "../src/server/incoming.ts";
import { BodyView, RequestView } from "../src/server/request_view.ts";
import { Route } from "../src/server/matching/route.ts";
import { NEED_BODY, Router } from "../src/server/matching/router.ts";
import { validateStub } from "../src/stubs/validate.ts";

/** A route from `METHOD /template` (or a stub's fields), declared `order`-th in `batch`; its id is its name. */
function routeOf(spec: string | Record<string, unknown>, order: number, name?: string, batch = 0): Route {
  const fields = typeof spec === "string" ? { method: spec.split(" ")[0], path: spec.split(" ")[1] } : spec;
  const { stub, errors } = validateStub(fields);
  assert.deepEqual(errors, [], JSON.stringify(spec));
  return new Route(stub!, {
    id: name ?? (typeof spec === "string" ? spec : JSON.stringify(spec)),
    source: "api",
    batch,
    order,
  });
}

/** A router holding `specs` in declaration order. */
function routerOf(...specs: string[]): Router<Route> {
  const router = new Router<Route>();
  specs.forEach((spec, i) => router.add(routeOf(spec, i)));
  return router;
}

/** A request: `METHOD /path?query`, with headers and a body when given. */
function viewOf(request: string, headers: Record<string, string> = {}, body?: string): RequestView {
  const [method, target] = request.split(" ");
  const q = target.indexOf("?");
  const incoming = {
    header: (name: string) => headers[name] ?? null,
  } as unknown as Incoming;
  const view = new RequestView(
    incoming,
    method,
    q === -1 ? target : target.slice(0, q),
    q === -1 ? "" : target.slice(q + 1),
  );
  view.scope = headers["x-stubtool-scope"] ?? null;
  if (body !== undefined) {
    view.body = new BodyView(new TextEncoder().encode(body), true, headers["content-type"] ?? null);
  }
  return view;
}

/** `METHOD /path?query` → the matched route's name and values, or undefined. */
function lookup(
  router: Router<Route>,
  request: string,
  headers?: Record<string, string>,
  body?: string,
): { name: string; values: string[] } | undefined {
  const match = router.match(viewOf(request, headers, body));
  assert.notEqual(match, NEED_BODY, `${request} needs a body`);
  return match && match !== NEED_BODY ? { name: match.route.id, values: match.values } : undefined;
}

/** `METHOD /path?query` → `name: reason` of each near miss. */
function misses(
  router: Router<Route>,
  request: string,
  limit?: number,
  headers?: Record<string, string>,
  body?: string,
): string[] {
  const found = router.nearMisses(viewOf(request, headers, body), limit);
  assert.notEqual(found, NEED_BODY);
  return (found as Exclude<typeof found, typeof NEED_BODY>).map(({ route, reason }) => `${route.id}: ${reason}`);
}

// --- precedence ---------------------------------------------------------------

Deno.test("precedence table, independent of declaration order where the rule says so", () => {
  const table: { rule: string; stubs: string[]; request: string; winner: string; values: string[] }[] = [
    {
      rule: "static beats placeholder at the same depth (static declared last)",
      stubs: ["GET /users/{id}", "GET /users/me"],
      request: "GET /users/me",
      winner: "GET /users/me",
      values: [],
    },
    {
      rule: "static beats placeholder at the same depth (static declared first)",
      stubs: ["GET /users/me", "GET /users/{id}"],
      request: "GET /users/me",
      winner: "GET /users/me",
      values: [],
    },
    {
      rule: "the placeholder still takes what the static does not",
      stubs: ["GET /users/me", "GET /users/{id}"],
      request: "GET /users/42",
      winner: "GET /users/{id}",
      values: ["42"],
    },
    {
      rule: "the earliest depth decides, even against more static segments later",
      stubs: ["GET /{a}/b/c", "GET /a/{b}/{c}"],
      request: "GET /a/b/c",
      winner: "GET /a/{b}/{c}",
      values: ["b", "c"],
    },
    {
      rule: "path precedence comes before query precedence",
      stubs: ["GET /{x}?q=1", "GET /a"],
      request: "GET /a?q=1",
      winner: "GET /a",
      values: [],
    },
    {
      rule: "a stub with required query beats one without (query declared last)",
      stubs: ["GET /s", "GET /s?q={t}"],
      request: "GET /s?q=1",
      winner: "GET /s?q={t}",
      values: ["1"],
    },
    {
      rule: "a stub with required query beats one without (query declared first)",
      stubs: ["GET /s?q={t}", "GET /s"],
      request: "GET /s?q=1",
      winner: "GET /s?q={t}",
      values: ["1"],
    },
    {
      rule: "the stub without query takes requests that lack it",
      stubs: ["GET /s?q={t}", "GET /s"],
      request: "GET /s?other=1",
      winner: "GET /s",
      values: [],
    },
    {
      rule: "first declared wins among equal placeholders",
      stubs: ["GET /x/{a}", "GET /x/{b}"],
      request: "GET /x/1",
      winner: "GET /x/{a}",
      values: ["1"],
    },
    {
      rule: "first declared wins among stubs with required query",
      stubs: ["GET /s?b={b}", "GET /s?a={a}"],
      request: "GET /s?a=1&b=2",
      winner: "GET /s?b={b}",
      values: ["2"],
    },
    {
      rule: "first declared wins among identical stubs",
      stubs: ["GET /same", "GET /same"],
      request: "GET /same",
      winner: "GET /same",
      values: [],
    },
  ];
  for (const { rule, stubs, request, winner, values } of table) {
    const router = new Router<Route>();
    stubs.forEach((spec, i) => router.add(routeOf(spec, i, `${spec} #${i}`)));
    const found = lookup(router, request);
    const expected = `${winner} #${stubs.indexOf(winner)}`;
    assert.deepEqual(found, { name: expected, values }, rule);
  }
});

Deno.test("declaration order decides, not the order stubs were added", () => {
  const router = new Router<Route>();
  router.add(routeOf("GET /x/{late}", 5));
  router.add(routeOf("GET /x/{early}", 1));
  router.add(routeOf("GET /x/{middle}", 3));
  assert.equal(lookup(router, "GET /x/1")?.name, "GET /x/{early}");
});

Deno.test("a stub added later takes effect for the next lookup", () => {
  const router = routerOf("GET /a/{x}");
  assert.equal(lookup(router, "GET /a/b")?.name, "GET /a/{x}");
  router.add(routeOf("GET /a/b", 1));
  assert.equal(lookup(router, "GET /a/b")?.name, "GET /a/b");
});

Deno.test("a later batch wins over path specificity, a specific method and more conditions; the earlier one keeps the rest", () => {
  const router = new Router<Route>();
  router.add(routeOf({ method: "GET", path: "/orders", query_params: { status: "open" } }, 0, "baseline query", 0));
  router.add(routeOf("GET /orders/{id}/items", 1, "baseline deep", 0));
  router.add(routeOf("GET /orders/7/items", 2, "baseline static", 0));
  const override = routeOf("GET /orders", 0, "override", 1);
  const catchAll = routeOf("ANY /orders/{rest*}", 1, "override catch-all", 1);
  router.add(override);
  router.add(catchAll);
  assert.equal(lookup(router, "GET /orders?status=open")?.name, "override");
  assert.deepEqual(lookup(router, "GET /orders/7/items"), { name: "override catch-all", values: ["7/items"] });
  // Within the later batch, specificity still decides; an earlier batch answers what the later one does not match.
  const one = routeOf("GET /orders/{id}", 2, "override one", 1);
  router.add(one);
  assert.deepEqual(lookup(router, "GET /orders/7"), { name: "override one", values: ["7"] });
  assert.equal(lookup(router, "POST /orders?status=open"), undefined);
  router.add(routeOf("POST /other", 0, "unrelated", 2));
  assert.deepEqual(lookup(router, "GET /orders/7"), { name: "override one", values: ["7"] });
  // Removing the overrides gives the baseline back, most specific first.
  for (const route of [override, catchAll, one]) assert.ok(router.remove(route));
  assert.equal(lookup(router, "GET /orders?status=open")?.name, "baseline query");
  assert.equal(lookup(router, "GET /orders/7/items")?.name, "baseline static");
  assert.equal(lookup(router, "GET /orders/8/items")?.name, "baseline deep");
});

Deno.test("500 batches of 20 stubs: each request finds its own batch's stub, and the latest batch overrides them all", () => {
  const router = new Router<Route>();
  router.add(routeOf("GET /t/{n}/users/{i}/{id}", 0, "baseline", 0));
  for (let batch = 1; batch <= 500; batch++) {
    for (let i = 0; i < 20; i++) router.add(routeOf(`GET /t/${batch}/users/${i}/{id}`, i, `${batch}.${i}`, batch));
  }
  for (const batch of [1, 250, 500]) {
    assert.deepEqual(lookup(router, `GET /t/${batch}/users/3/42`), { name: `${batch}.3`, values: ["42"] });
  }
  assert.deepEqual(lookup(router, "GET /t/9/users/20/42"), { name: "baseline", values: ["9", "20", "42"] });
  const last = routeOf("GET /t/{n}/users/{i}/{id}", 0, "latest", 501);
  router.add(last);
  assert.deepEqual(lookup(router, "GET /t/1/users/3/42"), { name: "latest", values: ["1", "3", "42"] });
  router.remove(last);
  assert.deepEqual(lookup(router, "GET /t/1/users/3/42"), { name: "1.3", values: ["42"] });
});

Deno.test("a HEAD stub answers HEAD before a GET stub of a later batch", () => {
  const router = new Router<Route>();
  router.add(routeOf("HEAD /h", 0, "head", 0));
  router.add(routeOf("GET /h", 0, "get", 1));
  assert.equal(lookup(router, "HEAD /h")?.name, "head");
  assert.equal(lookup(router, "GET /h")?.name, "get");
});

Deno.test("methods have separate tries; request methods are case-sensitive", () => {
  const router = routerOf("GET /a", "POST /a");
  assert.equal(lookup(router, "GET /a")?.name, "GET /a");
  assert.equal(lookup(router, "POST /a")?.name, "POST /a");
  assert.equal(lookup(router, "PUT /a"), undefined);
  assert.equal(lookup(router, "get /a"), undefined);
  assert.equal(lookup(router, "BREW /a"), undefined);
});

// --- backtracking --------------------------------------------------------------------

Deno.test("backtracking: a static branch that dead-ends falls back to the placeholder", () => {
  const router = routerOf("GET /a/b/c", "GET /a/{x}/d");
  assert.deepEqual(lookup(router, "GET /a/b/d"), { name: "GET /a/{x}/d", values: ["b"] });
  assert.deepEqual(lookup(router, "GET /a/b/c"), { name: "GET /a/b/c", values: [] });
});

Deno.test("backtracking: several levels up, with no stale captures from the dead branch", () => {
  const router = routerOf("GET /a/b/{x}/z", "GET /{p}/b/c/d");
  assert.deepEqual(lookup(router, "GET /a/b/c/d"), { name: "GET /{p}/b/c/d", values: ["a"] });
  assert.deepEqual(lookup(router, "GET /a/b/c/z"), { name: "GET /a/b/{x}/z", values: ["c"] });
});

Deno.test("backtracking between two placeholder branches keeps captures in order", () => {
  const router = routerOf("GET /{c}/y/z", "GET /{a}/{b}/x");
  assert.deepEqual(lookup(router, "GET /1/y/z"), { name: "GET /{c}/y/z", values: ["1"] });
  assert.deepEqual(lookup(router, "GET /1/y/x"), { name: "GET /{a}/{b}/x", values: ["1", "y"] });
});

Deno.test("backtracking: a static branch whose stub fails its query falls back to the placeholder", () => {
  const router = routerOf("GET /a/b?x=1", "GET /a/{y}");
  assert.deepEqual(lookup(router, "GET /a/b?x=1"), { name: "GET /a/b?x=1", values: [] });
  assert.deepEqual(lookup(router, "GET /a/b"), { name: "GET /a/{y}", values: ["b"] });
  assert.deepEqual(lookup(router, "GET /a/b?x=2"), { name: "GET /a/{y}", values: ["b"] });
});

Deno.test("no match when every branch dead-ends", () => {
  const router = routerOf("GET /a/b/c", "GET /a/{x}/d");
  assert.equal(lookup(router, "GET /a/b/e"), undefined);
  assert.equal(lookup(router, "GET /a/b"), undefined);
  assert.equal(lookup(router, "GET /a/b/c/d"), undefined);
});

// --- segments -----------------------------------------------------------------

Deno.test("a placeholder never matches an empty segment", () => {
  const router = routerOf("GET /users/{id}", "GET /{a}/x");
  assert.equal(lookup(router, "GET /users/"), undefined);
  assert.equal(lookup(router, "GET //x"), undefined);
  assert.deepEqual(lookup(router, "GET /users/7"), { name: "GET /users/{id}", values: ["7"] });
});

Deno.test("a placeholder matches exactly one segment", () => {
  const router = routerOf("GET /files/{name}");
  assert.equal(lookup(router, "GET /files/a/b"), undefined);
  assert.equal(lookup(router, "GET /files"), undefined);
});

Deno.test("a trailing slash is significant", () => {
  const router = routerOf("GET /a", "GET /b/");
  assert.equal(lookup(router, "GET /a")?.name, "GET /a");
  assert.equal(lookup(router, "GET /a/"), undefined);
  assert.equal(lookup(router, "GET /b/")?.name, "GET /b/");
  assert.equal(lookup(router, "GET /b"), undefined);
});

Deno.test("the root path", () => {
  const router = routerOf("GET /", "GET /{x}");
  assert.deepEqual(lookup(router, "GET /"), { name: "GET /", values: [] });
  assert.deepEqual(lookup(router, "GET /a"), { name: "GET /{x}", values: ["a"] });
});

Deno.test("segments are compared percent-decoded, in stub and request alike", () => {
  const router = routerOf("GET /caf%C3%A9/{id}");
  assert.deepEqual(lookup(router, "GET /café/a%20b"), { name: "GET /caf%C3%A9/{id}", values: ["a b"] });
  assert.deepEqual(lookup(router, "GET /caf%c3%a9/x"), { name: "GET /caf%C3%A9/{id}", values: ["x"] });
});

Deno.test("an encoded slash is part of one segment and is captured decoded", () => {
  const router = routerOf("GET /files/{name}", "GET /files/{dir}/{name}");
  assert.deepEqual(lookup(router, "GET /files/a%2Fb"), { name: "GET /files/{name}", values: ["a/b"] });
  assert.deepEqual(lookup(router, "GET /files/a/b"), { name: "GET /files/{dir}/{name}", values: ["a", "b"] });
});

Deno.test("a malformed escape matches itself as written", () => {
  const router = routerOf("GET /100%zz/{x}");
  assert.deepEqual(lookup(router, "GET /100%zz/%zz"), { name: "GET /100%zz/{x}", values: ["%zz"] });
});

Deno.test("regression: a validated stub at /files/a%2Fb was routed as /files/a/b (and /%7Bid%7D as a catch-all)", () => {
  const router = new Router<Route>();
  ["/files/a%2Fb", "/%7Bid%7D"].forEach((path, order) => router.add(routeOf({ method: "GET", path }, order, path)));
  assert.equal(lookup(router, "GET /files/a%2Fb")?.name, "/files/a%2Fb");
  assert.equal(lookup(router, "GET /files/a/b"), undefined);
  assert.equal(lookup(router, "GET /%7Bid%7D")?.name, "/%7Bid%7D");
  assert.equal(lookup(router, "GET /anything"), undefined);
});

// --- query -------------------------------------------------------------

Deno.test("query literal: the value must equal one of the request's values", () => {
  const router = routerOf("GET /s?sort=asc");
  assert.equal(lookup(router, "GET /s?sort=asc")?.name, "GET /s?sort=asc");
  assert.equal(lookup(router, "GET /s?sort=desc&sort=asc")?.name, "GET /s?sort=asc");
  assert.equal(lookup(router, "GET /s?sort=desc"), undefined);
  assert.equal(lookup(router, "GET /s?sort=ASC"), undefined);
  assert.equal(lookup(router, "GET /s?sort="), undefined);
  assert.equal(lookup(router, "GET /s"), undefined);
});

Deno.test("query capture: requires the key and takes its first value", () => {
  const router = routerOf("GET /s?q={term}");
  assert.deepEqual(lookup(router, "GET /s?q=shoes"), { name: "GET /s?q={term}", values: ["shoes"] });
  assert.deepEqual(lookup(router, "GET /s?q=1&q=2"), { name: "GET /s?q={term}", values: ["1"] });
  assert.deepEqual(lookup(router, "GET /s?q="), { name: "GET /s?q={term}", values: [""] });
  assert.equal(lookup(router, "GET /s?Q=1"), undefined);
  assert.equal(lookup(router, "GET /s"), undefined);
});

Deno.test("query values are form-decoded before comparing and capturing", () => {
  const router = routerOf("GET /s?q={term}", "GET /t?name=a+b");
  assert.deepEqual(lookup(router, "GET /s?q=a+b%21"), { name: "GET /s?q={term}", values: ["a b!"] });
  assert.equal(lookup(router, "GET /t?name=a%20b")?.name, "GET /t?name=a+b");
});

Deno.test("extra query parameters in the request are allowed", () => {
  const router = routerOf("GET /s?sort=asc&q={q}");
  assert.deepEqual(lookup(router, "GET /s?page=2&q=x&sort=asc&debug"), {
    name: "GET /s?sort=asc&q={q}",
    values: ["x"],
  });
});

Deno.test("a stub with no query part matches whatever the query string", () => {
  const router = routerOf("GET /s");
  assert.equal(lookup(router, "GET /s?anything=1&x")?.name, "GET /s");
  assert.equal(lookup(router, "GET /s?%zz=%")?.name, "GET /s");
});

Deno.test("capture values: path placeholders in order, then query captures in the stub's order", () => {
  const router = routerOf("GET /u/{id}/p/{pid}?x={x}&kind=book&y={y}");
  assert.deepEqual(lookup(router, "GET /u/1/p/2?y=Y&kind=book&x=X"), {
    name: "GET /u/{id}/p/{pid}?x={x}&kind=book&y={y}",
    values: ["1", "2", "X", "Y"],
  });
});

Deno.test("a failed query check leaves no captures behind for the next candidate", () => {
  const router = routerOf("GET /s/{a}?x={x}&need=1", "GET /s/{b}?y={y}");
  assert.deepEqual(lookup(router, "GET /s/v?x=X&y=Y"), { name: "GET /s/{b}?y={y}", values: ["v", "Y"] });
});

// --- scale ---------------------------------------------------------------------------

Deno.test("a lookup among 10,000 stubs returns the right stub", () => {
  const specs: string[] = [];
  for (let i = 0; i < 10_000; i++) specs.push(i % 2 ? `GET /s${i}/{id}` : `GET /s${i}/x`);
  const router = routerOf(...specs);
  assert.deepEqual(lookup(router, "GET /s9999/42"), { name: "GET /s9999/{id}", values: ["42"] });
  assert.deepEqual(lookup(router, "GET /s0/x"), { name: "GET /s0/x", values: [] });
  assert.deepEqual(lookup(router, "GET /s5000/x"), { name: "GET /s5000/x", values: [] });
  assert.equal(lookup(router, "GET /s5000/y"), undefined);
  assert.equal(lookup(router, "GET /s10000/x"), undefined);
});

Deno.test("10,000 query variants of one path: each request finds its own", () => {
  const router = routerOf(...Array.from({ length: 10_000 }, (_, i) => `GET /search?q=v${i}`), "GET /search");
  assert.equal(lookup(router, "GET /search?q=v9999")?.name, "GET /search?q=v9999");
  assert.equal(lookup(router, "GET /search?q=v0")?.name, "GET /search?q=v0");
  assert.equal(lookup(router, "GET /search?q=other")?.name, "GET /search");
});

Deno.test("stubs added out of declaration order keep precedence (insertion replaced a sort per add, which was O(n² log n))", () => {
  const router = new Router<Route>();
  // Interleave stubs with and without query, added out of declaration order.
  const orders = [7, 2, 9, 0, 5, 4, 8, 1, 6, 3];
  for (const order of orders) router.add(routeOf(order % 2 ? `GET /p?k=${order}` : "GET /p", order));
  // Required query first, then declaration order: k=1 wins for a request carrying every k.
  assert.equal(lookup(router, "GET /p?k=1&k=3&k=5&k=7&k=9")?.name, "GET /p?k=1");
  assert.equal(lookup(router, "GET /p?k=9")?.name, "GET /p?k=9");
  // Without a matching query, the earliest plain stub (order 0) answers.
  const match = router.match(viewOf("GET /p"));
  assert.equal(match !== NEED_BODY && match?.route.order, 0);
});

// --- nearMisses -----------------------------------------------------------

Deno.test("nearMisses: method differs", () => {
  const router = routerOf("POST /users/{id}", "GET /users/{id}/orders");
  assert.deepEqual(misses(router, "GET /users/1"), ["POST /users/{id}: method differs (stub is POST)"]);
});

Deno.test("nearMisses: a method no stub can have lists the stubs of that path", () => {
  const router = routerOf("GET /a", "DELETE /a");
  assert.deepEqual(misses(router, "BREW /a"), [
    "GET /a: method differs (stub is GET)",
    "DELETE /a: method differs (stub is DELETE)",
  ]);
});

Deno.test("nearMisses: one segment differs, numbered from 1, with what the request had and the stub has", () => {
  const router = routerOf("GET /api/v1/users", "GET /users/{id}/orders");
  assert.deepEqual(misses(router, "GET /api/v2/users"), ["GET /api/v1/users: segment 2 is 'v2', stub has 'v1'"]);
  assert.deepEqual(misses(router, "GET /users/1/invoices"), [
    "GET /users/{id}/orders: segment 3 is 'invoices', stub has 'orders'",
  ]);
  assert.deepEqual(misses(router, "GET /people/1/orders"), [
    "GET /users/{id}/orders: segment 1 is 'people', stub has 'users'",
  ]);
});

Deno.test("nearMisses: quoted values are decoded, cut at 40 characters, and JSON-escaped when they hold a quote or control character", () => {
  const router = routerOf("GET /a/b", "GET /list?sort=asc");
  assert.deepEqual(misses(router, "GET /a/it's"), [`GET /a/b: segment 2 is "it's", stub has 'b'`]);
  assert.deepEqual(misses(router, "GET /a/x%0Ay"), [`GET /a/b: segment 2 is "x\\ny", stub has 'b'`]);
  assert.deepEqual(misses(router, `GET /a/${"z".repeat(100)}`), [
    `GET /a/b: segment 2 is '${"z".repeat(39)}…', stub has 'b'`,
  ]);
  assert.deepEqual(misses(router, "GET /list?sort=a%20b&sort=c"), [
    "GET /list?sort=asc: query parameter 'sort' is 'a b' (and 1 more), stub wants 'asc'",
  ]);
});

Deno.test("nearMisses: an empty segment where a placeholder stands is a differing segment", () => {
  const router = routerOf("GET /users/{id}/orders");
  assert.deepEqual(misses(router, "GET /users//orders"), [
    "GET /users/{id}/orders: segment 2 is empty, stub has '{id}'",
  ]);
});

Deno.test("nearMisses: two differing segments are not a near miss", () => {
  const router = routerOf("GET /api/v1/users");
  assert.deepEqual(misses(router, "GET /api/v2/people"), []);
  assert.deepEqual(misses(router, "GET /completely/different/thing"), []);
});

Deno.test("regression: a one-segment path was a 'segment 1 differs' near miss of every one-segment stub", () => {
  const router = routerOf("GET /search", "GET /items/");
  assert.deepEqual(misses(router, "GET /items"), ["GET /items/: trailing slash (stub has one)"]);
  assert.deepEqual(misses(router, "GET /other"), []);
  assert.deepEqual(misses(routerOf("GET /a"), "GET /"), []);
});

Deno.test("nearMisses: missing query parameter", () => {
  const router = routerOf("GET /search?q={term}");
  assert.deepEqual(misses(router, "GET /search?page=1"), ["GET /search?q={term}: missing query parameter 'q'"]);
  assert.deepEqual(misses(router, "GET /search"), ["GET /search?q={term}: missing query parameter 'q'"]);
});

Deno.test("nearMisses: query parameter differs", () => {
  const router = routerOf("GET /list?sort=asc");
  assert.deepEqual(misses(router, "GET /list?sort=desc"), [
    "GET /list?sort=asc: query parameter 'sort' is 'desc', stub wants 'asc'",
  ]);
});

Deno.test("nearMisses: the first failing query check is the reason", () => {
  const router = routerOf("GET /s?a=1&b={b}");
  assert.deepEqual(misses(router, "GET /s?a=2"), ["GET /s?a=1&b={b}: query parameter 'a' is '2', stub wants '1'"]);
  assert.deepEqual(misses(router, "GET /s?a=1"), ["GET /s?a=1&b={b}: missing query parameter 'b'"]);
});

Deno.test("nearMisses: trailing slash, both ways", () => {
  assert.deepEqual(misses(routerOf("GET /items/"), "GET /items"), ["GET /items/: trailing slash (stub has one)"]);
  assert.deepEqual(misses(routerOf("GET /items"), "GET /items/"), ["GET /items: trailing slash (stub has none)"]);
  assert.deepEqual(misses(routerOf("GET /a/{id}"), "GET /a/7/"), ["GET /a/{id}: trailing slash (stub has none)"]);
});

Deno.test("nearMisses: closest first — query, then method, then trailing slash, then segment", () => {
  // Declared in the reverse of the expected order, so declaration order cannot explain it.
  const router = routerOf("GET /p/z", "GET /p/q/", "POST /p/q", "GET /p/{v}?k=1");
  assert.deepEqual(misses(router, "GET /p/q", 4), [
    "GET /p/{v}?k=1: missing query parameter 'k'",
    "POST /p/q: method differs (stub is POST)",
    "GET /p/q/: trailing slash (stub has one)",
    "GET /p/z: segment 2 is 'q', stub has 'z'",
  ]);
});

Deno.test("nearMisses: at most 3 by default, the closest kept", () => {
  const router = routerOf("GET /p/z", "GET /p/q/", "POST /p/q", "GET /p/{v}?k=1");
  assert.deepEqual(misses(router, "GET /p/q"), [
    "GET /p/{v}?k=1: missing query parameter 'k'",
    "POST /p/q: method differs (stub is POST)",
    "GET /p/q/: trailing slash (stub has one)",
  ]);
  assert.deepEqual(misses(router, "GET /p/q", 1), ["GET /p/{v}?k=1: missing query parameter 'k'"]);
  const methods = routerOf("POST /x", "PUT /x", "PATCH /x", "DELETE /x");
  assert.deepEqual(misses(methods, "GET /x"), [
    "POST /x: method differs (stub is POST)",
    "PUT /x: method differs (stub is PUT)",
    "PATCH /x: method differs (stub is PATCH)",
  ]);
});

Deno.test("nearMisses: each stub is listed once", () => {
  const router = routerOf("GET /a/{x}?k=1", "GET /a/b?j=1", "GET /{y}/b?k=2", "POST /a/b", "POST /a/{z}");
  const found = misses(router, "GET /a/b", 10);
  assert.deepEqual(found, [
    "GET /a/b?j=1: missing query parameter 'j'",
    "GET /a/{x}?k=1: missing query parameter 'k'",
    "GET /{y}/b?k=2: missing query parameter 'k'",
    "POST /a/b: method differs (stub is POST)",
    "POST /a/{z}: method differs (stub is POST)",
  ]);
  assert.equal(new Set(found.map((line) => line.split(":")[0])).size, found.length);
});

Deno.test("nearMisses: nothing near", () => {
  const router = routerOf("GET /users/{id}/orders", "POST /login");
  assert.deepEqual(misses(router, "GET /completely/different/thing/here"), []);
  assert.deepEqual(misses(new Router<Route>(), "GET /a"), []);
});

Deno.test("nearMisses: bounded work with 10,000 static siblings still finds the near misses", () => {
  const router = routerOf(...Array.from({ length: 10_000 }, (_, i) => `GET /s${i}/x`));
  assert.deepEqual(misses(router, "GET /q/x"), [
    "GET /s0/x: segment 1 is 'q', stub has 's0'",
    "GET /s1/x: segment 1 is 'q', stub has 's1'",
    "GET /s2/x: segment 1 is 'q', stub has 's2'",
  ]);
  assert.deepEqual(misses(router, "GET /s9999/y"), ["GET /s9999/x: segment 2 is 'y', stub has 'x'"]);
  assert.deepEqual(misses(router, "GET /s9999/x/"), ["GET /s9999/x: trailing slash (stub has none)"]);
  assert.deepEqual(misses(router, "POST /s7777/x"), ["GET /s7777/x: method differs (stub is GET)"]);
  assert.deepEqual(misses(router, "GET /q/y"), []);
});

// --- path-only stubs as leaves of the trie --------------------------------------------

Deno.test("a path-only stub and a query stub on the same path: the query stub first, declared before or after", () => {
  for (const stubs of [["GET /a/b", "GET /a/b?q=1"], ["GET /a/b?q=1", "GET /a/b"]]) {
    const router = routerOf(...stubs);
    for (const lookUp of [lookup]) {
      assert.equal(lookUp(router, "GET /a/b?q=1")?.name, "GET /a/b?q=1", `${stubs} ${lookUp.name}`);
      assert.equal(lookUp(router, "GET /a/b?q=2")?.name, "GET /a/b", `${stubs} ${lookUp.name}`);
      assert.equal(lookUp(router, "GET /a/b")?.name, "GET /a/b", `${stubs} ${lookUp.name}`);
    }
  }
});

Deno.test("a path-only stub answers its path percent-encoded, and the first declared of duplicates wins", () => {
  const router = routerOf("GET /a/b", "GET /a/{x}", "GET /a/b", "GET /c%2Fd");
  for (const lookUp of [lookup]) {
    assert.deepEqual(lookUp(router, "GET /a/%62"), { name: "GET /a/b", values: [] }, lookUp.name);
    assert.deepEqual(lookUp(router, "GET /a/c"), { name: "GET /a/{x}", values: ["c"] }, lookUp.name);
    assert.deepEqual(lookUp(router, "GET /c%2fd"), { name: "GET /c%2Fd", values: [] }, lookUp.name);
    assert.equal(lookUp(router, "GET /c/d"), undefined, lookUp.name);
  }
  // Near misses still see every stub, the later duplicate too.
  assert.deepEqual(misses(routerOf("GET /a/b", "GET /a/b"), "GET /a/b/"), [
    "GET /a/b: trailing slash (stub has none)",
    "GET /a/b: trailing slash (stub has none)",
  ]);
});

Deno.test("a {name**} catch-all also takes nothing: /{all**} answers /, and /api/{rest**} answers /api/ but not /api", () => {
  const router = routerOf("GET /{all**}", "GET /api/{rest**}");
  assert.deepEqual(lookup(router, "GET /"), { name: "GET /{all**}", values: [""] });
  assert.deepEqual(lookup(router, "GET /a"), { name: "GET /{all**}", values: ["a"] });
  assert.deepEqual(lookup(router, "GET /a/b%20c?x=1"), { name: "GET /{all**}", values: ["a/b c"] });
  assert.deepEqual(lookup(router, "GET /api/"), { name: "GET /api/{rest**}", values: [""] });
  assert.deepEqual(lookup(router, "GET /api/x/y"), { name: "GET /api/{rest**}", values: ["x/y"] });
  assert.deepEqual(lookup(router, "GET /api"), { name: "GET /{all**}", values: ["api"] });
  // {name*} still needs one character.
  assert.equal(lookup(routerOf("GET /{all*}"), "GET /"), undefined);
});

Deno.test("specificity: static, then {name}, then {name*}, then {name**}", () => {
  const router = routerOf("GET /{all**}", "GET /{rest*}", "GET /{one}", "GET /x");
  assert.equal(lookup(router, "GET /x")?.name, "GET /x");
  assert.equal(lookup(router, "GET /y")?.name, "GET /{one}");
  assert.equal(lookup(router, "GET /y/z")?.name, "GET /{rest*}");
  assert.equal(lookup(router, "GET /")?.name, "GET /{all**}");
  // A higher priority beats specificity; a later batch too.
  const high = new Router<Route>();
  high.add(routeOf("GET /x", 0));
  high.add(routeOf({ method: "GET", path: "/{all**}", priority: 1 }, 1, "high catch-all"));
  assert.equal(lookup(high, "GET /x")?.name, "high catch-all");
  const later = new Router<Route>();
  later.add(routeOf("GET /x", 0, "first", 0));
  later.add(routeOf("GET /{all**}", 0, "later catch-all", 1));
  assert.equal(lookup(later, "GET /x")?.name, "later catch-all");
  assert.equal(lookup(later, "GET /")?.name, "later catch-all");
});

Deno.test("near misses and allowed methods see a {name**} stub at /", () => {
  const router = routerOf("POST /{all**}");
  assert.deepEqual(router.methodsFor(viewOf("GET /"), ["GET", "POST"]), ["POST"]);
  const misses = router.nearMisses(viewOf("GET /"));
  assert.notEqual(misses, NEED_BODY);
  assert.deepEqual((misses as { reason: string }[]).map((m) => m.reason), ["method differs (stub is POST)"]);
});
