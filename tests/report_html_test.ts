// The HTML report page: what it shows, that it loads nothing from anywhere, and that
// every string from a config, a request or a saved report is escaped.
import assert from "node:assert/strict";
import type { JournalSnapshot, Report } from "../mod.ts";
import { renderHtmlReport } from "../src/report/report_html.ts";
import { escapeHtml } from "../src/report/escape.ts";
import { renderReport } from "../src/report/report.ts";

const XSS = "/<script>alert(1)</script>";

function sample(): Report {
  return {
    summary: { total_stubs: 3, matched_stubs: 2, unmatched_requests: 2 },
    stubs: [
      { method: "GET", path: "/users/{id}", hit_count: 3 },
      { method: "GET", path: "/search", hit_count: 1, query_params: { q: "{term}", sort: "asc" } },
      { method: "DELETE", path: "/users/{id}", hit_count: 0 },
    ],
    unused_stubs: [{ method: "DELETE", path: "/users/{id}" }],
    unmatched_requests: [
      { method: "GET", path: "/nope", timestamp: "2026-01-02T03:04:05.000Z" },
      {
        method: "PUT",
        path: "/users",
        query: "force=true",
        timestamp: "2026-01-02T03:04:06.250Z",
        closest: [{ method: "POST", path: "/users", reason: "method differs (stub is POST)" }],
      },
    ],
  };
}

function journal(): JournalSnapshot {
  return {
    capacity: 500,
    total: 2,
    requests: [
      {
        time: "2026-01-02T03:04:04.000Z",
        method: "GET",
        target: "/users/1",
        status: 200,
        stub: "GET /users/{id}",
        duration_ms: 0.42,
      },
      { time: "2026-01-02T03:04:05.000Z", method: "GET", target: "/nope", status: 404, closest: [], duration_ms: 0 },
    ],
  };
}

