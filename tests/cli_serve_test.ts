// `stubtool serve` as a subprocess: banner, request log, inline stubs, flags, bad config,
// busy port, and graceful SIGTERM/SIGINT with --report-file.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Report } from "../src/report/types.ts";
import { BANNER, CliProcess, fixture, freePort, get, lines, runCli, startServe, tempDir } from "./_cli.ts";
import { rawRequest } from "./_http.ts";

/** A request-log line: METHOD TARGET STATUS [ID: STUB or UNMATCHED] TIMEms. */
const logLine = (method: string, target: string, status: number, stub: string) =>
  new RegExp(`^${method} ${RegExp.escape(target)} ${status} \\[${RegExp.escape(stub)}\\] \\d+\\.\\dms$`, "m");

/** The process's result, or undefined if it is still running after `ms`. */
async function exitWithin(process: CliProcess, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), ms));
  try {
    return await Promise.race([process.result(), late]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("serve: banner with URL, config, inline count and route table; then one log line per request", async () => {
  const config = fixture("valid.yaml");
  const served = await startServe([
    "--port",
    "0",
    "--config",
    config,
    "--stub",
    'POST /orders -> 201 {"id": "o-1"}',
  ]);
  await using _ = served.process;
  const url = `http://127.0.0.1:${served.port}`;
  assert.equal(served.url, url);
  assert.deepEqual(lines(served.process.stdout), [
    `stubtool 0.1.0 listening on ${url}`,
    `config: ${config} (2 route(s))`,
    "inline: 1 stub(s) from --stub",
    "  GET     /users/{id}  200  routes[0]",
    "  DELETE  /users/{id}  204  routes[1]",
    "  POST    /orders      201  --stub[0]",
    `dashboard: ${url}/__stubtool__/`,
    `report: ${url}/__stubtool__/report; one log line per request; Ctrl+C stops`,
  ]);

  assert.deepEqual(await get(`${url}/users/42?x=1`), { status: 200, text: '{"id":"42"}' });
  assert.deepEqual(await get(`${url}/orders`, { method: "POST" }), { status: 201, text: '{"id":"o-1"}' });
  assert.equal((await get(`${url}/nope`)).status, 404);
  assert.equal((await get(`${url}/__stubtool__/health`)).status, 200);

  await served.process.waitForStdout(logLine("GET", "/nope", 404, "UNMATCHED"));
  const log = lines(served.process.stdout).slice(8);
  assert.equal(log.length, 3, "reserved endpoints are not logged");
  assert.match(log[0], logLine("GET", "/users/42?x=1", 200, "stub-1: GET /users/{id}"));
  assert.match(log[1], logLine("POST", "/orders", 201, "stub-3: POST /orders"));
  assert.match(log[2], logLine("GET", "/nope", 404, "UNMATCHED"));
  assert.equal(served.process.stderr, "");
});

Deno.test("serve: a big config shows the first 40 routes and counts the rest; the report lists them all", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "many.json");
  const routes = Array.from({ length: 45 }, (_, i) => ({ method: "GET", path: `/r/${i}` }));
  await Deno.writeTextFile(config, JSON.stringify({ routes }));
  const served = await startServe(["--port", "0", "--quiet", "--config", config, "--stub", "GET /inline -> 204"]);
  await using _ = served.process;
  const banner = lines(served.process.stdout);
  assert.equal(banner[1], `config: ${config} (45 route(s))`);
  const table = banner.slice(3, -2);
  assert.equal(table.length, 41);
  assert.equal(table[0], "  GET  /r/0   200  routes[0]");
  assert.equal(table[39], "  GET  /r/39  200  routes[39]");
  assert.equal(table[40], "  … and 6 more routes (GET /__stubtool__/report lists them all)");
  const report = JSON.parse((await get(`${served.url}/__stubtool__/report`)).text) as Report;
  assert.equal(report.stubs.length, 46);
});

Deno.test("serve: a burst of requests gets every log line (buffered writes lose nothing)", async () => {
  const served = await startServe(["--port", "0", "--stub", "GET /n/{i} -> 200"]);
  await using _ = served.process;
  await Promise.all(Array.from({ length: 60 }, (_, i) => get(`${served.url}/n/${i}`)));
  await served.process.waitForStdout(/(^GET \/n\/\d+ 200 .*\n){60}/m);
  for (let i = 0; i < 60; i++) {
    assert.match(served.process.stdout, logLine("GET", `/n/${i}`, 200, "stub-1: GET /n/{i}"));
  }
});

