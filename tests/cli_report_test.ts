// `stubtool report` as a subprocess: the three formats against a live server, the fail
// flags, an unreachable or foreign server, and saved reports (--from), merged.
import assert from "node:assert/strict";
import { join } from "node:path";
import { WebSocket } from "ws";
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
    [{
      method: "GET",
      path: "/users/{id}/orders",
      reason: "segment 3 is 'invoices', stub has 'orders'",
      id: "stub-1",
      place: "--stub[0]",
    }],
    [
      {
        method: "GET",
        path: "/search",
        reason: "query parameter 'sort' is 'desc', stub wants 'asc'",
        query_params: { sort: "asc" },
        id: "stub-2",
        place: "--stub[1]",
      },
      { method: "POST", path: "/search", reason: "method differs (stub is POST)", id: "stub-3", place: "--stub[2]" },
    ],
    [{
      method: "GET",
      path: "/users/{id}/orders",
      reason: "trailing slash (stub has none)",
      id: "stub-1",
      place: "--stub[0]",
    }],
  ]);

  const text = await runCli(["report", "--url", served.url]);
  assert.deepEqual(lines(text.stdout).slice(-7), [
    "Requests that matched no stub:",
    `  GET /users/1/invoices [${invoices}]`,
    "    closest: GET /users/{id}/orders [stub-1, --stub[0]] (segment 3 is 'invoices', stub has 'orders')",
    `  GET /search?sort=desc [${search}]`,
    // The stub's query shows: /search and /search?sort=asc would otherwise look the same.
    "    closest: GET /search?sort=asc [stub-2, --stub[1]] (query parameter 'sort' is 'desc', stub wants 'asc') (+1 more)",
    `  GET /users/1/orders/ [${slash}]`,
    "    closest: GET /users/{id}/orders [stub-1, --stub[0]] (trailing slash (stub has none))",
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

Deno.test("regression: report --url with the report's own path asked …/__stubtool__/report/__stubtool__/report; a path or query is a usage error showing the base URL", async () => {
  const cases: [string, string][] = [
    ["http://127.0.0.1:9000/__stubtool__/report", "a path"],
    ["http://127.0.0.1:9000/?scope=x", "a query"],
    ["http://127.0.0.1:9000#top", "a fragment"],
  ];
  for (const command of ["report", "wait"]) {
    const results = await Promise.all(cases.map(([url]) => runCli([command, "--url", url])));
    results.forEach(({ code, stdout, stderr }, i) => {
      const [url, what] = cases[i];
      assert.equal(code, 2, `${command} ${url}`);
      assert.equal(stdout, "");
      assert.equal(
        stderr,
        `[ERROR] --url: must be the server's base URL, without ${what}: write --url http://127.0.0.1:9000, ` +
          `got ${JSON.stringify(url)}; run stubtool ${command} --help\n`,
      );
    });
  }
});

Deno.test("report --url: a base URL with a trailing slash is fine", async () => {
  const { served } = await exercised();
  await using _ = served.process;
  const { code, stdout } = await runCli(["report", "--url", `${served.url}/`]);
  assert.equal(code, 0);
  assert.match(stdout, /^Exercised stubs: 1\/2$/m);
});

Deno.test("report --scope NAME: only what that scope's requests did (the server runs with --scopes)", async () => {
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--scopes",
    "--stub",
    "GET /a -> 204",
    "--stub",
    "GET /b -> 204",
  ]);
  await using _ = served.process;
  const scoped = { headers: { "x-stubtool-scope": "users test.ts" } };
  await (await fetch(`${served.url}/a`, scoped)).body?.cancel();
  await (await fetch(`${served.url}/nope`, scoped)).body?.cancel();
  await get(`${served.url}/b`);
  const { code, stdout, stderr } = await runCli(["report", "--url", served.url, "--scope", "users test.ts"]);
  assert.equal(code, 0, stderr);
  const lines_ = lines(stdout);
  assert.deepEqual(lines_.slice(0, 6), [
    "stubtool coverage report",
    "Exercised stubs: 1/2",
    "Unmatched requests: 1",
    "Unused stubs:",
    "  GET /b",
    "Requests that matched no stub:",
  ]);
  assert.match(lines_[6], /^ {2}GET \/nope \[\d{4}-\d\d-\d\dT[\d:.]+Z\]$/);
  const whole = await runCli(["report", "--url", served.url, "--fail-on-unused"]);
  assert.equal(whole.code, 0, "the whole report counts every request");
});