/** Rows of one table's body, each row's cells as text (tags dropped, entities kept). */
function rows(html: string, id: string): string[][] {
  const table = new RegExp(`<table id="${id}"[^>]*>([\\s\\S]*?)</table>`).exec(html)?.[1];
  assert.ok(table, `no table #${id}`);
  const body = /<tbody[^>]*>([\s\S]*)<\/tbody>/.exec(table)![1];
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map(([, row]) =>
    [...row.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map(([, cell]) =>
      // A request's detail (it opens from the row) holds no div of its own.
      cell.replace(/<div class="detail">[\s\S]*?<\/div>/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim()
    )
  );
}

Deno.test("html: coverage, stub table with unused stubs marked, unmatched newest first with closest, journal", () => {
  const html = renderHtmlReport(sample(), { journal: journal(), generatedAt: "2026-01-02T03:05:00.000Z" });
  assert.match(html, /^<!doctype html>\n<html lang="en">/);
  assert.match(html, /<title>stubtool coverage report: 2\/3 stubs exercised<\/title>/);
  assert.match(html, /<meter id="coverage-meter" min="0" max="3" value="2"/);
  assert.match(html, /<p id="coverage-text"><strong>2 of 3<\/strong> stubs exercised \(66%\)<\/p>/);
  assert.match(html, /<dd id="stat-unmatched">2<\/dd>/);
  assert.match(html, /<dd id="stat-requests">2<\/dd>/);
  assert.deepEqual(rows(html, "stubs-table"), [
    ["1", "", "GET", "/users/{id}", "3"],
    ["2", "", "GET", "/search?q={term}&amp;sort=asc", "1"],
    ["3", "", "DELETE", "/users/{id}", "0 unused"],
  ]);
  assert.equal([...html.matchAll(/<tr class="unused">/g)].length, 1);
  assert.deepEqual(rows(html, "unmatched-table"), [
    ["03:04:06.250", "PUT /users?force=true", "POST /users — method differs (stub is POST)"],
    ["03:04:05.000", "GET /nope", "no stub came close"],
  ]);
  assert.deepEqual(rows(html, "journal-table"), [
    ["03:04:05.000", "GET /nope", "404", "no stub", "&lt;0.1"],
    ["03:04:04.000", "GET /users/1", "200", "GET /users/{id}", "0.4"],
  ]);
  assert.match(html, /<caption id="stubs-table-caption">3 stubs in declaration order; 1 unused stub is highlighted/);
  // Semantic tables: every header cell has a scope, rows are headed by the request or path.
  assert.equal(html.match(/<th(?=[\s>])(?![^>]*scope=)/g), null);
  assert.match(
    html,
    /<th scope="row" role="rowheader" class="c-request"><details class="req" id="miss-1"><summary><span class="method">PUT<\/span>/,
  );
});

Deno.test("html: a path like /<script>alert(1)</script> is text everywhere it appears", () => {
  const report: Report = {
    summary: { total_stubs: 1, matched_stubs: 0, unmatched_requests: 1 },
    stubs: [{ method: "GET", path: XSS, hit_count: 0, query_params: { "<q>": "<v>" } }],
    unused_stubs: [{ method: "GET", path: XSS }],
    unmatched_requests: [{
      method: "<B>",
      path: `/x/<img src=x onerror=alert(2)>`,
      query: `a="><script>alert(3)</script>`,
      timestamp: `" onmouseover="alert(4)`,
      closest: [{ method: "GET", path: XSS, reason: "<u>segment 1 differs</u>" }],
    }],
  };
  const snapshot: JournalSnapshot = {
    capacity: 1,
    total: 1,
    requests: [{
      time: "<i>t</i>",
      method: "GET",
      target: "</script><script>alert(5)</script>",
      status: 404,
      closest: [{ method: "GET", path: XSS, reason: "'quoted' & <b>bold</b>" }],
      duration_ms: 1,
    }],
  };
  const html = renderHtmlReport(report, { journal: snapshot, source: "<evil>.json" });
  assert.doesNotMatch(html, /<script/i, "the static page has no script element at all");
  for (const tag of ["<img", "<u>", "<i>", "<b>", "<B>", "<q>", "<v>", "<evil>"]) {
    assert.ok(!html.includes(tag), `raw ${tag} in the page`);
  }
  assert.ok(html.includes("<code>/&lt;script&gt;alert(1)&lt;/script&gt;?&lt;q&gt;=&lt;v&gt;</code>"));
  assert.ok(html.includes("/x/&lt;img src=x onerror=alert(2)&gt;?a=&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"));
  assert.ok(html.includes('datetime="&quot; onmouseover=&quot;alert(4)"'), "attribute values cannot be closed");
  assert.ok(html.includes("&lt;u&gt;segment 1 differs&lt;/u&gt;"));
  assert.ok(html.includes("&lt;/script&gt;&lt;script&gt;alert(5)&lt;/script&gt;"));
  assert.ok(html.includes("&#39;quoted&#39; &amp; &lt;b&gt;bold&lt;/b&gt;"));
  assert.ok(html.includes("<code>&lt;evil&gt;.json</code>"));
});

Deno.test("html: a hand-edited saved report with odd closest values still renders", () => {
  const report = sample();
  // deno-lint-ignore no-explicit-any
  (report.unmatched_requests[0] as any).closest = "GET /x";
  // deno-lint-ignore no-explicit-any
  (report.unmatched_requests[1] as any).closest = [null, { method: 1, path: ["<a>"], reason: undefined }];
  const html = renderHtmlReport(report);
  assert.match(html, /no stub came close/);
  assert.match(html, /<code>1 &lt;a&gt;<\/code> <span class="muted">— undefined<\/span>/);
});

Deno.test("html: self-contained: loads nothing, and the static page forbids scripts by CSP", () => {
  const html = renderHtmlReport(sample(), { journal: journal() });
  const csp = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/)?.[1];
  assert.equal(
    csp,
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
    "no script-src: default-src 'none' forbids every script",
  );
  assert.equal(html.match(/\ssrc=/g), null, "no src attributes");
  for (const [, href] of html.matchAll(/href="([^"]*)"/g)) {
    assert.match(href, /^(#[a-z]+|data:,)$/, `href ${href}`);
  }
  assert.doesNotMatch(html, /@import|url\(/, "no CSS imports or urls");
});

Deno.test("html: saved reports have no journal, a server with --journal-size 0 says it is off", () => {
  const saved = renderHtmlReport(sample(), { source: "shard-1.json, shard-2.json" });
  assert.match(saved, /Saved reports carry no request journal/);
  assert.match(saved, /from <code>shard-1\.json, shard-2\.json<\/code>/);
  assert.doesNotMatch(saved, /id="stat-requests"/);
  const off = renderHtmlReport(sample(), { journal: { capacity: 0, total: 0, requests: [] } });
  assert.match(off, /The request journal is off \(<code>--journal-size 0<\/code>\)/);
  const empty = renderHtmlReport(sample(), { journal: { capacity: 500, total: 0, requests: [] } });
  assert.match(empty, /No requests yet\./);
});

Deno.test("html: dropped entries are counted in the captions; empty sections say so", () => {
  const report = sample();
  report.summary.unmatched_requests = 1500;
  const html = renderHtmlReport(report, { journal: { ...journal(), capacity: 2, total: 9 } });
  assert.match(html, /newest first \(the newest 2 of 1500; the server keeps --max-unmatched\)/);
  assert.match(html, /The 2 most recent requests, newest first \(9 since start or reset; the journal keeps 2\)/);

  const none: Report = {
    summary: { total_stubs: 0, matched_stubs: 0, unmatched_requests: 0 },
    stubs: [],
    unused_stubs: [],
    unmatched_requests: [],
  };
  const blank = renderHtmlReport(none);
  assert.match(blank, /<meter id="coverage-meter" min="0" max="1" value="0"/);
  assert.match(blank, /<strong>0 of 0<\/strong> stubs exercised \(0%\)/);
  assert.match(blank, /No stubs are defined/);
  assert.match(blank, /None: every request matched a stub\./);
});

Deno.test("renderReport --format html is the static page, with the journal and source passed through", () => {
  const options = { journal: journal(), source: "http://127.0.0.1:8080", generatedAt: "2026-01-02T03:05:00.000Z" };
  const html = renderReport(sample(), { format: "html", ...options });
  assert.equal(html, renderHtmlReport(sample(), options));
  assert.ok(html.endsWith("</html>\n"));
  assert.ok(html.includes('Generated <time datetime="2026-01-02T03:05:00.000Z">2026-01-02 03:05:00 UTC</time> from'));
});

Deno.test("renderHtmlReport with openapi: a drift section (and its nav link) with both lists, escaped", () => {
  const html = renderReport(sample(), {
    format: "html",
    openapi: {
      spec: "api<1>.yaml",
      version: "3.0.3",
      operations: 3,
      uncovered_operations: [{ method: "DELETE", path: "/users/{userId}", operation_id: "deleteUser" }],
      unstubbed_requests: [
        { method: "GET", path: XSS, timestamp: "2026-01-02T03:04:05.000Z", operation: "GET /{any}" },
      ],
    },
  });
  assert.ok(html.includes('<a href="#openapi">OpenAPI drift</a>'));
  assert.ok(html.includes("Against <code>api&lt;1&gt;.yaml</code> (OpenAPI 3.0.3, 3 operations)"));
  assert.ok(html.includes("<code>/users/{userId}</code></th><td><code>deleteUser</code></td>"));
  assert.ok(html.includes(`<code>${escapeHtml(XSS)}</code>`) && !html.includes(XSS));
  assert.ok(html.includes('<td role="cell" class="c-why"><code>GET /{any}</code></td>'));
  // Without --openapi there is no such section.
  const plain = renderReport(sample(), { format: "html" });
  assert.ok(!plain.includes('id="openapi"') && !plain.includes("#openapi"));
});

Deno.test("regression: a page held every 60 KiB target whole (a dashboard of 19 MB); it shows the first 300 characters and how many more", () => {
  const target = "/x/" + "a".repeat(60 * 1024);
  const html = renderHtmlReport(
    {
      summary: { total_stubs: 0, matched_stubs: 0, unmatched_requests: 1 },
      stubs: [],
      unused_stubs: [],
      unmatched_requests: [{ method: "GET", path: target, timestamp: "2026-01-01T00:00:00.000Z" }],
    },
    {
      journal: {
        capacity: 500,
        total: 1,
        requests: [{ time: "2026-01-01T00:00:00.000Z", method: "GET", target, status: 404, duration_ms: 0 }],
      },
    },
  );
  assert.ok(html.length < 20_000, `${html.length} characters`);
  assert.equal(html.split(`${"a".repeat(297)}… (${target.length - 300} more characters)`).length - 1, 2);
});

function withFlows(): Report {
  return {
    ...sample(),
    scenarios: [
      {
        name: "checkout",
        transitions: [
          { from: "Started", to: "has-items", stub: "add-item", taken: 2 },
          { from: "has-items", to: XSS, stub: "pay", taken: 0 },
        ],
      },
      { name: "banner", transitions: [] },
    ],
  };
}

Deno.test("html: a Scenarios section lists every transition, never-taken ones marked, all of it escaped", () => {
  const html = renderHtmlReport(withFlows(), { generatedAt: "2026-01-02T03:05:00.000Z" });
  assert.deepEqual(rows(html, "scenarios-table"), [
    ["checkout", "Started → has-items", "add-item", "2"],
    ["checkout", "has-items → /&lt;script&gt;alert(1)&lt;/script&gt;", "pay", "0 never taken"],
  ]);
  assert.match(
    html,
    /<caption id="scenarios-table-caption">2 declared transitions of 2 scenarios; 1 transition never taken is highlighted<\/caption>/,
  );
  assert.match(html, /<tr class="unused"><th scope="row">checkout<\/th>/);
  assert.doesNotMatch(html, /<script>alert/);
  assert.match(html, /<li><a href="#stubs">Stubs<\/a><\/li><li><a href="#scenarios">Scenarios<\/a><\/li>/);
  // Between the stubs and the unmatched requests.
  assert.ok(html.indexOf('id="stubs"') < html.indexOf('id="scenarios"'));
  assert.ok(html.indexOf('id="scenarios"') < html.indexOf('id="unmatched"'));
});

Deno.test("html: scenarios whose stubs set no state say there are no transitions", () => {
  const html = renderHtmlReport({ ...sample(), scenarios: [{ name: "banner", transitions: [] }] });
  assert.match(
    html,
    /<section id="scenarios" aria-labelledby="scenarios-heading"><h2 id="scenarios-heading">Scenarios<\/h2><p class="muted">1 scenario, but no stub sets a state: there are no transitions to take\.<\/p><\/section>/,
  );
});

Deno.test("html: without scenarios the Scenarios section is an empty hidden placeholder and the nav skips it", () => {
  const html = renderHtmlReport(sample());
  assert.ok(
    html.includes(
      '<section id="scenarios" aria-labelledby="scenarios-heading" hidden><h2 id="scenarios-heading">Scenarios</h2></section>',
    ),
  );
  assert.doesNotMatch(html, /href="#scenarios"/);
  assert.doesNotMatch(html, /scenarios-table/);
});

Deno.test("html: each scenario is an SVG state diagram: states, arrows labelled with stub id and count, never-taken dashed", () => {
  const html = renderHtmlReport({
    ...sample(),
    scenarios: [{
      name: "checkout",
      transitions: [
        { from: "Started", to: "has-items", stub: "add-item", taken: 2 },
        { from: "has-items", to: "paid", stub: "pay", taken: 0 },
        { from: "paid", to: "Started", stub: "clear", taken: 1 },
        { from: "*", to: "<b>gone</b>", stub: "cancel", taken: 0 },
      ],
    }],
  });
  const svg = /<svg class="flow"[\s\S]*?<\/svg>/.exec(html)?.[0];
  assert.ok(svg, "no diagram");
  assert.match(svg, /^<svg class="flow" role="img" /);
  assert.match(
    svg,
    /<title>Scenario checkout: 5 states, 4 transitions \(2 never taken\)<\/title>/,
  );
  assert.deepEqual([...svg.matchAll(/<g class="flow-node[^"]*" data-state="([^"]*)"/g)].map((m) => m[1]), [
    "Started",
    "has-items",
    "paid",
    "*",
    "&lt;b&gt;gone&lt;/b&gt;",
  ]);
  const edges = [
    ...svg.matchAll(
      /<g class="(flow-edge[^"]*)"[^>]*data-stub="([^"]*)" data-taken="(\d+)">[\s\S]*?<path d="[^"]+" fill="none"( stroke-dasharray="5 4")?\/>[\s\S]*?<text[^>]*>([^<]*)<\/text><\/g>/g,
    ),
  ]
    .map((m) => [m[1], m[2], m[3], m[4] ? "dashed" : "solid", m[5]]);
  assert.deepEqual(edges, [
    ["flow-edge", "add-item", "2", "solid", "add-item ×2"],
    ["flow-edge never", "pay", "0", "dashed", "pay ×0"],
    ["flow-edge", "clear", "1", "solid", "clear ×1"],
    ["flow-edge never", "cancel", "0", "dashed", "cancel ×0"],
  ]);
  // The "any state" node reads as such; user strings are escaped; no style attribute (the live page's CSP).
  assert.match(svg, />any state<\/text>/);
  assert.doesNotMatch(svg, /<b>|style=/);
  // A static report knows no current state: nothing is highlighted.
  assert.doesNotMatch(svg, /flow-node current/);
});

Deno.test("html: given the scenarios' states, the diagram highlights the current state per scope", () => {
  const html = renderHtmlReport({
    ...sample(),
    scenarios: [{ name: "checkout", transitions: [{ from: "Started", to: "paid", stub: "pay", taken: 1 }] }],
  }, {
    states: [
      { name: "checkout", state: "paid" },
      { name: "checkout", state: "Started", scope: "worker-2" },
      { name: "other", state: "Started" },
    ],
  });
  assert.deepEqual(
    [...html.matchAll(/<g class="flow-node current" data-state="([^"]*)" data-current="([^"]*)"/g)].map((m) =>
      `${m[1]}: ${m[2]}`
    ),
    [
      "Started: worker-2",
      "paid: now",
    ],
  );
  assert.match(
    html,
    /<title>Scenario checkout: 2 states, 1 transition; now paid, Started \(scope worker-2\)<\/title>/,
  );
});

Deno.test("html: a journal entry's detail shows headers, the body pretty-printed or as hex, and links the stub's row", () => {
  const html = renderHtmlReport({
    ...sample(),
    stubs: [{ id: "get-user", method: "GET", path: "/users/{id}", hit_count: 1 }],
  }, {
    journal: {
      capacity: 10,
      total: 12,
      requests: [
        {
          time: "2026-01-02T03:04:04.000Z",
          method: "POST",
          target: "/users/1",
          status: 200,
          stub: "GET /users/{id}",
          id: "get-user",
          duration_ms: 0,
          headers: { "x-trace": "<t>" },
          body: '{"a":[1]}',
        },
        {
          time: "2026-01-02T03:04:05.000Z",
          method: "PUT",
          target: "/f",
          status: 404,
          closest: [{ method: "GET", path: "/users/{id}", reason: "method differs (stub is GET)", id: "get-user" }],
          duration_ms: 0,
          body_base64: btoa("\x00\x01\xfe"),
        },
      ],
    },
  });
  assert.match(
    html,
    /<tr id="stub-get-user"><td class="num narrow-hide">1<\/td><td class="narrow-hide"><code>get-user<\/code>/,
  );
  const first = /<details class="req" id="req-10">[\s\S]*?<\/details>/.exec(html)?.[0] ?? "";
  assert.match(
    first,
    /<dt>Answered by<\/dt><dd>stub <a href="#stub-get-user"><code>get-user<\/code><\/a> <code>GET \/users\/\{id\}<\/code><\/dd>/,
  );
  assert.match(first, /<dt><code>x-trace<\/code><\/dt><dd><code>&lt;t&gt;<\/code><\/dd>/);
  assert.ok(first.includes("<h4>Body</h4><pre>{\n  &quot;a&quot;: [\n    1\n  ]\n}</pre>"), first);
  const second = /<details class="req" id="req-11">[\s\S]*?<\/details>/.exec(html)?.[0] ?? "";
  assert.match(second, /<p>binary, 3 bytes in hex:<\/p><pre>00 01 fe<\/pre>/);
  assert.match(
    second,
    /no stub; <ul class="closest"><li><a href="#stub-get-user"><code>GET \/users\/\{id\}<\/code><\/a>/,
  );
});

Deno.test("html: a config stub's source is FILE:LINE (its place in the tooltip), escaped; others show their place or source", () => {
  const html = renderHtmlReport({
    ...sample(),
    stubs: [
      { id: "a", method: "GET", path: "/a", hit_count: 1 },
      { id: "b", method: "GET", path: "/b", hit_count: 1 },
      { id: "c", method: "GET", path: "/c", hit_count: 1 },
      { id: "d", method: "GET", path: "/d", hit_count: 1 },
    ],
  }, {
    stubs: [
      { id: "a", source: "config", place: "routes[3] of <x>.yaml", line: 12 },
      // A line without a config place (not one the server makes) is not glued to another kind of place.
      { id: "b", source: "inline", place: "--stub[0]", line: 3 },
      { id: "c", source: "wiremock", place: "m/<u>.json mappings[1]" },
      { id: "d", source: "admin" },
    ],
  });
  const where = [...html.matchAll(/<td class="where narrow-hide">(.*?)<\/td>/g)].map((m) => m[1]);
  assert.deepEqual(where, [
    '<span title="routes[3] of &lt;x&gt;.yaml">&lt;x&gt;.yaml:12</span>',
    "--stub[0]",
    "m/&lt;u&gt;.json mappings[1]",
    "admin",
  ]);
});