Deno.test("serve --quiet: no request log lines, the banner says so", async () => {
  await using dir = await tempDir();
  const reportFile = join(dir.path, "report.json");
  const served = await startServe(["--port", "0", "--quiet", "--stub", "GET /x -> 200", "--report-file", reportFile]);
  await using _ = served.process;
  assert.match(served.process.stdout, /request log off \(--quiet\)/);
  await get(`${served.url}/x`);
  await get(`${served.url}/y`);
  served.process.kill("SIGTERM");
  const { code, stdout } = await served.process.result();
  assert.equal(code, 0);
  assert.doesNotMatch(stdout, /^GET \//m);
  // The requests were served and counted all the same.
  const report = JSON.parse(await Deno.readTextFile(reportFile)) as Report;
  assert.deepEqual(report.summary, { total_stubs: 1, matched_stubs: 1, unmatched_requests: 1 });
});

Deno.test("serve --stub: good inline stubs answer as written; whitespace around -> is optional", async () => {
  const served = await startServe([
    "--port",
    "0",
    "--stub",
    'GET /users/{id}->200 {"id": "{id}", "note": "a -> b"}',
    "--stub",
    "DELETE /users/{id} -> 204",
    "--stub",
    "get /search?q={term} ->404",
  ]);
  await using _ = served.process;
  assert.deepEqual(await get(`${served.url}/users/7`), { status: 200, text: '{"id":"7","note":"a -> b"}' });
  assert.deepEqual(await get(`${served.url}/users/7`, { method: "DELETE" }), { status: 204, text: "" });
  assert.equal((await get(`${served.url}/search?q=x`)).status, 404);
  assert.match(served.process.stdout, /^ {2}GET {5}\/search\?q=\{term\} +404 +--stub\[2\]$/m);
});

Deno.test("serve --stub: a malformed inline stub is [ERROR] --stub[i]: column n: ..., exit 1", async () => {
  const { code, stdout, stderr } = await runCli([
    "serve",
    "--port",
    "0",
    "--stub",
    "GET /ok -> 200",
    "--stub",
    "GET /users 200",
    "--stub",
    'POST /x -> 201 {"a":1,}',
    "--stub",
    "FETCH /y -> 200",
  ]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.deepEqual(lines(stderr), [
    "[ERROR] --stub[1]: column 12: expected '->' after the path",
    "[ERROR] --stub[2]: column 23: invalid JSON body: Expected double-quoted property name",
    "[ERROR] --stub[3]: column 1: invalid method 'FETCH' (allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)",
  ]);
});

Deno.test("serve --stub: inline stubs come after config stubs and override them; the overridden one is a [WARN]", async () => {
  const served = await startServe([
    "--port",
    "0",
    "--config",
    fixture("valid.yaml"),
    "--stub",
    "GET /users/{name} -> 418",
  ]);
  await using _ = served.process;
  assert.equal(
    served.process.stderr,
    `[WARN] routes[0]: shadowed by --stub[0] (GET /users/{name}), which matches every request it would; it can never match (at ${
      fixture("valid.yaml")
    }:2:5)\n`,
  );
  assert.equal((await get(`${served.url}/users/1`)).status, 418);
  const report = JSON.parse((await get(`${served.url}/__stubtool__/report`)).text) as Report;
  assert.deepEqual(report.stubs.map((s) => `${s.method} ${s.path}`), [
    "GET /users/{id}",
    "DELETE /users/{id}",
    "GET /users/{name}",
  ]);
});

Deno.test("serve: a bad config prints the same [ERROR] lines as validate, exit 1", async () => {
  const file = fixture("many_errors.yaml");
  const [served, validated] = await Promise.all([
    runCli(["serve", "--port", "0", "--config", file]),
    runCli(["validate", file]),
  ]);
  assert.equal(served.code, 1);
  assert.equal(served.stdout, "");
  assert.equal(served.stderr, validated.stderr);
  assert.equal(lines(served.stderr).length, 12);

  const missing = await runCli(["serve", "--port", "0", "--config", "/no/such/stubs.yaml"]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, "[ERROR] /no/such/stubs.yaml: no such file\n");
});

Deno.test("serve: config errors and --stub errors are all printed before exiting 1", async () => {
  const { code, stderr } = await runCli([
    "serve",
    "--port",
    "0",
    "--config",
    fixture("invalid_method.yaml"),
    "--stub",
    "GET /x",
  ]);
  assert.equal(code, 1);
  assert.deepEqual(lines(stderr), [
    `[ERROR] routes[1]: invalid method 'FETCH' (allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT) (at ${
      fixture("invalid_method.yaml")
    }:4:5)`,
    "[ERROR] --stub[0]: column 7: expected '-> STATUS' after the path",
  ]);
});

/** Tests of the default config path need it absent on this machine; say so rather than pass by accident. */
async function assertNoDefaultConfig(): Promise<void> {
  const exists = await Deno.stat("/config/stubs.yaml").then(() => true, () => false);
  assert.equal(exists, false, "this test needs /config/stubs.yaml to be absent");
}

Deno.test("serve: with zero stubs (no --config, no default file) it still serves, and says so", async () => {
  await assertNoDefaultConfig();
  const served = await startServe(["--port", "0"]);
  await using _ = served.process;
  assert.match(served.process.stdout, /^config: none \(\/config\/stubs\.yaml not found\)$/m);
  assert.match(
    served.process.stdout,
    /^no stubs defined: every request gets 404 and is recorded as unmatched \(add --config or --stub\)$/m,
  );
  assert.equal((await get(`${served.url}/anything`)).status, 404);
});

Deno.test("regression: STUBTOOL_CONFIG naming a missing file started an empty, healthy server; it is the validate error, exit 1", async () => {
  const file = "/no/such/dir/stubs.yaml";
  const process = new CliProcess(["serve", "--port", "0"], { env: { STUBTOOL_CONFIG: file } });
  await using _ = process;
  const [served, validated] = await Promise.all([exitWithin(process, 10_000), runCli(["validate", file])]);
  assert.ok(served, `serve started instead of failing:\n${process.stdout}`);
  assert.equal(served.code, 1);
  assert.equal(served.stdout, "");
  assert.equal(served.stderr, `[ERROR] ${file}: no such file\n`);
  assert.equal(served.stderr, validated.stderr);
});

Deno.test("serve: a busy port is one [ERROR] line naming the port, exit 1", async () => {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const { code, stdout, stderr } = await runCli(["serve", "--port", String(port), "--stub", "GET /x -> 200"]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(
    stderr,
    `[ERROR] port ${port}: already in use on 127.0.0.1; stop the other process or choose another --port\n`,
  );
});

Deno.test("regression: a busy port set by the config's port: suggested --port (which it overrides); the error names the file", async () => {
  await using dir = await tempDir();
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const config = join(dir.path, "stubs.yaml");
  await Deno.writeTextFile(config, `port: ${port}\nroutes:\n  - {method: GET, path: /x}\n`);
  const { code, stdout, stderr } = await runCli(["serve", "--config", config]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(
    stderr,
    `[ERROR] port ${port}: already in use on 127.0.0.1; stop the other process or change port: in ${config} ` +
      `(set by ${config}'s port:)\n`,
  );
});

Deno.test("serve --report-file: a directory that does not exist is a usage error before serving, exit 2", async () => {
  const { code, stderr } = await runCli(["serve", "--port", "0", "--report-file", "/no/such/dir/report.json"]);
  assert.equal(code, 2);
  assert.equal(
    stderr,
    "[ERROR] --report-file: directory /no/such/dir does not exist; create it first; run stubtool serve --help\n",
  );
});

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  const story = signal === "SIGHUP" ? " (regression: SIGHUP exited 129 without the report)" : "";
  Deno.test(`serve: ${signal} shuts down gracefully, writes --report-file, exit 0${story}`, async () => {
    await using dir = await tempDir();
    const reportFile = join(dir.path, "final.json");
    const served = await startServe([
      "--port",
      "0",
      "--config",
      fixture("valid.yaml"),
      "--report-file",
      reportFile,
    ]);
    await using _ = served.process;
    await get(`${served.url}/users/1`);
    await get(`${served.url}/users/2`);
    await get(`${served.url}/missing?q=1`);
    served.process.kill(signal);
    const { code, stdout, stderr } = await served.process.result();
    assert.equal(code, 0, stderr);
    assert.equal(stderr, "");
    const tail = lines(stdout).slice(-3);
    assert.equal(tail[0], `stopping (${signal}): no new connections; in-flight responses get up to 5s`);
    assert.equal(tail[1], `report written to ${reportFile}`);
    assert.equal(tail[2], "stopped: 1/2 stubs exercised, 1 unmatched request(s)");

    const text = await Deno.readTextFile(reportFile);
    const report = JSON.parse(text) as Report;
    assert.ok(text.startsWith('{\n  "summary"'), "2-space JSON");
    assert.deepEqual(report.summary, { total_stubs: 2, matched_stubs: 1, unmatched_requests: 1 });
    assert.deepEqual(report.stubs, [
      { id: "stub-1", method: "GET", path: "/users/{id}", hit_count: 2 },
      { id: "stub-2", method: "DELETE", path: "/users/{id}", hit_count: 0 },
    ]);
    assert.deepEqual(report.unused_stubs, [{ id: "stub-2", method: "DELETE", path: "/users/{id}" }]);
    assert.equal(report.unmatched_requests.length, 1);
    assert.equal(report.unmatched_requests[0].path, "/missing");
    assert.equal(report.unmatched_requests[0].query, "q=1");
    // The port is free again.
    using again = Deno.listen({ hostname: "127.0.0.1", port: served.port });
    assert.equal((again.addr as Deno.NetAddr).port, served.port);
  });
}

Deno.test("serve: SIGTERM lets an in-flight delayed response finish before exiting 0", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "slow.yaml");
  await Deno.writeTextFile(config, "routes:\n  - {method: GET, path: /slow, delay: 400, body: {done: true}}\n");
  const reportFile = join(dir.path, "report.json");
  const served = await startServe(["--port", "0", "--config", config, "--report-file", reportFile]);
  await using _ = served.process;
  const inFlight = get(`${served.url}/slow`);
  await new Promise((resolve) => setTimeout(resolve, 100)); // the request has arrived
  served.process.kill("SIGTERM");
  assert.deepEqual(await inFlight, { status: 200, text: '{"done":true}' });
  const { code } = await served.process.result();
  assert.equal(code, 0);
  const report = JSON.parse(await Deno.readTextFile(reportFile)) as Report;
  assert.equal(report.stubs[0].hit_count, 1);
});

Deno.test("serve: a second signal cuts in-flight responses short instead of waiting out the 5 s grace", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "slower.yaml");
  await Deno.writeTextFile(config, "routes:\n  - {method: GET, path: /slower, delay: 20000}\n");
  const served = await startServe(["--port", "0", "--config", config]);
  await using _ = served.process;
  const inFlight = get(`${served.url}/slower`).catch((error) => error);
  await served.process.waitForStdout(/^report: /m);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const start = performance.now();
  served.process.kill("SIGINT");
  await served.process.waitForStdout(/^stopping \(SIGINT\)/m);
  served.process.kill("SIGINT");
  const { code, stdout } = await served.process.result();
  assert.equal(code, 0);
  assert.ok(performance.now() - start < 3_000, `${performance.now() - start} ms`);
  assert.match(stdout, /^second signal: cutting in-flight responses short$/m);
  await inFlight;
});

