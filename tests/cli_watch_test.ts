// `serve --watch` as a subprocess: the config file is rewritten (in place and by rename,
// as editors save) while requests are in flight; broken rewrites are rejected; symbolic
// links, ConfigMap updates, slow writers and a removed folder are followed.
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
    `[ERROR] routes[0]: invalid method 'FETCH' (allowed: ANY, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT) (at ${file}:2:7)`,
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
  const exists = await Deno.stat("/config/stubs.yaml").then(() => true, () => false);
  assert.equal(exists, false, "this test needs /config/stubs.yaml to be absent");
  const { code, stderr } = await runCli(["serve", "--watch", "--port", "0"]);
  assert.equal(code, 2);
  assert.deepEqual(lines(stderr), [
    "[ERROR] --watch needs a config file to follow (--config FILE; /config/stubs.yaml not found); run stubtool serve --help",
  ]);
});

/** `GET /v` answers `{"v": version}`; `extra` lines are more stubs. */
function versioned(version: number, extra: string[] = []): string {
  return ["routes:", `  - { method: GET, path: /v, body: { v: ${version} } }`, ...extra, ""].join("\n");
}

/** The `v` that `GET /v` answers now. */
async function versionOf(url: string): Promise<number | undefined> {
  const answer = await get(`${url}/v`);
  return answer.status === 200 ? JSON.parse(answer.text).v : undefined;
}

/** Points the symbolic link `link` at `target` in one step, as `ln -sfn` or a ConfigMap update does (a new link renamed over it). */
async function swapLink(link: string, target: string): Promise<void> {
  await Deno.symlink(target, `${link}.tmp`);
  await rename(`${link}.tmp`, link);
}

Deno.test("regression: serve --watch follows a symlinked config — the target edited in place, then the link pointed elsewhere", async () => {
  await using dir = await tempDir();
  const v1 = join(dir.path, "stubs-v1.yaml");
  const v2 = join(dir.path, "stubs-v2.yaml");
  await writeFile(v1, versioned(1));
  await writeFile(v2, versioned(20));
  const link = join(dir.path, "stubs.yaml");
  await Deno.symlink(v1, link);
  const served = await startServe(["--port", "0", "--quiet", "--watch", "--config", link]);
  await using _ = served.process;
  assert.equal(await versionOf(served.url), 1);

  await writeFile(v1, versioned(2)); // the target changes; the link does not
  await until("the edited target", async () => await versionOf(served.url) === 2);
  await swapLink(link, v2); // the link changes; neither target does
  await until("the new target", async () => await versionOf(served.url) === 20);
  await writeFile(v2, versioned(21));
  await until("the new target, edited", async () => await versionOf(served.url) === 21);
  assert.equal(served.process.stderr, "");
});

Deno.test("regression: serve --watch follows Kubernetes ConfigMap updates (the ..data link swapped to a new timestamped folder)", async () => {
  await using dir = await tempDir();
  // The layout kubelet mounts: stubs.yaml -> ..data/stubs.yaml, ..data -> ..2026_11_24_<time>.
  const mount = async (folder: string, version: number) => {
    await Deno.mkdir(join(dir.path, folder));
    await writeFile(join(dir.path, folder, "stubs.yaml"), versioned(version));
  };
  await mount("..2026_11_24_10_00_00.000000001", 1);
  await Deno.symlink("..2026_11_24_10_00_00.000000001", join(dir.path, "..data"));
  await Deno.symlink("..data/stubs.yaml", join(dir.path, "stubs.yaml"));
  const served = await startServe(["--port", "0", "--quiet", "--watch", "--config", join(dir.path, "stubs.yaml")]);
  await using _ = served.process;
  assert.equal(await versionOf(served.url), 1);

  let previous = "..2026_11_24_10_00_00.000000001";
  for (const [i, version] of [2, 3].entries()) {
    // An update: a new timestamped folder, ..data swapped to it at once, the old folder removed.
    const folder = `..2026_11_24_10_0${i + 1}_00.000000001`;
    await mount(folder, version);
    await swapLink(join(dir.path, "..data"), folder);
    await Deno.remove(join(dir.path, previous), { recursive: true });
    previous = folder;
    await until(`ConfigMap version ${version}`, async () => await versionOf(served.url) === version);
  }
  assert.equal(served.process.stderr, "");
  assert.equal(lines(served.process.stdout).filter((line) => line.startsWith("[watch] ")).length, 2);
});

Deno.test("regression: serve --watch loaded a file written in two chunks 300 ms apart half-way (a stub's hit count dropped 5 -> 0)", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "stubs.yaml");
  const first = "routes:\n  - { method: GET, path: /v, body: { v: 1 } }\n";
  const second = "  - { method: GET, path: /counted }\n";
  await writeFile(file, first + second);
  const served = await startServe(["--port", "0", "--quiet", "--watch", "--config", file]);
  await using _ = served.process;
  for (let i = 0; i < 5; i++) assert.equal((await get(`${served.url}/counted`)).status, 200);

  // The new version, written as a slow writer does: the first half (valid YAML on its own), a pause, the rest.
  const handle = await Deno.open(file, { write: true, truncate: true });
  await handle.write(new TextEncoder().encode(first.replace("v: 1", "v: 2")));
  await new Promise((resolve) => setTimeout(resolve, 300));
  await handle.write(new TextEncoder().encode(second));
  handle.close();

  await until("the new version", async () => await versionOf(served.url) === 2);
  const after = await report(served.url);
  assert.deepEqual(after.stubs.map((s) => s.path), ["/v", "/counted"]);
  assert.equal(after.stubs[1].hit_count, 5, "the half file (without /counted) was never loaded");
  const reloads = lines(served.process.stdout).filter((line) => line.startsWith("[watch] "));
  assert.deepEqual(reloads, [`[watch] ${file}: +0 -0 ~1 stubs (~GET /v); 2 stub(s) now`]);
});

