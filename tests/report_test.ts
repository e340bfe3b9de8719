import assert from "node:assert/strict";
import type { OpenApiDrift } from "../src/report/openapi.ts";
import type { Report } from "../src/report/types.ts";
import { checkReport, mergeReports, renderReport, transitionCounts } from "../src/report/report.ts";

function sample(): Report {
  return {
    summary: { total_stubs: 4, matched_stubs: 2, unmatched_requests: 2 },
    stubs: [
      { method: "GET", path: "/users/{id}", hit_count: 3 },
      { method: "GET", path: "/search", hit_count: 0, query_params: { q: "{term}", sort: "asc" } },
      { method: "POST", path: "/orders", hit_count: 1 },
      { method: "DELETE", path: "/users/{id}", hit_count: 0 },
    ],
    unused_stubs: [
      { method: "GET", path: "/search", query_params: { q: "{term}", sort: "asc" } },
      { method: "DELETE", path: "/users/{id}" },
    ],
    unmatched_requests: [
      { method: "GET", path: "/nope", timestamp: "2026-01-02T03:04:05.006Z" },
      { method: "PUT", path: "/users/1", query: "force=true&x=1", timestamp: "2026-01-02T03:04:06.000Z" },
    ],
  };
}

function empty(): Report {
  return {
    summary: { total_stubs: 0, matched_stubs: 0, unmatched_requests: 0 },
    stubs: [],
    unused_stubs: [],
    unmatched_requests: [],
  };
}