/**
 * A client that starts a 100,000-byte upload and sends one more byte every 100 ms, so
 * its request is never complete. Stop it (and close the socket) when done.
 */
async function slowUpload(port: number): Promise<{ stop(): void }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const encoder = new TextEncoder();
  await conn.write(encoder.encode("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nx"));
  const timer = setInterval(() => conn.write(encoder.encode("x")).catch(() => {}), 100);
  return {
    stop() {
      clearInterval(timer);
      try {
        conn.close();
      } catch {
        // already closed by the server
      }
    },
  };
}

Deno.test("regression: a client still uploading kept serve alive after SIGTERM; the stop ends within the 5 s grace + 1 s", async () => {
  await using dir = await tempDir();
  const reportFile = join(dir.path, "report.json");
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--stub",
    "POST /upload -> 201",
    "--report-file",
    reportFile,
  ]);
  await using _ = served.process;
  const upload = await slowUpload(served.port);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300)); // the request is in flight
    const start = performance.now();
    served.process.kill("SIGTERM");
    const result = await exitWithin(served.process, 15_000);
    const ms = performance.now() - start;
    assert.ok(result, `serve still running 15 s after SIGTERM:\n${served.process.stdout}\n${served.process.stderr}`);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(ms < 5_000 + 1_000 + 2_000, `stopped ${ms.toFixed(0)} ms after SIGTERM`);
    // Whether the runtime closed the connection at the end of the grace or serve stopped waiting for it.
    assert.match(
      result.stderr,
      /^(\[WARN\] stop: connections still open 6s after SIGTERM \(a client still sending\?\); stopping without them\n)?$/,
    );
    assert.match(result.stdout, new RegExp(`^report written to ${RegExp.escape(reportFile)}$`, "m"));
    const report = JSON.parse(await Deno.readTextFile(reportFile)) as Report;
    assert.deepEqual(report.stubs.map((s) => s.path), ["/upload"]);
  } finally {
    upload.stop();
  }
});

