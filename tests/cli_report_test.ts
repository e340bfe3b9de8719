// `stubtool report` as a subprocess: the three formats against a live server, the fail
// flags, an unreachable or foreign server, and saved reports (--from), merged.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Report } from "../src/report/types.ts";
import { fixture, freePort, get, lines, runCli, type Served, startServe, tempDir } from "./_cli.ts";

/** A server with two stubs, one hit twice, and one unmatched request (with a query). */
async function exercised(): Promise<{ served: Served; report: Report }> {
  const served = await startServe(["--port", "0", "--quiet", "--config", fixture("valid.yaml")]);
  await get(`${served.url}/users/1`);
  await get(`${served.url}/users/2`);
  await get(`${served.url}/nope?x=1`);
  const report = JSON.parse((await get(`${served.url}/__stubtool__/report`)).text) as Report;
  return { served, report };
}

Deno.test("report: text format from a live server, exact lines, exit 0", async () => {
  const { served, report } = await exercised();
  await using _ = served.process;
  const { code, stdout, stderr } = await runCli(["report", "--url", served.url]);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  assert.deepEqual(lines(stdout), [
    "stubtool coverage report",
    "Exercised stubs: 1/2",
    "Unmatched requests: 1",
    "Unused stubs:",
    "  DELETE /users/{id}",
    "Requests that matched no stub:",
    `  GET /nope?x=1 [${report.unmatched_requests[0].timestamp}]`,
  ]);
  assert.match(report.unmatched_requests[0].timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // --format text is the default.
  assert.equal((await runCli(["report", "--url", served.url, "--format", "text"])).stdout, stdout);
});

Deno.test("report: json format is the report object, exit 0", async () => {
  const { served, report } = await exercised();
  await using _ = served.process;
  const { code, stdout } = await runCli(["report", "--url", served.url, "--format", "json"]);
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(stdout), report);
  assert.equal(stdout, JSON.stringify(report, null, 2) + "\n");
});

Deno.test("report: github-summary format, exact Markdown, exit 0", async () => {
  const { served, report } = await exercised();
  await using _ = served.process;
  const { code, stdout } = await runCli(["report", "--url", served.url, "--format", "github-summary"]);
  assert.equal(code, 0);
  assert.deepEqual(lines(stdout), [
    "## stubtool coverage report",
    "",
    "Exercised stubs: **1/2** · Unmatched requests: **1**",
    "",
    "### Stubs",
    "",
    "| Method | Path | Hits |",
    "| --- | --- | --- |",
    "| GET | `/users/{id}` | ✅ 2 |",
    "| DELETE | `/users/{id}` | ❌ 0 |",
    "",
    "### Unmatched requests",
    "",
    "| Method | Path | Timestamp | Closest stub |",
    "| --- | --- | --- | --- |",
    `| GET | \`/nope?x=1\` | ${report.unmatched_requests[0].timestamp} | none |`,
  ]);
});