Deno.test("report --scope against a server without --scopes: the server's 400 message is the [ERROR] line, exit 2", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--stub", "GET /a -> 204"]);
  await using _ = served.process;
  const { code, stdout, stderr } = await runCli(["report", "--url", served.url, "--scope", "a_test.ts"]);
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.equal(
    stderr,
    "[ERROR] --scope a_test.ts: the server answered 400: scoped coverage is off: start the server with --scopes " +
      "(API: stubServer(port, { scopes: true }))\n",
  );
});

Deno.test("report --scope: with --from, or empty, is a usage error, exit 2", async () => {
  const withFrom = await runCli(["report", "--from", fixture("report_shard1.json"), "--scope", "x"]);
  assert.equal(withFrom.code, 2);
  assert.equal(
    withFrom.stderr,
    "[ERROR] report: --scope asks a running server; saved reports (--from) have no scopes; run stubtool report --help\n",
  );
  const empty = await runCli(["report", "--scope="]);
  assert.equal(empty.code, 2);
  assert.equal(
    empty.stderr,
    "[ERROR] --scope: must not be empty (the x-stubtool-scope value to report on); run stubtool report --help\n",
  );
});

Deno.test("regression: report --output wrote in place, so a failed write (disk full) destroyed the previous file", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "report.json");
  const previous = '{"previous": "report"}\n';
  await Deno.writeTextFile(file, previous);
  // Writing a file past 1 KiB fails with EFBIG, as on a full disk; the merged report is larger.
  const { code, stdout, stderr } = await runCli(
    ["report", "--from", fixture("report_shard1.json"), fixture("report_shard2.json"), "-f", "json", "-o", file],
    { limitFileSize: true },
  );
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr, `[ERROR] --output ${file}: cannot write the report: file too large (a file size limit)\n`);
  assert.equal(await Deno.readTextFile(file), previous, "the previous file is intact");
  assert.deepEqual(await Array.fromAsync(Deno.readDir(dir.path), (e) => e.name), ["report.json"], "no temporary file");
});

/** A control character other than the line break, a bidi control, or a line or paragraph separator, raw. */
const RAW_UNSAFE = /(?!\n)[\p{Cc}\p{Bidi_Control}\u2028\u2029]/u;

/** A saved report whose strings carry terminal escape sequences and bidi controls, as anyone can write one. */
const HOSTILE_REPORT = {
  summary: { total_stubs: 2, matched_stubs: 1, unmatched_requests: 1 },
  stubs: [
    { method: "GET", path: "/ok\u001b]0;pwned\u0007", hit_count: 1 },
    { method: "GET", path: "/files/\u202Etxt.exe", hit_count: 0 },
  ],
  unused_stubs: [{ method: "GET", path: "/files/\u202Etxt.exe" }],
  unmatched_requests: [{
    method: "GE\u009bT",
    path: "/x\u001b[2J\u001b[H",
    query: "q=\u2066a\u2069\u007f",
    timestamp: "2026-03-01T10:00:00.000Z\r\n",
    closest: [{ method: "GET", path: "/x", reason: "segment 1 is '\u202Eevil', stub has 'x'" }],
  }],
};

Deno.test("regression: report text and github-summary printed ESC sequences and bidi overrides from a saved report raw; they are escaped", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "hostile.json");
  await Deno.writeTextFile(file, JSON.stringify(HOSTILE_REPORT));
  const text = await runCli(["report", "--from", file]);
  assert.equal(text.code, 0, text.stderr);
  assert.deepEqual(lines(text.stdout), [
    "stubtool coverage report",
    "Exercised stubs: 1/2",
    "Unmatched requests: 1",
    "Unused stubs:",
    "  GET /files/\\u202etxt.exe",
    "Requests that matched no stub:",
    "  GE\\x9bT /x\\x1b[2J\\x1b[H?q=\\u2066a\\u2069\\x7f [2026-03-01T10:00:00.000Z\\x0d\\x0a]",
    "    closest: GET /x (segment 1 is '\\u202eevil', stub has 'x')",
  ]);
  const markdown = await runCli(["report", "--from", file, "--format", "github-summary"]);
  assert.equal(markdown.code, 0, markdown.stderr);
  assert.deepEqual(lines(markdown.stdout).filter((line) => line.startsWith("| ") && !line.startsWith("| ---")), [
    "| Method | Path | Hits |",
    "| GET | `/ok\\x1b]0;pwned\\x07` | ✅ 1 |",
    "| GET | `/files/\\u202etxt.exe` | ❌ 0 |",
    "| Method | Path | Timestamp | Closest stub |",
    "| GE\\x9bT | `/x\\x1b[2J\\x1b[H?q=\\u2066a\\u2069\\x7f` | 2026-03-01T10:00:00.000Z  | `GET /x` (segment 1 is '\\u202eevil', stub has 'x') |",
  ]);
  for (const output of [text.stdout, markdown.stdout]) {
    assert.doesNotMatch(output, RAW_UNSAFE);
  }
});