Deno.test("regression: a second SIGTERM did not end serve while a client was uploading; now it exits at once, report written", async () => {
  await using dir = await tempDir();
  const reportFile = join(dir.path, "report.json");
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--stub",
    "POST /upload -> 201",
    "--report-file",
    reportFile,
  ]);
  await using _ = served.process;
  const upload = await slowUpload(served.port);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    served.process.kill("SIGTERM");
    await served.process.waitForStdout(/^stopping \(SIGTERM\)/m);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const start = performance.now();
    served.process.kill("SIGTERM");
    const result = await exitWithin(served.process, 15_000);
    const ms = performance.now() - start;
    assert.ok(result, `serve still running 15 s after the second SIGTERM:\n${served.process.stdout}`);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(ms < 2_500, `stopped ${ms.toFixed(0)} ms after the second SIGTERM`);
    assert.equal(result.stderr, "");
    const tail = lines(result.stdout).slice(-4);
    assert.deepEqual(tail, [
      "stopping (SIGTERM): no new connections; in-flight responses get up to 5s",
      "second signal: cutting in-flight responses short",
      `report written to ${reportFile}`,
      tail[3],
    ]);
    assert.match(tail[3], /^stopped: [01]\/1 stubs exercised, 0 unmatched request\(s\)$/);
    assert.deepEqual((JSON.parse(await Deno.readTextFile(reportFile)) as Report).summary.total_stubs, 1);
  } finally {
    upload.stop();
  }
});