Deno.test("report: explained misses — each unmatched request names the closest stub and the failed criterion, every format", async () => {
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--stub",
    "GET /users/{id}/orders -> 200 []",
    "--stub",
    "GET /search?sort=asc -> 200 []",
    "--stub",
    "POST /search -> 201",
  ]);
  await using _ = served.process;
  await get(`${served.url}/users/1/invoices`);
  await get(`${served.url}/search?sort=desc`);
  await get(`${served.url}/users/1/orders/`);
  const report = JSON.parse((await get(`${served.url}/__stubtool__/report`)).text) as Report;
  const [invoices, search, slash] = report.unmatched_requests.map((r) => r.timestamp);
  assert.deepEqual(report.unmatched_requests.map((r) => r.closest), [
    [{ method: "GET", path: "/users/{id}/orders", reason: "segment 3 is 'invoices', stub has 'orders'" }],
    [
      {
        method: "GET",
        path: "/search",
        reason: "query parameter 'sort' is 'desc', stub wants 'asc'",
        query_params: { sort: "asc" },
      },
      { method: "POST", path: "/search", reason: "method differs (stub is POST)" },
    ],
    [{ method: "GET", path: "/users/{id}/orders", reason: "trailing slash (stub has none)" }],
  ]);

  const text = await runCli(["report", "--url", served.url]);
  assert.deepEqual(lines(text.stdout).slice(-7), [
    "Requests that matched no stub:",
    `  GET /users/1/invoices [${invoices}]`,
    "    closest: GET /users/{id}/orders (segment 3 is 'invoices', stub has 'orders')",
    `  GET /search?sort=desc [${search}]`,
    // The stub's query shows: /search and /search?sort=asc would otherwise look the same.
    "    closest: GET /search?sort=asc (query parameter 'sort' is 'desc', stub wants 'asc') (+1 more)",
    `  GET /users/1/orders/ [${slash}]`,
    "    closest: GET /users/{id}/orders (trailing slash (stub has none))",
  ]);

  const markdown = await runCli(["report", "--url", served.url, "--format", "github-summary"]);
  assert.deepEqual(lines(markdown.stdout).slice(-5), [
    "| Method | Path | Timestamp | Closest stub |",
    "| --- | --- | --- | --- |",
    `| GET | \`/users/1/invoices\` | ${invoices} | \`GET /users/{id}/orders\` (segment 3 is 'invoices', stub has 'orders') |`,
    `| GET | \`/search?sort=desc\` | ${search} | \`GET /search?sort=asc\` (query parameter 'sort' is 'desc', stub wants 'asc') +1 more |`,
    `| GET | \`/users/1/orders/\` | ${slash} | \`GET /users/{id}/orders\` (trailing slash (stub has none)) |`,
  ]);

  const json = await runCli(["report", "--url", served.url, "--format", "json"]);
  assert.deepEqual(JSON.parse(json.stdout), report);

  await using dir = await tempDir();
  const page = join(dir.path, "report.html");
  await runCli(["report", "--url", served.url, "--format", "html", "--output", page]);
  const html = await Deno.readTextFile(page);
  assert.ok(html.includes("— segment 3 is &#39;invoices&#39;, stub has &#39;orders&#39;</span>"), html);
  assert.ok(html.includes("— query parameter &#39;sort&#39; is &#39;desc&#39;, stub wants &#39;asc&#39;</span>"));
  assert.ok(html.includes("— method differs (stub is POST)</span>"));
});

Deno.test("report: the default URL follows STUBTOOL_PORT", async () => {
  const { served } = await exercised();
  await using _ = served.process;
  const { code, stdout } = await runCli(["report"], { env: { STUBTOOL_PORT: String(served.port) } });
  assert.equal(code, 0);
  assert.match(stdout, /^Exercised stubs: 1\/2$/m);
});

Deno.test("report --fail-on-unmatched: prints the report, then one [ERROR] line, exit 1", async () => {
  const { served } = await exercised();
  await using _ = served.process;
  const { code, stdout, stderr } = await runCli(["report", "--url", served.url, "--fail-on-unmatched"]);
  assert.equal(code, 1);
  assert.match(stdout, /^stubtool coverage report\n/);
  assert.equal(stderr, "[ERROR] report check failed: 1 request(s) matched no stub (--fail-on-unmatched)\n");
});

Deno.test("report --fail-on-unused and both flags: one [ERROR] line naming every failed check, exit 1", async () => {
  const { served } = await exercised();
  await using _ = served.process;
  const unused = await runCli(["report", "--url", served.url, "--fail-on-unused", "--format", "json"]);
  assert.equal(unused.code, 1);
  assert.equal(JSON.parse(unused.stdout).summary.total_stubs, 2);
  assert.equal(unused.stderr, "[ERROR] report check failed: 1 stub(s) never hit (--fail-on-unused)\n");
  const both = await runCli(["report", "--url", served.url, "--fail-on-unused", "--fail-on-unmatched"]);
  assert.equal(both.code, 1);
  assert.equal(
    both.stderr,
    "[ERROR] report check failed: 1 request(s) matched no stub (--fail-on-unmatched); 1 stub(s) never hit (--fail-on-unused)\n",
  );
});

Deno.test("report --fail-on-*: a clean run passes, exit 0", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--stub", "GET /a -> 200"]);
  await using _ = served.process;
  await get(`${served.url}/a`);
  const { code, stderr } = await runCli(["report", "--url", served.url, "--fail-on-unmatched", "--fail-on-unused"]);
  assert.equal(code, 0);
  assert.equal(stderr, "");
});

Deno.test("report: an unreachable server is [ERROR] cannot reach stubtool at <url>: <reason>, exit 2", async () => {
  const port = freePort();
  const { code, stdout, stderr } = await runCli(["report", "--url", `http://127.0.0.1:${port}`]);
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.equal(stderr, `[ERROR] cannot reach stubtool at http://127.0.0.1:${port}: connection refused\n`);
  // Even with --fail-on-unmatched, unreachable is 2, not 1.
  const failFlag = await runCli(["report", "--url", `http://127.0.0.1:${port}`, "--fail-on-unmatched"]);
  assert.equal(failFlag.code, 2);
});

