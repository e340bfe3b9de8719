// The `stubtool` bin of the npm package, as a user runs it after `npm install stubtool`:
// through npx and through node_modules/.bin (a symlink run by its shebang).
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { spawn } from "node:child_process";
import { installedPackage, run, start } from "./_package.mjs";

let pkg;
let bin;

before(async () => {
  pkg = await installedPackage();
  bin = join(pkg.dir, "node_modules", ".bin", "stubtool");
});

/** A port nothing listens on right now. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForHealth(url, exited) {
  let done = false;
  exited.then(() => done = true);
  for (let i = 0; i < 100 && !done; i++) {
    try {
      if ((await fetch(`${url}/__stubtool__/health`)).ok) return;
    } catch { /* not yet */ }
    await sleep(100);
  }
  throw new Error(`stubtool serve did not become healthy at ${url}`);
}

describe("npm package: the stubtool bin", () => {
  it("is declared as `stubtool` and answers --help (npx) and --version", () => {
    assert.deepEqual(pkg.manifest.bin, { stubtool: "esm/cli.js" });
    const help = run("npx", ["--no-install", "stubtool", "--help"], pkg.dir);
    assert.match(help.stdout, /Usage: stubtool <command>/);
    assert.match(help.stdout, /serve/);
    const version = run(bin, ["--version"], pkg.dir);
    assert.equal(version.stdout.trim(), `stubtool ${pkg.manifest.version}`);
  });

  it("validates a YAML config (the yaml dependency is installed with the package)", () => {
    writeFileSync(
      join(pkg.dir, "stubs.yaml"),
      "routes:\n  - method: GET\n    path: /users/{id}\n    body: {id: '{id}'}\n",
    );
    const ok = run(bin, ["validate", "stubs.yaml"], pkg.dir);
    assert.match(ok.stdout, /^\[OK\] stubs\.yaml is valid \(1 route\(s\) defined\)/);
    writeFileSync(join(pkg.dir, "bad.yaml"), "routes:\n  - method: FETCH\n    path: /x\n");
    const bad = run(bin, ["validate", "bad.yaml"], pkg.dir, { allowFailure: true });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /^\[ERROR\] routes\[0\]: invalid method 'FETCH'.* \(at bad\.yaml:2:5\)$/m);
  });

  it("checks stubs against OpenAPI 3.0 and 3.1 documents (validate --openapi; the parser and ajv ship as dependencies)", () => {
    const fixtures = new URL("../fixtures/openapi/", import.meta.url).pathname;
    for (const version of ["3.0", "3.1"]) {
      const spec = join(fixtures, `users-${version}.yaml`);
      const clean = run(bin, ["validate", join(fixtures, "clean.yaml"), "--openapi", spec], pkg.dir);
      assert.match(
        clean.stdout,
        /^\[OK\] every stub agrees with .*users-3\.\d\.yaml \(OpenAPI 3\.\d\.\d, 8 operation\(s\)\)$/m,
      );
      const drift = run(bin, ["validate", join(fixtures, "drift.yaml"), "--openapi", spec], pkg.dir, {
        allowFailure: true,
      });
      assert.equal(drift.status, 1, drift.stderr);
      assert.equal(drift.stderr.trim().split("\n").length, 8, drift.stderr);
      assert.match(
        drift.stderr,
        /^\[ERROR\] routes\[4\]: GET \/users\/\{id\}\/invoices: sequence\[0\]\.body at \/0\/amount must be > 0.* \(at \S+drift\.yaml:20:9\)$/m,
      );
    }
  });

  it("imports an OpenAPI spec and mocks it with serve --openapi --mock under Node (openapi-sampler and randexp ship)", async () => {
    const spec = new URL("../fixtures/openapi/petstore.yaml", import.meta.url).pathname;
    const imported = run(bin, ["import", "openapi", spec, "-o", "pets.yaml"], pkg.dir);
    assert.equal(imported.stdout, `imported 3 stub(s) from 3 operation(s) of ${spec} → pets.yaml\n`);
    assert.match(run(bin, ["validate", "pets.yaml"], pkg.dir).stdout, /^\[OK\] pets\.yaml is valid \(3 route/);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = start(bin, ["serve", "--port", String(port), "--openapi", spec, "--mock"], pkg.dir);
    try {
      await waitForHealth(url, server.exited);
      assert.deepEqual(await (await fetch(`${url}/pets/42`)).json(), { id: 0, name: "string", tag: "string" });
      assert.equal((await fetch(`${url}/pets`, { method: "POST", body: "{}" })).status, 201);
    } finally {
      server.child.kill("SIGTERM");
    }
    const { code, stdout, stderr } = await server.exited;
    assert.equal(code, 0, `exit ${code}\n${stdout}\n${stderr}`);
    assert.match(stdout, /^openapi: \S+petstore\.yaml \(OpenAPI 3\.0\.0, 3 operation\(s\)\): 3 mocked/m);
  });

  it("serves config and inline stubs, and exits 0 on SIGTERM after writing the report file", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = start(bin, [
      "serve",
      "--port",
      String(port),
      "--config",
      "stubs.yaml",
      "--stub",
      'GET /ping -> 200 {"pong": true}',
      "--report-file",
      "report.json",
    ], pkg.dir);
    try {
      await waitForHealth(url, server.exited);
      assert.deepEqual(await (await fetch(`${url}/ping`)).json(), { pong: true });
      assert.deepEqual(await (await fetch(`${url}/users/7`)).json(), { id: "7" });
      assert.equal((await fetch(`${url}/nope`)).status, 404);
      const report = run(bin, ["report", "--url", url, "--format", "json"], pkg.dir);
      assert.equal(JSON.parse(report.stdout).summary.matched_stubs, 2);
    } finally {
      server.child.kill("SIGTERM");
    }
    const { code, stdout, stderr } = await server.exited;
    assert.equal(code, 0, `exit ${code}\n${stdout}\n${stderr}`);
    assert.match(stdout, new RegExp(url.replaceAll(".", "\\.")));
    const saved = JSON.parse(readFileSync(join(pkg.dir, "report.json"), "utf8"));
    assert.deepEqual(saved.summary, { total_stubs: 2, matched_stubs: 2, unmatched_requests: 1 });
  });

  it("stops on SIGHUP like SIGTERM: exit 0, the report file replaced (regression: SIGHUP killed it without the report)", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    writeFileSync(join(pkg.dir, "hup-report.json"), "previous");
    const args = ["serve", "--port", String(port), "--stub", "GET /a -> 200", "--report-file", "hup-report.json"];
    const server = start(bin, args, pkg.dir);
    try {
      await waitForHealth(url, server.exited);
      assert.equal((await fetch(`${url}/nope`)).status, 404);
    } finally {
      server.child.kill("SIGHUP");
    }
    const { code, stdout, stderr } = await server.exited;
    assert.equal(code, 0, `exit ${code}\n${stdout}\n${stderr}`);
    assert.match(stdout, /^stopping \(SIGHUP\): /m);
    const saved = JSON.parse(readFileSync(join(pkg.dir, "hup-report.json"), "utf8"));
    assert.deepEqual(saved.summary, { total_stubs: 1, matched_stubs: 0, unmatched_requests: 1 });
  });
  it("answers 3,000 requests while nobody reads its stdout, then counts the log lines that did not fit exactly", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const requests = 3000;
    // 1 KB of query per line: 3 MB of log, past the 1 MiB the CLI holds for a stdout nobody reads.
    const pad = "p".repeat(1000);
    const args = ["serve", "--port", String(port), "--stub", "GET /n/{i} -> 200"];
    const child = spawn(bin, args, { cwd: pkg.dir, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk) => stderr += chunk);
    const exited = new Promise((resolve) => child.on("close", (code) => resolve(code)));
    let stdout = "";
    try {
      await waitForHealth(url, exited);
      for (let i = 0; i < requests; i++) {
        const response = await fetch(`${url}/n/${i}?pad=${pad}`, { signal: AbortSignal.timeout(10_000) }).catch(
          (error) => assert.fail(`request ${i} of ${requests} was not answered: ${error}`),
        );
        assert.equal(response.status, 200);
        await response.arrayBuffer();
      }
      const warning = /^\[WARN\] (\d+) log lines dropped: stdout is not being read$/m;
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no warning in time:\n${stdout.slice(-500)}`)), 15_000);
        child.stdout.setEncoding("utf8").on("data", (chunk) => {
          stdout += chunk;
          if (warning.test(stdout)) resolve(clearTimeout(timer));
        });
      });
      child.kill("SIGTERM");
      assert.equal(await exited, 0, stderr);
      assert.equal(stderr, "");
      const logged = stdout.split("\n").flatMap((line) => {
        const match = /^GET \/n\/(\d+)\?pad=p+ 200 \[stub-\d+: GET \/n\/\{i\}\] \d+\.\dms$/.exec(line);
        return match ? [Number(match[1])] : [];
      });
      const dropped = Number(warning.exec(stdout)[1]);
      assert.ok(dropped > 0 && logged.length > 0, `${logged.length} logged, ${dropped} dropped`);
      assert.deepEqual(logged, Array.from({ length: logged.length }, (_, i) => i), "the first requests, in order");
      assert.equal(logged.length + dropped, requests);
      assert.match(stdout, /^stopped: 1\/1 stubs exercised, 0 unmatched request\(s\)\n$/m);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