/** Enough --stub flags that the report JSON is well past 1 KiB. */
const MANY_STUBS = Array.from({ length: 30 }, (_, i) => ["--stub", `GET /route/number/${i} -> 200`]).flat();

Deno.test("regression: --report-file was written in place, so a failed write (disk full) destroyed the previous report", async () => {
  await using dir = await tempDir();
  const reportFile = join(dir.path, "report.json");
  const previous = '{"previous": "report"}\n';
  await Deno.writeTextFile(reportFile, previous);
  // Writing a file past 1 KiB fails with EFBIG, as it would on a full disk.
  const served = await startServe(["--port", "0", "--quiet", "--report-file", reportFile, ...MANY_STUBS], {
    limitFileSize: true,
  });
  await using _ = served.process;
  served.process.kill("SIGTERM");
  const { code, stderr } = await served.process.result();
  assert.equal(code, 1);
  assert.equal(
    stderr,
    `[ERROR] --report-file ${reportFile}: cannot write the report: file too large (a file size limit)\n`,
  );
  assert.equal(await Deno.readTextFile(reportFile), previous, "the previous report is intact");
  assert.deepEqual(await Array.fromAsync(Deno.readDir(dir.path), (e) => e.name), ["report.json"], "no temporary file");
});

Deno.test("serve --report-file: replaces the previous report whole, keeps its permissions, leaves no temporary file", async () => {
  await using dir = await tempDir();
  const reportFile = join(dir.path, "report.json");
  await Deno.writeTextFile(reportFile, "old");
  await Deno.chmod(reportFile, 0o640);
  const served = await startServe(["--port", "0", "--quiet", "--report-file", reportFile, ...MANY_STUBS]);
  await using _ = served.process;
  served.process.kill("SIGTERM");
  assert.equal((await served.process.result()).code, 0);
  const report = JSON.parse(await Deno.readTextFile(reportFile)) as Report;
  assert.equal(report.summary.total_stubs, 30);
  assert.equal((await Deno.stat(reportFile)).mode! & 0o777, 0o640);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(dir.path), (e) => e.name), ["report.json"]);
});

Deno.test("regression: request log lines printed control and bidi characters a client sent raw; they are escaped", async () => {
  // Raw bytes past ASCII in the request target reach the handler on the Deno.serve wire only;
  // node:http (the default wire) refuses them with a JSON 400 before any handler runs.
  const refused = await startServe(["--port", "0", "--quiet", "--stub", "GET /a -> 200"]);
  await using __ = refused.process;
  const raw = await rawRequest(
    refused.port,
    "GET /files/\u202Egpj.exe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
  );
  assert.equal(raw.statusLine, "HTTP/1.1 400 Bad Request");
  assert.match(JSON.parse(raw.body).error, /^malformed request/);
  const served = await startServe(["--port", "0", "--adapter", "deno", "--stub", "GET /a -> 200"]);
  await using _ = served.process;
  const encoder = new TextEncoder();
  // Raw UTF-8 bytes of U+202E (RIGHT-TO-LEFT OVERRIDE) in the path, as a client can send them.
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: served.port });
  await conn.write(encoder.encode("GET /files/\u202Egpj.exe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const answer = new TextDecoder().decode(await new Response(conn.readable).bytes());
  assert.match(answer, /^HTTP\/1\.1 404 /);
  await get(`${served.url}/p%1b[2J`); // percent-encoded: harmless as written
  await served.process.waitForStdout(/^GET \/p%1b/m);
  const log = lines(served.process.stdout).filter((line) => line.startsWith("GET /"));
  assert.deepEqual(log.map((line) => line.replace(/ \d+\.\dms$/, "")), [
    "GET /files/\\u202egpj.exe 404 [UNMATCHED]",
    "GET /p%1b[2J 404 [UNMATCHED]",
  ]);
});

