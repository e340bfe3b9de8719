// `serve --watch` as a subprocess: the config file is rewritten (in place and by rename,
// as editors save) while requests are in flight; broken rewrites are rejected.
import assert from "node:assert/strict";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Report } from "../src/report/types.ts";
import { get, lines, runCli, startServe, tempDir } from "./_cli.ts";

/** Waits until `check` returns true (polling), or fails after `timeoutMs`. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function report(url: string): Promise<Report> {
  return JSON.parse((await get(`${url}/__stubtool__/report`)).text);
}

function config(version: number, extra: string[] = []): string {
  return [
    "routes:",
    `  - { method: GET, path: /a, body: { version: ${version} } }`,
    "  - method: GET",
    "    path: /seq",
    "    sequence: [{ status: 201 }, { status: 202 }, { status: 203 }, { status: 204 }]",
    ...extra,
    "",
  ].join("\n");
}

Deno.test("serve --watch: rewrites while requests are in flight — none fails, hit counts and sequence positions carry over", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "stubs.yaml");
  await writeFile(file, config(1, ["  - { method: GET, path: /gone }"]));
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--watch",
    "--config",
    file,
    "--stub",
    "GET /inline -> 200",
  ]);
  await using _ = served.process;
  assert.match(served.process.stdout, /^watching .*stubs\.yaml: changes reload the stubs \(--watch\)$/m);
  assert.equal((await get(`${served.url}/seq`)).status, 201);
  assert.equal((await get(`${served.url}/seq`)).status, 202);

  // Four clients keep calling /a while the file changes under the server.
  let running = true;
  const statuses: number[] = [];
  const versions = new Set<number>();
  const client = async () => {
    while (running) {
      const answer = await get(`${served.url}/a`);
      statuses.push(answer.status);
      if (answer.status === 200) versions.add(JSON.parse(answer.text).version);
    }
  };
  const clients = Array.from({ length: 4 }, client);
  for (let version = 2; version <= 7; version++) {
    const text = config(version, version % 2 ? [] : ["  - { method: GET, path: /b }"]);
    if (version % 3 === 0) {
      await writeFile(file, text); // in place
    } else {
      await writeFile(`${file}.tmp`, text); // a new file renamed over the old one
      await rename(`${file}.tmp`, file);
    }
    await until(`version ${version}`, () => versions.has(version));
  }
  running = false;
  await Promise.all(clients);

  assert.ok(statuses.length > 20, `only ${statuses.length} requests`);
  assert.deepEqual(new Set(statuses), new Set([200]), "every request during the reloads was answered by a stub");
  const after = await report(served.url);
  assert.deepEqual(after.stubs.map((s) => [s.path, s.hit_count]), [
    ["/a", statuses.length],
    ["/seq", 2],
    ["/inline", 0],
  ]);
  assert.equal((await get(`${served.url}/seq`)).status, 203, "the sequence went on where it was");
  assert.equal((await get(`${served.url}/gone`)).status, 404);
  const reloads = lines(served.process.stdout).filter((line) => line.startsWith("[watch] "));
  assert.ok(reloads.length >= 6, served.process.stdout);
  assert.match(
    reloads[0],
    /^\[watch\] .*stubs\.yaml: \+1 -1 ~1 stubs \(\+GET \/b, -GET \/gone, ~GET \/a\); 4 stub\(s\) now$/,
  );
  assert.equal(served.process.stderr, "");
});

Deno.test("serve --watch: a broken rewrite is rejected with the validate [ERROR] lines; the old stubs keep answering", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "stubs.yaml");
  await writeFile(file, config(1));
  const served = await startServe(["--port", "0", "--quiet", "--watch", "--config", file]);
  await using _ = served.process;
  await get(`${served.url}/a`);

  await writeFile(file, "routes:\n  - { method: FETCH, path: /a }\n  - { method: GET, path: /new }\n");
  await until("the rejection", () => served.process.stderr.includes("has errors"));
  assert.deepEqual(lines(served.process.stderr), [
    "[ERROR] routes[0]: invalid method 'FETCH' (allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)",
    `[watch] ${file} has errors: keeping the previous 2 stub(s)`,
  ]);
  assert.equal((await get(`${served.url}/a`)).text, '{"version":1}');
  assert.equal((await get(`${served.url}/new`)).status, 404);

  await writeFile(file, "routes:\n  - { method: GET, path: /a\n"); // a syntax error
  await until("the second rejection", () => lines(served.process.stderr).length >= 4);
  assert.match(lines(served.process.stderr)[2], new RegExp(`^\\[ERROR\\] ${file.replaceAll(".", "\\.")}:\\d+:\\d+: `));
  assert.equal((await get(`${served.url}/a`)).status, 200);

  await writeFile(file, config(2));
  await until("the fix", () => served.process.stdout.includes("[watch] "));
  assert.equal((await get(`${served.url}/a`)).text, '{"version":2}');
  assert.deepEqual((await report(served.url)).stubs.map((s) => [s.path, s.hit_count]), [["/a", 4], ["/seq", 0]]);
});

Deno.test("serve --watch without a config file is a usage error, exit 2", async () => {
  const { code, stderr } = await runCli(["serve", "--watch", "--port", "0"], {
    env: { STUBTOOL_CONFIG: "/nonexistent/stubs.yaml" },
  });
  assert.equal(code, 2);
  assert.deepEqual(lines(stderr), [
    "[ERROR] --watch needs a config file to follow (--config FILE; /nonexistent/stubs.yaml not found (STUBTOOL_CONFIG)); run stubtool serve --help",
  ]);
});