Deno.test("renderReport text: header, exercised/total, unmatched count, unused stubs, unmatched requests", () => {
  assert.equal(
    renderReport(sample(), { format: "text" }),
    [
      "stubtool coverage report",
      "Exercised stubs: 2/4",
      "Unmatched requests: 2",
      "Unused stubs:",
      "  GET /search?q={term}&sort=asc",
      "  DELETE /users/{id}",
      "Requests that matched no stub:",
      "  GET /nope [2026-01-02T03:04:05.006Z]",
      "  PUT /users/1?force=true&x=1 [2026-01-02T03:04:06.000Z]",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport text: empty lists say none", () => {
  assert.equal(
    renderReport(empty(), { format: "text" }),
    [
      "stubtool coverage report",
      "Exercised stubs: 0/0",
      "Unmatched requests: 0",
      "Unused stubs: none",
      "Requests that matched no stub: none",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport text: says how many unmatched requests the server did not keep", () => {
  const report = sample();
  report.summary.unmatched_requests = 1002;
  const text = renderReport(report, { format: "text" });
  assert.ok(text.endsWith("\n  ... and 1000 earlier requests not kept (--max-unmatched)\n"), text);
});

Deno.test("renderReport github-summary: heading, counts line, stub table with ✅/❌, unmatched table", () => {
  assert.equal(
    renderReport(sample(), { format: "github-summary" }),
    [
      "## stubtool coverage report",
      "",
      "Exercised stubs: **2/4** · Unmatched requests: **2**",
      "",
      "### Stubs",
      "",
      "| Method | Path | Hits |",
      "| --- | --- | --- |",
      "| GET | `/users/{id}` | ✅ 3 |",
      "| GET | `/search?q={term}&sort=asc` | ❌ 0 |",
      "| POST | `/orders` | ✅ 1 |",
      "| DELETE | `/users/{id}` | ❌ 0 |",
      "",
      "### Unmatched requests",
      "",
      "| Method | Path | Timestamp | Closest stub |",
      "| --- | --- | --- | --- |",
      "| GET | `/nope` | 2026-01-02T03:04:05.006Z | none |",
      "| PUT | `/users/1?force=true&x=1` | 2026-01-02T03:04:06.000Z | none |",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport github-summary: no tables when there is nothing to list", () => {
  assert.equal(
    renderReport(empty(), { format: "github-summary" }),
    [
      "## stubtool coverage report",
      "",
      "Exercised stubs: **0/0** · Unmatched requests: **0**",
      "",
      "### Stubs",
      "",
      "none",
      "",
      "### Unmatched requests",
      "",
      "none",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport github-summary: | and backticks in cells cannot break the table", () => {
  const report = empty();
  report.summary = { total_stubs: 0, matched_stubs: 0, unmatched_requests: 2 };
  report.unmatched_requests = [
    { method: "GET", path: "/a|b", query: "x=`y`", timestamp: "t" },
    { method: "BR|EW", path: "`/tick", timestamp: "2026|01" },
  ];
  const rows = renderReport(report, { format: "github-summary" }).split("\n").filter((l) =>
    l.startsWith("| GET") || l.startsWith("| BR")
  );
  assert.deepEqual(rows, [
    "| GET | `` /a\\|b?x=`y` `` | t | none |",
    "| BR\\|EW | `` `/tick `` | 2026\\|01 | none |",
  ]);
  // Every row still has exactly five unescaped pipes, so GitHub sees four cells.
  for (const row of rows) assert.equal(row.replaceAll("\\|", "").split("|").length - 1, 5, row);
});

/** Unmatched requests with the stubs that came closest, as the server records them. */
function explained(): Report {
  const report = empty();
  report.summary = { total_stubs: 2, matched_stubs: 0, unmatched_requests: 3 };
  report.unmatched_requests = [
    {
      method: "GET",
      path: "/users/1/invoices",
      timestamp: "2026-01-02T03:04:05.006Z",
      closest: [{ method: "GET", path: "/users/{id}/orders", reason: "segment 3 is 'invoices', stub has 'orders'" }],
    },
    {
      method: "GET",
      path: "/search",
      query: "sort=desc",
      timestamp: "2026-01-02T03:04:06.000Z",
      closest: [
        { method: "GET", path: "/search", reason: "query parameter 'sort' is 'desc', stub wants 'asc'" },
        { method: "POST", path: "/search", reason: "method differs (stub is POST)" },
      ],
    },
    { method: "GET", path: "/elsewhere", timestamp: "2026-01-02T03:04:07.000Z" },
  ];
  return report;
}

Deno.test("renderReport text: each unmatched request shows the closest stub and why, one line", () => {
  assert.equal(
    renderReport(explained(), { format: "text" }).split("Requests that matched no stub:\n")[1],
    [
      "  GET /users/1/invoices [2026-01-02T03:04:05.006Z]",
      "    closest: GET /users/{id}/orders (segment 3 is 'invoices', stub has 'orders')",
      "  GET /search?sort=desc [2026-01-02T03:04:06.000Z]",
      "    closest: GET /search (query parameter 'sort' is 'desc', stub wants 'asc') (+1 more)",
      "  GET /elsewhere [2026-01-02T03:04:07.000Z]",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport github-summary: the unmatched table has a Closest stub column", () => {
  const text = renderReport(explained(), { format: "github-summary" });
  assert.equal(
    text.split("### Unmatched requests\n\n")[1],
    [
      "| Method | Path | Timestamp | Closest stub |",
      "| --- | --- | --- | --- |",
      "| GET | `/users/1/invoices` | 2026-01-02T03:04:05.006Z | `GET /users/{id}/orders` (segment 3 is 'invoices', stub has 'orders') |",
      "| GET | `/search?sort=desc` | 2026-01-02T03:04:06.000Z | `GET /search` (query parameter 'sort' is 'desc', stub wants 'asc') +1 more |",
      "| GET | `/elsewhere` | 2026-01-02T03:04:07.000Z | none |",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport text and github-summary: a hand-edited closest that is not a list of stubs shows none", () => {
  const report = explained();
  // deno-lint-ignore no-explicit-any
  (report.unmatched_requests[0] as any).closest = "segment 3";
  // deno-lint-ignore no-explicit-any
  (report.unmatched_requests[1] as any).closest = [null, { method: "GET" }, {
    method: "GET",
    path: "/x",
    reason: "a\nb",
  }];
  const text = renderReport(report, { format: "text" });
  assert.ok(!text.includes("closest: GET /users"), text);
  assert.ok(text.includes("    closest: GET /x (a b)\n"), text);
  const markdown = renderReport(report, { format: "github-summary" });
  assert.ok(markdown.includes("| GET | `/users/1/invoices` | 2026-01-02T03:04:05.006Z | none |"), markdown);
});

function drift(): OpenApiDrift {
  return {
    spec: "api.yaml",
    version: "3.1.0",
    operations: 4,
    uncovered_operations: [
      { method: "DELETE", path: "/users/{userId}", operation_id: "deleteUser" },
      { method: "GET", path: "/users/{userId}/orders" },
    ],
    unstubbed_requests: [
      {
        method: "GET",
        path: "/users/1/orders",
        query: "page=2",
        timestamp: "2026-01-02T03:04:05.006Z",
        operation: "GET /users/{userId}/orders",
      },
    ],
  };
}

Deno.test("renderReport text with openapi: the drift follows the report", () => {
  const text = renderReport(empty(), { format: "text", openapi: drift() });
  assert.equal(
    text.split("Requests that matched no stub: none\n")[1],
    [
      "OpenAPI drift against api.yaml (OpenAPI 3.1.0, 4 operation(s))",
      "Operations no stub covers:",
      "  DELETE /users/{userId} (deleteUser)",
      "  GET /users/{userId}/orders",
      "Unmatched requests the spec describes (a real endpoint nobody stubbed):",
      "  GET /users/1/orders?page=2 [2026-01-02T03:04:05.006Z]",
      "    spec: GET /users/{userId}/orders",
      "",
    ].join("\n"),
  );
  const clean = { ...drift(), uncovered_operations: [], unstubbed_requests: [] };
  assert.ok(
    renderReport(empty(), { format: "text", openapi: clean }).endsWith(
      "Operations no stub covers: none\nUnmatched requests the spec describes: none\n",
    ),
  );
});

Deno.test("renderReport github-summary with openapi: a drift section with two tables", () => {
  const text = renderReport(empty(), { format: "github-summary", openapi: drift() });
  assert.equal(
    text.split("### Unmatched requests\n\nnone\n")[1],
    [
      "",
      "### OpenAPI drift",
      "",
      "Against `api.yaml` (OpenAPI 3.1.0, 4 operations): operations no stub covers: **2** · unmatched requests the spec describes: **1**",
      "",
      "#### Operations no stub covers",
      "",
      "| Method | Path | Operation ID |",
      "| --- | --- | --- |",
      "| DELETE | `/users/{userId}` | `deleteUser` |",
      "| GET | `/users/{userId}/orders` |  |",
      "",
      "#### Unmatched requests the spec describes",
      "",
      "| Method | Path | Timestamp | Spec operation |",
      "| --- | --- | --- | --- |",
      "| GET | `/users/1/orders?page=2` | 2026-01-02T03:04:05.006Z | `GET /users/{userId}/orders` |",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport json: openapi is one extra top-level key, only when given", () => {
  assert.deepEqual(JSON.parse(renderReport(sample(), { format: "json", openapi: drift() })), {
    ...sample(),
    openapi: drift(),
  });
  assert.deepEqual(Object.keys(JSON.parse(renderReport(sample(), { format: "json" }))), [
    "summary",
    "stubs",
    "unused_stubs",
    "unmatched_requests",
  ]);
});

Deno.test("renderReport json: the report object with 2-space indent", () => {
  const text = renderReport(sample(), { format: "json" });
  assert.deepEqual(JSON.parse(text), sample());
  assert.ok(text.startsWith('{\n  "summary": {\n    "total_stubs": 4,'));
  assert.ok(text.endsWith("}\n"));
});

Deno.test("renderReport: an unknown format is a TypeError naming the allowed ones", () => {
  // @ts-expect-error: testing a value the type forbids
  assert.throws(() => renderReport(empty(), { format: "xml" }), /allowed: text, json, github-summary/);
});

Deno.test("mergeReports: hits add up per method+path+query, unused and summary are recomputed", () => {
  const a = sample();
  const b: Report = {
    summary: { total_stubs: 3, matched_stubs: 2, unmatched_requests: 1 },
    stubs: [
      { method: "GET", path: "/users/{id}", hit_count: 1 },
      // Same path, other query: a different stub.
      { method: "GET", path: "/search", hit_count: 5, query_params: { sort: "asc", q: "{term}" } },
      { method: "GET", path: "/search", hit_count: 0, query_params: { q: "{term}" } },
      { method: "PATCH", path: "/users/{id}", hit_count: 2 },
    ],
    unused_stubs: [{ method: "GET", path: "/search", query_params: { q: "{term}" } }],
    unmatched_requests: [{ method: "GET", path: "/between", timestamp: "2026-01-02T03:04:05.500Z" }],
  };
  assert.deepEqual(mergeReports([a, b]), {
    summary: { total_stubs: 6, matched_stubs: 4, unmatched_requests: 3 },
    stubs: [
      { method: "GET", path: "/users/{id}", hit_count: 4 },
      { method: "GET", path: "/search", hit_count: 5, query_params: { q: "{term}", sort: "asc" } },
      { method: "POST", path: "/orders", hit_count: 1 },
      { method: "DELETE", path: "/users/{id}", hit_count: 0 },
      { method: "GET", path: "/search", hit_count: 0, query_params: { q: "{term}" } },
      { method: "PATCH", path: "/users/{id}", hit_count: 2 },
    ],
    unused_stubs: [
      { method: "DELETE", path: "/users/{id}" },
      { method: "GET", path: "/search", query_params: { q: "{term}" } },
    ],
    unmatched_requests: [
      { method: "GET", path: "/nope", timestamp: "2026-01-02T03:04:05.006Z" },
      { method: "GET", path: "/between", timestamp: "2026-01-02T03:04:05.500Z" },
      { method: "PUT", path: "/users/1", query: "force=true&x=1", timestamp: "2026-01-02T03:04:06.000Z" },
    ],
  });
});

Deno.test("mergeReports: duplicate stubs within one report stay separate; inputs are not changed", () => {
  const shard = (first: number, second: number): Report => ({
    summary: { total_stubs: 2, matched_stubs: Number(first > 0) + Number(second > 0), unmatched_requests: 0 },
    stubs: [
      { method: "GET", path: "/a", hit_count: first },
      { method: "GET", path: "/a", hit_count: second },
    ],
    unused_stubs: [],
    unmatched_requests: [],
  });
  const one = shard(1, 0);
  const merged = mergeReports([one, shard(2, 0)]);
  assert.deepEqual(merged.stubs.map((s) => s.hit_count), [3, 0]);
  assert.deepEqual(merged.summary, { total_stubs: 2, matched_stubs: 1, unmatched_requests: 0 });
  assert.equal(one.stubs[0].hit_count, 1);
});

Deno.test("mergeReports: the unmatched total counts requests the shards did not keep", () => {
  const a = sample();
  a.summary.unmatched_requests = 5000;
  const merged = mergeReports([a, empty()]);
  assert.equal(merged.summary.unmatched_requests, 5000);
  assert.equal(merged.unmatched_requests.length, 2);
});

Deno.test("checkReport: accepts a report, names what is wrong otherwise", () => {
  assert.equal(checkReport(sample()), undefined);
  assert.equal(checkReport([]), "not a stubtool report: expected a JSON object");
  assert.equal(checkReport({ routes: [] }), "not a stubtool report: summary is missing");
  const noStubs = { ...sample(), stubs: undefined };
  assert.equal(checkReport(noStubs), "not a stubtool report: stubs must be a list");
  const badStub = { ...sample(), stubs: [{ method: "GET", path: "/x" }] };
  assert.equal(checkReport(badStub), "not a stubtool report: stubs[0] needs method, path and hit_count");
  const badRequest = { ...sample(), unmatched_requests: [{ method: "GET", path: "/x" }] };
  assert.equal(
    checkReport(badRequest),
    "not a stubtool report: unmatched_requests[0] needs method, path and timestamp",
  );
});

/** A report of a checkout flow: two of its three transitions taken, and a scenario whose stubs set no state. */
function flows(): Report {
  return {
    summary: { total_stubs: 4, matched_stubs: 3, unmatched_requests: 0 },
    stubs: [
      { id: "add-item", method: "POST", path: "/cart/items", hit_count: 2 },
      { id: "pay", method: "POST", path: "/cart/pay", hit_count: 1 },
      { id: "receipt", method: "GET", path: "/cart", hit_count: 1 },
      { id: "cancel", method: "DELETE", path: "/cart", hit_count: 0 },
    ],
    unused_stubs: [{ id: "cancel", method: "DELETE", path: "/cart" }],
    unmatched_requests: [],
    scenarios: [
      {
        name: "checkout",
        transitions: [
          { from: "Started", to: "has-items", stub: "add-item", taken: 2 },
          { from: "has-items", to: "paid", stub: "pay", taken: 1 },
          { from: "*", to: "Started", stub: "cancel", taken: 0 },
        ],
      },
      { name: "banner", transitions: [] },
    ],
  };
}

Deno.test("renderReport text: scenario transitions follow the report, each with how often it was taken", () => {
  assert.equal(
    renderReport(flows(), { format: "text" }).split("Requests that matched no stub: none\n")[1],
    [
      "Scenario transitions taken: 2/3",
      "  checkout:",
      "    Started → has-items via add-item: taken 2",
      "    has-items → paid via pay: taken 1",
      "    * → Started via cancel: never taken",
      "  banner: no stub sets a state",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport text: flow coverage comes before the OpenAPI drift", () => {
  const text = renderReport(flows(), { format: "text", openapi: drift() });
  assert.ok(text.indexOf("  banner: no stub sets a state\nOpenAPI drift against") > 0, text);
});

Deno.test("renderReport github-summary: a Scenario transitions table with ✅/❌", () => {
  assert.equal(
    renderReport(flows(), { format: "github-summary" }).split("### Unmatched requests\n\nnone\n")[1],
    [
      "",
      "### Scenario transitions",
      "",
      "Transitions taken: **2/3**",
      "",
      "| Scenario | From | To | Stub | Taken |",
      "| --- | --- | --- | --- | --- |",
      "| checkout | `Started` | `has-items` | `add-item` | ✅ 2 |",
      "| checkout | `has-items` | `paid` | `pay` | ✅ 1 |",
      "| checkout | `*` | `Started` | `cancel` | ❌ 0 |",
      "",
    ].join("\n"),
  );
});

Deno.test("renderReport github-summary: scenarios without transitions show none", () => {
  const report: Report = { ...empty(), scenarios: [{ name: "banner", transitions: [] }] };
  assert.ok(
    renderReport(report, { format: "github-summary" }).endsWith(
      "### Scenario transitions\n\nTransitions taken: **0/0**\n\nnone\n",
    ),
  );
});

Deno.test("renderReport text and github-summary: no scenarios key, no flow section", () => {
  assert.doesNotMatch(renderReport(sample(), { format: "text" }), /Scenario/);
  assert.doesNotMatch(renderReport(sample(), { format: "github-summary" }), /Scenario/);
});

Deno.test("renderReport json: the scenarios key comes last, as the server sends it", () => {
  const text = renderReport(flows(), { format: "json" });
  assert.deepEqual(Object.keys(JSON.parse(text)), [
    "summary",
    "stubs",
    "unused_stubs",
    "unmatched_requests",
    "scenarios",
  ]);
  assert.deepEqual(JSON.parse(text).scenarios, flows().scenarios);
});

Deno.test("transitionCounts: declared and taken transitions over every scenario; none without scenarios", () => {
  assert.deepEqual(transitionCounts(flows()), { total: 3, taken: 2 });
  assert.deepEqual(transitionCounts(sample()), { total: 0, taken: 0 });
});

Deno.test("mergeReports: scenario transitions add up per scenario+from+to+stub, first-seen order", () => {
  const other: Report = {
    ...empty(),
    scenarios: [
      {
        name: "checkout",
        transitions: [
          // Same stub, other states (its config changed between shards): a transition of its own.
          { from: "Started", to: "full", stub: "add-item", taken: 4 },
          { from: "*", to: "Started", stub: "cancel", taken: 1 },
          { from: "Started", to: "has-items", stub: "add-item", taken: 3 },
        ],
      },
      { name: "login", transitions: [{ from: "Started", to: "in", stub: "sign-in", taken: 0 }] },
    ],
  };
  const first = flows();
  assert.deepEqual(mergeReports([first, other]).scenarios, [
    {
      name: "checkout",
      transitions: [
        { from: "Started", to: "has-items", stub: "add-item", taken: 5 },
        { from: "has-items", to: "paid", stub: "pay", taken: 1 },
        { from: "*", to: "Started", stub: "cancel", taken: 1 },
        { from: "Started", to: "full", stub: "add-item", taken: 4 },
      ],
    },
    { name: "banner", transitions: [] },
    { name: "login", transitions: [{ from: "Started", to: "in", stub: "sign-in", taken: 0 }] },
  ]);
  assert.equal(first.scenarios![0].transitions[0].taken, 2, "inputs are not changed");
});

Deno.test("mergeReports: reports without scenarios merge into the four keys only", () => {
  assert.deepEqual(Object.keys(mergeReports([sample(), empty()])), [
    "summary",
    "stubs",
    "unused_stubs",
    "unmatched_requests",
  ]);
  assert.deepEqual(mergeReports([sample(), flows()]).scenarios?.map((s) => s.name), ["checkout", "banner"]);
});

Deno.test("checkReport: a scenarios key must be a list of scenarios with well-formed transitions", () => {
  assert.equal(checkReport(flows()), undefined);
  assert.equal(checkReport({ ...flows(), scenarios: {} }), "not a stubtool report: scenarios must be a list");
  assert.equal(
    checkReport({ ...flows(), scenarios: [{ name: "x" }] }),
    "not a stubtool report: scenarios[0] needs name and a list of transitions",
  );
  assert.equal(
    checkReport({ ...flows(), scenarios: [{ name: "x", transitions: [{ from: "a", to: "b", stub: "s" }] }] }),
    "not a stubtool report: scenarios[0].transitions[0] needs from, to, stub and taken",
  );
});