Deno.test("report --format json: stays JSON with the same values; bidi controls, C1 and U+2028 are \\u escapes, not raw", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "hostile.json");
  const report = {
    ...HOSTILE_REPORT,
    unmatched_requests: [{ ...HOSTILE_REPORT.unmatched_requests[0], path: "/line\u2028sep\u2029" }],
  };
  await Deno.writeTextFile(file, JSON.stringify(report));
  const { code, stdout } = await runCli(["report", "--from", file, "--format", "json"]);
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(stdout), report);
  assert.doesNotMatch(stdout, RAW_UNSAFE);
  assert.ok(stdout.includes('"path": "/files/\\u202etxt.exe"'), stdout);
  assert.ok(stdout.includes('"path": "/line\\u2028sep\\u2029"'), stdout);
});

Deno.test("report from a live server: a bidi override sent in a path is escaped in the request line and the near-miss reason", async () => {
  // The Deno wire passes raw bytes above ASCII in a request target on to the handler; the node wire (the default)
  // answers them 400 before any handler runs (README: Runtimes and wires).
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--adapter",
    "deno",
    "--stub",
    "GET /users/{id}/orders -> 200 []",
  ]);
  await using _ = served.process;
  // Raw UTF-8 bytes of U+202E in the path, as a client can send them, and the same percent-encoded.
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: served.port });
  await conn.write(
    new TextEncoder().encode("GET /users/1/\u202Eorders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
  );
  await new Response(conn.readable).arrayBuffer();
  await get(`${served.url}/users/2/%E2%80%AEsredro`);
  const { code, stdout } = await runCli(["report", "--url", served.url]);
  assert.equal(code, 0);
  const report = JSON.parse((await get(`${served.url}/__stubtool__/report`)).text) as Report;
  const [raw, encoded] = report.unmatched_requests.map((r) => r.timestamp);
  assert.deepEqual(lines(stdout).slice(-5), [
    "Requests that matched no stub:",
    `  GET /users/1/\\u202eorders [${raw}]`,
    "    closest: GET /users/{id}/orders [stub-1, --stub[0]] (segment 3 is '\\u202eorders', stub has 'orders')",
    `  GET /users/2/%E2%80%AEsredro [${encoded}]`,
    "    closest: GET /users/{id}/orders [stub-1, --stub[0]] (segment 3 is '\\u202esredro', stub has 'orders')",
  ]);
});

/** `stubtool serve` of the checkout flow that got `requests` (method and path) in order. */
async function checkoutServer(requests: [string, string][], reportFile?: string): Promise<Served> {
  const args = ["--port", "0", "--quiet", "--config", fixture("checkout_flow.yaml")];
  const served = await startServe(reportFile ? [...args, "--report-file", reportFile] : args);
  for (const [method, path] of requests) await get(`${served.url}${path}`, { method });
  return served;
}

Deno.test("report --fail-on-unused: a scenario transition never taken fails the check and is named in the line, exit 1", async () => {
  const served = await checkoutServer([["POST", "/cart/items"], ["POST", "/cart/pay"], ["DELETE", "/cart"]]);
  await using _ = served.process;
  const { code, stdout, stderr } = await runCli(["report", "--url", served.url, "--fail-on-unused"]);
  assert.equal(code, 1);
  assert.deepEqual(lines(stdout), [
    "stubtool coverage report",
    "Exercised stubs: 3/4",
    "Unmatched requests: 0",
    "Unused stubs:",
    "  DELETE /cart/items",
    "Requests that matched no stub: none",
    "Scenario transitions taken: 3/4",
    "  checkout:",
    "    Started → has-items via add-item: taken 1",
    "    has-items → paid via pay: taken 1",
    "    paid → Started via clear: taken 1",
    "    has-items → Started via abandon: never taken",
  ]);
  assert.equal(
    stderr,
    "[ERROR] report check failed: 1 stub(s) never hit (--fail-on-unused); " +
      "1 scenario transition(s) never taken (--fail-on-unused)\n",
  );
  // Every transition taken: the check passes.
  await get(`${served.url}/cart/items`, { method: "POST" });
  await get(`${served.url}/cart/items`, { method: "DELETE" });
  const clean = await runCli(["report", "--url", served.url, "--fail-on-unused"]);
  assert.equal(clean.stderr, "");
  assert.equal(clean.code, 0);
});