Deno.test("serve --max-unmatched: the report keeps the N most recent, the total stays exact", async () => {
  const served = await startServe(["--port", "0", "--max-unmatched", "2", "--quiet"]);
  await using _ = served.process;
  for (const path of ["/a", "/b", "/c"]) await get(served.url + path);
  const report = JSON.parse((await get(`${served.url}/__stubtool__/report`)).text) as Report;
  assert.equal(report.summary.unmatched_requests, 3);
  assert.deepEqual(report.unmatched_requests.map((r) => r.path), ["/b", "/c"]);
});

Deno.test("serve --max-body: a larger request body gets 413", async () => {
  const served = await startServe(["--port", "0", "--max-body", "16", "--stub", "POST /upload -> 201"]);
  await using _ = served.process;
  assert.equal((await get(`${served.url}/upload`, { method: "POST", body: "x".repeat(16) })).status, 201);
  const tooBig = await get(`${served.url}/upload`, { method: "POST", body: "x".repeat(17) });
  assert.equal(tooBig.status, 413);
  assert.match(tooBig.text, /larger than 16 bytes/);
});

Deno.test("serve --handler-timeout: a value in seconds is accepted", async () => {
  const served = await startServe(["--port", "0", "--handler-timeout", "0.5", "--stub", "GET /x -> 200"]);
  await using _ = served.process;
  assert.equal((await get(`${served.url}/x`)).status, 200);
});

Deno.test("serve --journal-size: /__stubtool__/requests keeps the N most recent; the banner names the dashboard", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--journal-size", "2", "--stub", "GET /a -> 204"]);
  await using _ = served.process;
  assert.match(served.process.stdout, new RegExp(`^dashboard: ${served.url}/__stubtool__/$`, "m"));
  for (const path of ["/a", "/b", "/a?x=1"]) await get(served.url + path);
  const journal = JSON.parse((await get(`${served.url}/__stubtool__/requests`)).text);
  assert.equal(journal.capacity, 2);
  assert.equal(journal.total, 3);
  assert.deepEqual(journal.requests.map((r: { target: string; status: number }) => [r.target, r.status]), [
    ["/b", 404],
    ["/a?x=1", 204],
  ]);
  const page = await get(`${served.url}/__stubtool__/`);
  assert.equal(page.status, 200);
  assert.match(page.text, /<strong>1 of 1<\/strong> stub exercised \(100%\)/);
});

Deno.test("serve --journal-size 0: no journal, the banner and the dashboard say so", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--journal-size", "0", "--stub", "GET /a -> 204"]);
  await using _ = served.process;
  assert.match(
    served.process.stdout,
    new RegExp(`^dashboard: ${served.url}/__stubtool__/ \\(request journal off\\)$`, "m"),
  );
  await get(`${served.url}/a`);
  assert.deepEqual(JSON.parse((await get(`${served.url}/__stubtool__/requests`)).text), {
    capacity: 0,
    total: 0,
    requests: [],
  });
  assert.match((await get(`${served.url}/__stubtool__/`)).text, /The request journal is off/);
});

Deno.test("serve --scopes: scoped reports work; without the flag ?scope= is a 400 that names the flag", async () => {
  const scoped = { headers: { "x-stubtool-scope": "a_test.ts" } };
  {
    const served = await startServe(["--port", "0", "--quiet", "--scopes", "--stub", "GET /a -> 204"]);
    await using _ = served.process;
    await (await fetch(`${served.url}/a`, scoped)).body?.cancel();
    await get(`${served.url}/a`);
    const report = JSON.parse((await get(`${served.url}/__stubtool__/report?scope=a_test.ts`)).text);
    assert.deepEqual(report.stubs, [{ id: "stub-1", method: "GET", path: "/a", hit_count: 1 }]);
  }
  const served = await startServe(["--port", "0", "--quiet", "--stub", "GET /a -> 204"]);
  await using _ = served.process;
  await (await fetch(`${served.url}/a`, scoped)).body?.cancel();
  const off = await get(`${served.url}/__stubtool__/report?scope=a_test.ts`);
  assert.equal(off.status, 400);
  assert.deepEqual(JSON.parse(off.text), {
    error: "scoped coverage is off: start the server with --scopes (API: stubServer(port, { scopes: true }))",
  });
});

Deno.test("serve --journal-size: a value that is not a whole number is a usage error, exit 2", async () => {
  const { code, stdout, stderr } = await runCli(["serve", "--port", "0", "--journal-size", "1.5"]);
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.equal(
    stderr,
    '[ERROR] --journal-size: must be a whole number of 0 or more, got "1.5"; run stubtool serve --help\n',
  );
});

// ---- port, host and config precedence (flags, environment, config file) -------------