Deno.test("report: a server that is not stubtool is unreachable as far as report is concerned, exit 2", async () => {
  await using other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => new Response("hi"));
  const url = `http://127.0.0.1:${other.addr.port}`;
  const { code, stderr } = await runCli(["report", "--url", url]);
  assert.equal(code, 2);
  assert.equal(
    stderr,
    `[ERROR] cannot reach stubtool at ${url}: /__stubtool__/report: the answer is not JSON; is this a stubtool server?\n`,
  );
});

Deno.test("report --from: one saved report is rendered as is", async () => {
  const { code, stdout } = await runCli(["report", "--from", fixture("report_shard1.json")]);
  assert.equal(code, 0);
  assert.deepEqual(lines(stdout), [
    "stubtool coverage report",
    "Exercised stubs: 1/3",
    "Unmatched requests: 2",
    "Unused stubs:",
    "  GET /search?q={term}",
    "  DELETE /users/{id}",
    "Requests that matched no stub:",
    "  GET /old [2026-03-01T10:00:00.000Z]",
    "  POST /users?dry=1 [2026-03-01T10:00:02.000Z]",
  ]);
});

Deno.test("report --from: two saved reports are merged (hits added, unmatched in time order)", async () => {
  const expected = [
    "stubtool coverage report",
    "Exercised stubs: 2/3",
    "Unmatched requests: 3",
    "Unused stubs:",
    "  DELETE /users/{id}",
    "Requests that matched no stub:",
    "  GET /old [2026-03-01T10:00:00.000Z]",
    "  GET /legacy [2026-03-01T10:00:01.000Z]",
    "  POST /users?dry=1 [2026-03-01T10:00:02.000Z]",
  ];
  const a = fixture("report_shard1.json");
  const b = fixture("report_shard2.json");
  // `--from A B` and `--from A --from B` are the same.
  const [spaced, repeated, json] = await Promise.all([
    runCli(["report", "--from", a, b]),
    runCli(["report", "--from", a, "--from", b]),
    runCli(["report", "--from", a, b, "--format", "json", "--fail-on-unmatched"]),
  ]);
  assert.equal(spaced.code, 0);
  assert.deepEqual(lines(spaced.stdout), expected);
  assert.equal(repeated.stdout, spaced.stdout);
  assert.equal(json.code, 1);
  assert.deepEqual(JSON.parse(json.stdout).stubs, [
    { method: "GET", path: "/users/{id}", hit_count: 5 },
    { method: "GET", path: "/search", hit_count: 2, query_params: { q: "{term}" } },
    { method: "DELETE", path: "/users/{id}", hit_count: 0 },
  ]);
  assert.equal(json.stderr, "[ERROR] report check failed: 3 request(s) matched no stub (--fail-on-unmatched)\n");
});

Deno.test("report --from: files written by serve --report-file from two shards merge into one view", async () => {
  await using dir = await tempDir();
  const files = [join(dir.path, "shard1.json"), join(dir.path, "shard2.json")];
  for (const [i, file] of files.entries()) {
    const served = await startServe([
      "--port",
      "0",
      "--quiet",
      "--config",
      fixture("valid.yaml"),
      "--report-file",
      file,
    ]);
    await using _ = served.process;
    await get(`${served.url}/users/${i}`);
    if (i === 1) await get(`${served.url}/users/9`, { method: "DELETE" });
    served.process.kill("SIGTERM");
    assert.equal((await served.process.result()).code, 0);
  }
  const { code, stdout } = await runCli(["report", "--from", ...files, "--format", "json", "--fail-on-unused"]);
  assert.equal(code, 0);
  const merged = JSON.parse(stdout) as Report;
  assert.deepEqual(merged.summary, { total_stubs: 2, matched_stubs: 2, unmatched_requests: 0 });
  assert.deepEqual(merged.stubs.map((s) => s.hit_count), [2, 1]);
});

Deno.test("report --from: unreadable, invalid or foreign files are one [ERROR] line, exit 2", async () => {
  await using dir = await tempDir();
  const broken = join(dir.path, "broken.json");
  await Deno.writeTextFile(broken, '{\n  "summary": {,\n}');
  const missing = join(dir.path, "missing.json");
  const config = fixture("valid.json");
  const [a, b, c] = await Promise.all([
    runCli(["report", "--from", missing]),
    runCli(["report", "--from", broken]),
    runCli(["report", "--from", fixture("report_shard1.json"), config]),
  ]);
  assert.equal(a.code, 2);
  assert.equal(a.stderr, `[ERROR] ${missing}: no such file\n`);
  assert.equal(b.code, 2);
  assert.match(b.stderr, new RegExp(`^\\[ERROR\\] ${RegExp.escape(broken)}:2:15: .+\\n$`));
  assert.equal(c.code, 2);
  assert.equal(c.stdout, "");
  assert.equal(
    c.stderr,
    `[ERROR] ${config}: not a stubtool report: summary is missing (write one with stubtool serve --report-file)\n`,
  );
});

