// The live dashboard at GET /__stubtool__/: the page and its headers, over both adapters.
// What it looks like and does in a browser: tests/browser/dashboard_test.ts.
import assert from "node:assert/strict";
import { get } from "../mod.ts";
import { _RENDERERS, dashboardPage } from "../src/report/dashboard.ts";
import { send, serverTest } from "./_http.ts";

const EMPTY = {
  summary: { total_stubs: 0, matched_stubs: 0, unmatched_requests: 0 },
  stubs: [],
  unused_stubs: [],
  unmatched_requests: [],
};

Deno.test("dashboardPage: one refresh script, allowed by a fresh nonce in the CSP; nothing else may run", () => {
  const page = dashboardPage(EMPTY, { capacity: 500, total: 0, requests: [] });
  const headers = new Headers(page.headers);
  assert.equal(headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(headers.get("cache-control"), "no-store");
  const csp = headers.get("content-security-policy")!;
  const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  assert.ok(nonce && nonce.length >= 22, csp);
  assert.match(csp, /^default-src 'none'; /);
  assert.match(csp, /connect-src 'self'/);
  assert.equal([...page.html.matchAll(/<script/g)].length, 1);
  assert.ok(page.html.includes(`<script nonce="${nonce}">`));
  assert.ok(page.html.includes(`<style nonce="${nonce}">`));
  assert.doesNotMatch(page.html, /http-equiv="Content-Security-Policy"/, "the header carries the policy");
  assert.match(page.html, /<title>stubtool dashboard: 0\/0 stubs exercised<\/title>/);
  assert.match(page.html, /<button type="button" id="live-pause" aria-pressed="false">Pause updates<\/button>/);
  const again = dashboardPage(EMPTY, { capacity: 500, total: 0, requests: [] });
  assert.notEqual(new Headers(again.headers).get("content-security-policy"), csp, "a new nonce per page");
});

Deno.test("dashboardPage: the script touches no runtime API and no external URL", () => {
  const { html } = dashboardPage(EMPTY, { capacity: 500, total: 0, requests: [] });
  const script = /<script[^>]*>([\s\S]*)<\/script>/.exec(html)![1];
  assert.doesNotMatch(script, /\bDeno\b|\bprocess\b|\brequire\(|https?:/);
  assert.match(script, /fetch\(base \+ endpoint/);
  assert.doesNotMatch(script, /DOMParser/, "a parsed page's nonce-tagged <style> is a CSP violation in Chromium");
});

Deno.test("dashboardPage: the script renders polled JSON exactly as the server renders the page", () => {
  const report = {
    summary: { total_stubs: 2, matched_stubs: 1, unmatched_requests: 2 },
    stubs: [
      { method: "GET", path: "/users/{id}", hit_count: 3 },
      { method: "GET", path: "/search", query_params: { q: "{term}" }, hit_count: 0 },
    ],
    unused_stubs: [{ method: "GET", path: "/search", query_params: { q: "{term}" } }],
    unmatched_requests: [
      { method: "GET", path: "/<b>", timestamp: "2026-01-02T03:04:05.678Z" },
      {
        method: "PUT",
        path: "/users/1",
        query: "a=1",
        timestamp: "2026-01-02T03:04:06.000Z",
        closest: [{ method: "GET", path: "/users/{id}", reason: "method differs (stub is GET)" }],
      },
    ],
    scenarios: [{ name: "cart", transitions: [{ from: "Started", to: "full", stub: "add", taken: 0 }] }],
    violations: [
      { operation: "POST /pets", location: "body.name", message: "must have required property 'name'", count: 3 },
      { operation: "GET /me", location: "security", message: "no credentials (<Bearer>)", count: 1 },
    ],
  };
  const journal = {
    capacity: 500,
    total: 5,
    requests: [
      {
        time: "2026-01-02T03:04:05.000Z",
        method: "GET",
        target: "/users/1",
        status: 200,
        stub: "GET /users/{id}",
        duration_ms: 0,
      },
      { time: "2026-01-02T03:04:05.678Z", method: "GET", target: "/<b>", status: 404, closest: [], duration_ms: 1.25 },
    ],
  };
  const stubs = [{ id: "stub-1", source: "api", scenario: "cart", when_state: "Started" }];
  const states = [{ name: "cart", state: "Started" }];
  const { html } = dashboardPage(report, journal, { stubs, states });
  assert.ok(html.includes(_RENDERERS), "the page ships the renderers");
  // The renderers alone, with no DOM: every helper they call must be among them.
  const sections = new Function(`${_RENDERERS}\nreturn sections;`)() as (
    r: unknown,
    j: unknown,
    e: unknown,
  ) => [string, string][];
  const rendered = sections(report, journal, { stubs, states, live: true });
  assert.deepEqual(rendered.map(([key]) => key), [
    "coverage",
    "stubs",
    "scenarios",
    "unmatched",
    "violations",
    "journal",
  ]);
  for (const [key, markup] of rendered) assert.ok(html.includes(markup), `${key}: the same markup as the served page`);
  assert.match(rendered[2][1], /<span class="tag">never taken<\/span>/);
  assert.match(rendered[2][1], /<g class="flow-node current" data-state="Started" data-current="now">/);
  assert.match(rendered[1][1], /<input type="search" id="stubs-filter"/);
  assert.match(rendered[4][1], /<caption id="violations-table-caption">4 violations of the OpenAPI spec/);
  assert.match(
    rendered[4][1],
    /<tr><th scope="row"><code>GET \/me<\/code><\/th><td><code>security<\/code><\/td><td>no credentials \(&lt;Bearer&gt;\)<\/td><td class="num">1<\/td><\/tr>/,
  );
  const { violations: _, ...unchecked } = report;
  assert.match(sections(unchecked, journal, {})[4][1], /^<section id="violations" [^>]*hidden>/);
  assert.match(sections({ ...report, violations: [] }, journal, {})[4][1], /None: every request the spec's/);
  const off = sections(report, { capacity: 0, total: 0, requests: [] }, {});
  assert.match(off[5][1], /The request journal is off/);
  assert.doesNotMatch(off[0][1], /stat-requests/);
});

serverTest("GET /__stubtool__/ serves the dashboard page with the current numbers", async (server) => {
  server.routes(get("/users/{id}").body({}), get("/unused").status(204));
  await send(server, "GET", "/users/1");
  await send(server, "GET", "/users/1/orders");
  const answer = await send(server, "GET", "/__stubtool__/");
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("content-type"), "text/html; charset=utf-8");
  assert.match(answer.headers.get("content-security-policy")!, /script-src 'nonce-/);
  assert.match(answer.text, /<strong>1 of 2<\/strong> stubs exercised \(50%\)/);
  assert.match(answer.text, /<dd id="stat-unmatched">1<\/dd>/);
  assert.match(answer.text, /<dd id="stat-requests">2<\/dd>/);
  assert.match(answer.text, /<code>\/users\/1\/orders<\/code>/);
  // Loading the page is not a request the report or the journal counts.
  assert.equal((await server.journal()).total, 2);
  assert.equal((await server.report()).summary.unmatched_requests, 1);
});

serverTest("GET /__stubtool__/ with journalSize 0 says the journal is off", async (server) => {
  const answer = await send(server, "GET", "/__stubtool__/");
  assert.match(answer.text, /The request journal is off/);
}, { journalSize: 0 });

serverTest(
  "/__stubtool__/ answers HEAD without a body, other methods with 405; GET /__stubtool__ redirects to it",
  async (server) => {
    const headAnswer = await send(server, "HEAD", "/__stubtool__/");
    assert.equal(headAnswer.status, 200);
    assert.equal(headAnswer.text, "");
    assert.equal(headAnswer.headers.get("content-type"), "text/html; charset=utf-8");
    const posted = await send(server, "POST", "/__stubtool__/");
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get("allow"), "GET, HEAD");
    // `/__stubtool__` without the slash is where a user typing the address lands: the dashboard.
    const bare = await fetch(`${server.url}/__stubtool__`, { redirect: "manual" });
    await bare.body?.cancel();
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.get("location"), "/__stubtool__/");
    assert.equal((await send(server, "GET", "/__stubtool__")).headers.get("content-type"), "text/html; charset=utf-8");
    const other = await send(server, "POST", "/__stubtool__");
    assert.equal(other.status, 404);
    assert.deepEqual(other.json.endpoints, [
      "GET /__stubtool__/ (dashboard)",
      "GET /__stubtool__/health",
      "GET /__stubtool__/report",
      "GET /__stubtool__/requests",
      "POST /__stubtool__/reset",
      "GET /__stubtool__/stubs",
      "POST /__stubtool__/stubs",
      "DELETE /__stubtool__/stubs[?scope=NAME]",
      "POST /__stubtool__/stubs/reset",
      "GET|PUT|DELETE /__stubtool__/stubs/{id}",
      "POST /__stubtool__/requests/find",
      "GET /__stubtool__/scenarios[?scope=NAME]",
      "GET|PUT /__stubtool__/scenarios/{name}",
      "POST /__stubtool__/scenarios/reset",
      "GET /__stubtool__/callbacks",
    ]);
    assert.equal((await server.report()).summary.unmatched_requests, 0);
  },
);