Deno.test("serve: without --port, STUBTOOL_PORT or a config port, the port is 8080", async () => {
  const process = new CliProcess(["serve", "--quiet"]);
  await using _ = process;
  // Port 8080 may be taken on this machine: then the error names it. Either way it is 8080.
  const outcome = await Promise.race([
    process.waitForStdout(BANNER).then((m) => m[2]),
    process.result().then((r) => /^\[ERROR\] port (\d+): already in use/.exec(r.stderr)?.[1] ?? r.stderr),
  ]);
  assert.equal(outcome, "8080");
});

Deno.test("serve: STUBTOOL_PORT sets the port when --port is absent", async () => {
  const port = freePort();
  const served = await startServe(["--stub", "GET /x -> 200"], { env: { STUBTOOL_PORT: String(port) } });
  await using _ = served.process;
  assert.equal(served.port, port);
});

Deno.test("serve: --port wins over STUBTOOL_PORT", async () => {
  // STUBTOOL_PORT names a busy port: serving there would fail.
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = await startServe(["--port", "0"], {
    env: { STUBTOOL_PORT: String((busy.addr as Deno.NetAddr).port) },
  });
  await using _ = served.process;
  assert.notEqual(served.port, (busy.addr as Deno.NetAddr).port);
});

Deno.test("serve: the config file's port wins over --port and STUBTOOL_PORT, with a [WARN]", async () => {
  await using dir = await tempDir();
  const port = freePort();
  const config = join(dir.path, "port.yaml");
  await Deno.writeTextFile(config, `port: ${port}\nroutes:\n  - {method: GET, path: /x}\n`);
  const served = await startServe(["--port", "0", "--config", config], { env: { STUBTOOL_PORT: "1" } });
  await using _ = served.process;
  assert.equal(served.port, port);
  assert.equal(served.process.stderr, `[WARN] port: ${config} sets port ${port}, which wins over --port 0\n`);
  assert.equal((await get(`http://127.0.0.1:${port}/x`)).status, 200);
});

/** An address of this machine other than 127.0.0.1: reachable only when bound to all interfaces. */
function otherAddress(): string {
  const external = Object.values(Deno.networkInterfaces()).find((i) =>
    i.family === "IPv4" && i.address !== "127.0.0.1"
  );
  // Linux routes all of 127.0.0.0/8 to loopback; a socket bound to 127.0.0.1 does not accept 127.0.0.2.
  return external?.address ?? "127.0.0.2";
}