Deno.test("report: --from and --url together, or stray arguments, are usage errors, exit 2", async () => {
  const both = await runCli(["report", "--url", "http://localhost:1234", "--from", fixture("report_shard1.json")]);
  assert.equal(both.code, 2);
  assert.equal(
    both.stderr,
    "[ERROR] report: use either --url (ask a server) or --from (saved reports), not both; run stubtool report --help\n",
  );
  const stray = await runCli(["report", "shard.json"]);
  assert.equal(stray.code, 2);
  assert.equal(
    stray.stderr,
    "[ERROR] report: unexpected argument 'shard.json' (to render saved reports, use --from FILE...); run stubtool report --help\n",
  );
});

Deno.test("report --format html --output FILE: the static page with the server's journal, one line on stdout, exit 0", async () => {
  const { served } = await exercised();
  await using _ = served.process;
  await using dir = await tempDir();
  const file = join(dir.path, "report.html");
  const { code, stdout, stderr } = await runCli(["report", "--url", served.url, "--format", "html", "--output", file]);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  assert.equal(stdout, `report written to ${file}\n`);
  const html = await Deno.readTextFile(file);
  assert.match(html, /^<!doctype html>/);
  assert.doesNotMatch(html, /<script/, "static: no live refresh");
  assert.match(html, /<strong>1 of 2<\/strong> stubs exercised \(50%\)/);
  assert.match(html, new RegExp(`from <code>${RegExp.escape(served.url)}</code>`));
  assert.match(html, /<table id="journal-table"/, "the server's request journal is included");
  assert.match(html, /<code>\/nope\?x=1<\/code>/);
  // Without --output the same page goes to stdout.
  const printed = await runCli(["report", "--url", served.url, "--format", "html"]);
  assert.equal(printed.code, 0);
  assert.equal(
    printed.stdout.replace(/<time datetime="[^"]+">[^<]+<\/time>/, ""),
    html.replace(/<time datetime="[^"]+">[^<]+<\/time>/, ""),
  );
});

Deno.test("report --output works for every format: the file holds what stdout would; --fail-on-* still decides the exit", async () => {
  const { served } = await exercised();
  await using _ = served.process;
  await using dir = await tempDir();
  for (const format of ["text", "json", "github-summary"]) {
    const file = join(dir.path, `report.${format}`);
    const [written, printed] = await Promise.all([
      runCli(["report", "--url", served.url, "--format", format, "--output", file, "--fail-on-unmatched"]),
      runCli(["report", "--url", served.url, "--format", format]),
    ]);
    assert.equal(written.code, 1, format);
    assert.equal(written.stdout, `report written to ${file}\n`);
    assert.equal(written.stderr, "[ERROR] report check failed: 1 request(s) matched no stub (--fail-on-unmatched)\n");
    assert.equal(await Deno.readTextFile(file), printed.stdout, format);
  }
});

Deno.test("report --from ... --format html: saved reports render without a journal, naming the files", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "merged.html");
  const a = fixture("report_shard1.json");
  const b = fixture("report_shard2.json");
  const { code, stderr } = await runCli(["report", "--from", a, b, "--format", "html", "-o", file]);
  assert.equal(code, 0, stderr);
  const html = await Deno.readTextFile(file);
  assert.match(html, /<strong>2 of 3<\/strong> stubs exercised/);
  assert.match(html, /Saved reports carry no request journal/);
  assert.ok(html.includes(`from <code>${a}, ${b}</code>`));
});

Deno.test("report --output: a missing directory is a usage error before asking the server; an unwritable file exits 1", async () => {
  const missing = await runCli(["report", "--url", "http://127.0.0.1:1", "--output", "/no/such/dir/r.html"]);
  assert.equal(missing.code, 2);
  assert.equal(
    missing.stderr,
    "[ERROR] --output: directory /no/such/dir does not exist; create it first; run stubtool report --help\n",
  );
  await using dir = await tempDir();
  const unwritable = await runCli(["report", "--from", fixture("report_shard1.json"), "--output", dir.path]);
  assert.equal(unwritable.code, 1);
  assert.equal(unwritable.stdout, "");
  assert.equal(unwritable.stderr, `[ERROR] --output ${dir.path}: cannot write the report: it is a directory\n`);
});