Deno.test("regression: serve --watch stopped for good when the config's folder was removed; it says so and goes on when the folder is back", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "config");
  const file = join(folder, "stubs.yaml");
  await Deno.mkdir(folder);
  await writeFile(file, versioned(1));
  const served = await startServe(["--port", "0", "--quiet", "--watch", "--config", file]);
  await using _ = served.process;

  await Deno.remove(folder, { recursive: true });
  await until("the missing file reported", () => served.process.stderr.includes("still watching"));
  assert.deepEqual(lines(served.process.stderr), [
    `[ERROR] ${file}: no such file`,
    `[watch] ${file}: keeping the previous 1 stub(s); still watching for it`,
  ]);
  assert.equal(await versionOf(served.url), 1, "the stubs stay");

  await Deno.mkdir(folder);
  await writeFile(file, versioned(2));
  await until("the recreated file", async () => await versionOf(served.url) === 2);
  // Removed and created again a second time: reported once more, followed once more.
  await Deno.remove(folder, { recursive: true });
  await until("the second removal", () => lines(served.process.stderr).length === 4);
  await Deno.mkdir(folder);
  await writeFile(file, versioned(3));
  await until("the file created again", async () => await versionOf(served.url) === 3);
});

Deno.test("serve --watch: a reload that changes cors: or proxy_unmatched: says it applies on restart; the stubs reload", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "stubs.yaml");
  await writeFile(file, "routes:\n  - {method: GET, path: /a, body: one}\n");
  const served = await startServe(["--port", "0", "--quiet", "--watch", "--config", file]);
  await using _ = served.process;
  await writeFile(
    file,
    "cors: true\nproxy_unmatched: http://127.0.0.1:1\nroutes:\n  - {method: GET, path: /a, body: two}\n",
  );
  await until("the reload", () => served.process.stdout.includes("[watch] "));
  assert.deepEqual(lines(served.process.stderr), [
    `[WARN] cors: ${file} changed cors; it applies when serve is restarted`,
    `[WARN] proxy_unmatched: ${file} changed proxy_unmatched; it applies when serve is restarted`,
  ]);
  assert.equal((await get(`${served.url}/a`)).text, '"two"');
  const preflight = await fetch(`${served.url}/a`, { headers: { origin: "http://x.localhost" } });
  await preflight.body?.cancel();
  assert.equal(preflight.headers.get("access-control-allow-origin"), null, "CORS stays as it started");
});

Deno.test("serve --watch: after a reload, POST /__stubtool__/stubs/reset brings back the reloaded config, not the one serve started with", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "stubs.yaml");
  await writeFile(file, config(1));
  const served = await startServe(["--port", "0", "--quiet", "--watch", "--config", file]);
  await using _ = served.process;
  await writeFile(file, config(2, ["  - { method: GET, path: /b }"]));
  await until("the reload", () => served.process.stdout.includes("[watch] "));
  const admin = `${served.url}/__stubtool__/stubs`;
  const added = await fetch(admin, { method: "POST", body: '{"method":"GET","path":"/a","body":"runtime"}' });
  assert.equal(added.status, 201, await added.text());
  assert.equal((await fetch(`${admin}/stub-2`, { method: "DELETE" })).status, 204, "the config's /seq");
  assert.equal((await get(`${served.url}/a`)).text, '"runtime"');
  const reset = await fetch(`${admin}/reset`, { method: "POST" });
  await reset.body?.cancel();
  assert.equal(reset.status, 204);
  assert.equal((await get(`${served.url}/a`)).text, '{"version":2}');
  assert.deepEqual((await report(served.url)).stubs.map((s) => s.path), ["/a", "/seq", "/b"]);
});

Deno.test("regression: serve --watch did not reload when a body file changed, only the config; now an edit to a body_file reloads", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "stubs.yaml");
  const body = join(dir.path, "user.json");
  await writeFile(body, '{"name":"ada"}');
  await writeFile(file, "routes:\n  - {method: GET, path: /user, body_file: user.json}\n  - {method: GET, path: /a}\n");
  const served = await startServe(["--port", "0", "--quiet", "--watch", "--config", file]);
  await using _ = served.process;
  assert.equal((await get(`${served.url}/user`)).text, '{"name":"ada"}');
  await get(`${served.url}/a`);

  await writeFile(`${body}.tmp`, '{"name":"grace"}'); // saved by rename, as editors do
  await rename(`${body}.tmp`, body);
  await until("the reload", () => served.process.stdout.includes("[watch] "));
  assert.equal(
    lines(served.process.stdout).filter((l) => l.startsWith("[watch] ")).join("\n"),
    [
      `[watch] ${file}: +0 -0 ~1 stubs (~GET /user); 2 stub(s) now`,
    ].join("\n"),
  );
  assert.equal((await get(`${served.url}/user`)).text, '{"name":"grace"}');

  await writeFile(body, '{"name":"edsger"}'); // in place, a second time
  await until(
    "the second reload",
    () => lines(served.process.stdout).filter((l) => l.startsWith("[watch] ")).length === 2,
  );
  assert.equal((await get(`${served.url}/user`)).text, '{"name":"edsger"}');
  assert.equal(served.process.stderr, "");
  assert.deepEqual((await report(served.url)).stubs.map((s) => [s.path, s.hit_count]), [["/user", 3], ["/a", 1]]);
});