Deno.test("report --from: saved reports of two shards walking a flow merge their transition counts", async () => {
  await using dir = await tempDir();
  const files = [join(dir.path, "shard1.json"), join(dir.path, "shard2.json")];
  const walks: [string, string][][] = [
    [["POST", "/cart/items"], ["DELETE", "/cart/items"], ["POST", "/cart/items"]],
    [["POST", "/cart/items"], ["POST", "/cart/pay"]],
  ];
  for (const [i, file] of files.entries()) {
    const served = await checkoutServer(walks[i], file);
    await using _ = served.process;
    served.process.kill("SIGTERM");
    assert.equal((await served.process.result()).code, 0);
  }
  const saved = JSON.parse(await Deno.readTextFile(files[1])) as Report;
  assert.deepEqual(saved.scenarios?.[0].transitions.map((t) => t.taken), [1, 1, 0, 0]);
  const json = await runCli(["report", "--from", ...files, "--format", "json", "--fail-on-unused"]);
  assert.equal(json.code, 1);
  assert.deepEqual(JSON.parse(json.stdout).scenarios, [
    {
      name: "checkout",
      transitions: [
        { from: "Started", to: "has-items", stub: "add-item", taken: 3 },
        { from: "has-items", to: "paid", stub: "pay", taken: 1 },
        { from: "paid", to: "Started", stub: "clear", taken: 0 },
        { from: "has-items", to: "Started", stub: "abandon", taken: 1 },
      ],
    },
  ]);
  assert.equal(
    json.stderr,
    "[ERROR] report check failed: 1 stub(s) never hit (--fail-on-unused); " +
      "1 scenario transition(s) never taken (--fail-on-unused)\n",
  );
  const markdown = await runCli(["report", "--from", ...files, "--format", "github-summary"]);
  assert.equal(markdown.code, 0);
  assert.ok(
    markdown.stdout.endsWith(
      [
        "### Scenario transitions",
        "",
        "Transitions taken: **3/4**",
        "",
        "| Scenario | From | To | Stub | Taken |",
        "| --- | --- | --- | --- | --- |",
        "| checkout | `Started` | `has-items` | `add-item` | ✅ 3 |",
        "| checkout | `has-items` | `paid` | `pay` | ✅ 1 |",
        "| checkout | `paid` | `Started` | `clear` | ❌ 0 |",
        "| checkout | `has-items` | `Started` | `abandon` | ✅ 1 |",
        "",
      ].join("\n"),
    ),
    markdown.stdout,
  );
});

Deno.test("report --from: a saved report whose scenarios are malformed is one [ERROR] line, exit 2", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "bad.json");
  const report = JSON.parse(await Deno.readTextFile(fixture("report_shard1.json")));
  await Deno.writeTextFile(file, JSON.stringify({ ...report, scenarios: [{ name: "checkout", transitions: [{}] }] }));
  const { code, stderr } = await runCli(["report", "--from", file]);
  assert.equal(code, 2);
  assert.equal(
    stderr,
    `[ERROR] ${file}: not a stubtool report: scenarios[0].transitions[0] needs from, to, stub and taken ` +
      "(write one with stubtool serve --report-file)\n",
  );
});

Deno.test("report: each WebSocket rule's matches; --fail-on-unused counts a rule that never matched", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "ws.yaml");
  await Deno.writeTextFile(
    config,
    [
      "routes:",
      "  - method: GET",
      "    path: /chat",
      "    websocket:",
      "      on_message:",
      "        - match: ping",
      "          send: pong",
      "        - match: {json: {type: subscribe}}",
      "          send: [{json: {ok: true}}]",
      "",
    ].join("\n"),
  );
  const served = await startServe(["--port", "0", "--quiet", "--config", config]);
  await using _ = served.process;
  const ws = new WebSocket(served.url.replace(/^http/, "ws") + "/chat");
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const reply = new Promise((resolve) => ws.once("message", (data) => resolve(data.toString())));
  ws.send("ping");
  assert.equal(await reply, "pong");
  ws.close();
  await new Promise((resolve) => ws.once("close", resolve));

  const json = await runCli(["report", "--url", served.url, "--format", "json"]);
  assert.deepEqual(JSON.parse(json.stdout).stubs[0].websocket_rules, [
    { match: "ping", matches: 1 },
    { match: '{json: {"type":"subscribe"}}', matches: 0 },
  ]);
  const text = await runCli(["report", "--url", served.url, "--fail-on-unused"]);
  assert.equal(text.code, 1);
  assert.match(
    text.stdout,
    /\nWebSocket rules matched: 1\/2\n {2}GET \/chat on_message\[1\] \(\{json: \{"type":"subscribe"\}\}\): never matched\n/,
  );
  assert.equal(text.stderr, "[ERROR] report check failed: 1 WebSocket rule(s) never matched (--fail-on-unused)\n");
});