async function reachable(url: string): Promise<boolean> {
  try {
    await get(url, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

Deno.test("serve: STUBTOOL_HOST=0.0.0.0 binds all interfaces; the default binds loopback only", async () => {
  const address = otherAddress();
  const open = await startServe(["--port", "0", "--stub", "GET /x -> 200"], { env: { STUBTOOL_HOST: "0.0.0.0" } });
  await using _ = open.process;
  assert.match(open.process.stdout, /listening on http:\/\/127\.0\.0\.1:\d+ \(bound to 0\.0\.0\.0\)/);
  assert.ok(await reachable(`http://${address}:${open.port}/x`), `reachable at ${address}`);

  const loopback = await startServe(["--port", "0", "--stub", "GET /x -> 200"]);
  await using __ = loopback.process;
  assert.equal(await reachable(`http://${address}:${loopback.port}/x`), false);
  assert.ok(await reachable(`${loopback.url}/x`));
});

/** The one warning a server whose admin API anyone on the network can use prints at start. */
const OPEN_ADMIN = "the admin API (/__stubtool__/) is open to the network: anyone who can reach this port can change " +
  "its stubs and read the requests sent to it; close it with --admin-token TOKEN (or $STUBTOOL_ADMIN_TOKEN)";

Deno.test("serve on all interfaces without --admin-token prints one [WARN] that its admin API is open to the network", async () => {
  const stderrOf = async (args: string[], env?: Record<string, string>) => {
    const served = await startServe(["--port", "0", "--quiet", ...args], { env });
    served.process.kill("SIGTERM");
    const { code, stderr } = await served.process.result();
    assert.equal(code, 0, stderr);
    return lines(stderr);
  };
  assert.deepEqual(await stderrOf(["--host", "0.0.0.0"]), [`[WARN] --host 0.0.0.0: ${OPEN_ADMIN}`]);
  assert.deepEqual(await stderrOf([], { STUBTOOL_HOST: "0.0.0.0" }), [`[WARN] STUBTOOL_HOST 0.0.0.0: ${OPEN_ADMIN}`]);
  assert.deepEqual(await stderrOf(["--host", "0.0.0.0", "--admin-token", "t0k"]), []);
  assert.deepEqual(await stderrOf([], { STUBTOOL_HOST: "0.0.0.0", STUBTOOL_ADMIN_TOKEN: "t0k" }), []);
  assert.deepEqual(await stderrOf(["--host", "127.0.0.1"]), [], "a loopback bind is not open to the network");
  assert.deepEqual(await stderrOf(["--host", "localhost"]), []);
});

Deno.test("serve: --host wins over STUBTOOL_HOST", async () => {
  const served = await startServe(["--port", "0", "--host", "127.0.0.1"], { env: { STUBTOOL_HOST: "0.0.0.0" } });
  await using _ = served.process;
  assert.doesNotMatch(served.process.stdout, /bound to/);
  assert.equal(await reachable(`http://${otherAddress()}:${served.port}/`), false);
});

Deno.test("serve: STUBTOOL_CONFIG names the default config file; --config wins over it", async () => {
  const fromEnv = await startServe(["--port", "0"], { env: { STUBTOOL_CONFIG: fixture("valid.yaml") } });
  await using _ = fromEnv.process;
  assert.match(
    fromEnv.process.stdout,
    new RegExp(`^config: ${RegExp.escape(fixture("valid.yaml"))} \\(2 route\\(s\\)\\)$`, "m"),
  );
  assert.equal((await get(`${fromEnv.url}/users/1`)).status, 200);

  const flag = await startServe(["--port", "0", "--config", fixture("merge_keys.yaml")], {
    env: { STUBTOOL_CONFIG: fixture("valid.yaml") },
  });
  await using __ = flag.process;
  assert.match(flag.process.stdout, new RegExp(`^config: ${RegExp.escape(fixture("merge_keys.yaml"))} `, "m"));
  assert.equal((await get(`${flag.url}/admins/1`)).status, 200);
});

Deno.test("serve: without --config or STUBTOOL_CONFIG the default is /config/stubs.yaml", async () => {
  const served = await startServe(["--port", "0"]);
  await using _ = served.process;
  let exists = true;
  try {
    await Deno.stat("/config/stubs.yaml");
  } catch {
    exists = false;
  }
  assert.match(
    served.process.stdout,
    exists ? /^config: \/config\/stubs\.yaml \(/m : /^config: none \(\/config\/stubs\.yaml not found\)$/m,
  );
});

Deno.test("regression: serve with a proxy stub crashed printing the route table (a proxy has no status of its own)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/stubs.yaml`,
      "routes:\n  - { method: GET, path: /p, proxy: http://127.0.0.1:9 }\n",
    );
    const proxied = await startServe(["--port", "0", "--config", `${dir}/stubs.yaml`]);
    await using _ = proxied.process;
    assert.match(proxied.process.stdout, /^ {2}GET {2}\/p {2}proxy http:\/\/127\.0\.0\.1:9 {2}routes\[0\]$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("regression: serve's route table showed three identical GET /cart 200 lines and the log no scenario move; both show the state", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "cart.yaml");
  await Deno.writeTextFile(
    config,
    `routes:
  - {method: GET, path: /cart, scenario: cart, when_state: Started, body: {items: []}}
  - {method: POST, path: /cart, scenario: cart, when_state: Started, set_state: one-item, status: 201}
  - {method: GET, path: /cart, scenario: cart, when_state: one-item, body: {items: [book]}}
  - {method: POST, path: /logout, scenario: cart, set_state: Started, status: 204}
  - {method: GET, path: /health, body: ok}
`,
  );
  const served = await startServe(["--port", "0", "--config", config]);
  await using _ = served.process;
  const url = `http://127.0.0.1:${served.port}`;
  assert.deepEqual(lines(served.process.stdout).slice(2, 7), [
    `  GET   /cart    200  [cart: Started]             routes[0]`,
    `  POST  /cart    201  [cart: Started → one-item]  routes[1]`,
    `  GET   /cart    200  [cart: one-item]            routes[2]`,
    `  POST  /logout  204  [cart: * → Started]         routes[3]`,
    `  GET   /health  200                              routes[4]`,
  ]);
  assert.equal((await get(`${url}/cart`, { method: "POST" })).status, 201);
  assert.equal((await get(`${url}/cart`)).status, 200);
  assert.equal((await get(`${url}/logout`, { method: "POST" })).status, 204);
  await served.process.waitForStdout(/POST \/logout 204/);
  const log = lines(served.process.stdout).slice(9);
  assert.match(log[0], /^POST \/cart 201 \[stub-2: POST \/cart\] \[cart: Started → one-item\] \d+\.\dms$/);
  assert.match(log[1], /^GET \/cart 200 \[stub-3: GET \/cart\] \d+\.\dms$/);
  assert.match(log[2], /^POST \/logout 204 \[stub-4: POST \/logout\] \[cart: one-item → Started\] \d+\.\dms$/);
});
