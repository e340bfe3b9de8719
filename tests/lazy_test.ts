// The WireMock admin room (src/server/wiremock/lazy.ts) loads when it is first needed: a plain
// `serve` never evaluates it before it says it is ready; the first /__admin/ request loads it
// and is answered as before; `serve --wiremock` loads it before it is ready.
import assert from "node:assert/strict";
import { join } from "node:path";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { fixture, get, ROOT, startServe, tempDir } from "./_cli.ts";

/** The files of ours a real `deno run cli.ts serve …` evaluated before its banner (V8 coverage, `DENO_COVERAGE_DIR`). */
async function modulesBeforeReady(args: string[]): Promise<string[]> {
  await using dir = await tempDir();
  const coverage = join(dir.path, "coverage");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${ROOT}cli.ts`, "serve", "--port", "0", "--quiet", ...args],
    cwd: ROOT,
    env: { DENO_COVERAGE_DIR: coverage, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/listening on http/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve ended before it was ready: ${out}`);
    out += value;
  }
  child.kill("SIGTERM");
  await reader.cancel();
  await child.status;
  const root = new URL(`file://${ROOT}`).href;
  const modules: string[] = [];
  for (const name of await readdir(coverage)) {
    const { url } = JSON.parse(await readFile(join(coverage, name), "utf8"));
    if (url.startsWith(root) && !url.includes("/node_modules/")) modules.push(url.slice(root.length));
  }
  return modules.sort();
}

/** The WireMock admin room's files: the mount and the WireMock formats it translates with. */
const isWireMockRoom = (file: string) =>
  /^src\/server\/wiremock\/wiremock_/.test(file) || file.startsWith("src/formats/wiremock/");

Deno.test("lazy: a plain serve evaluates no file of the WireMock admin room before it is ready; --wiremock evaluates it", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "plain.json");
  await writeFile(config, JSON.stringify({ routes: [{ method: "GET", path: "/users/{id}", body: { id: "{id}" } }] }));
  const [plain, wiremock] = await Promise.all([
    modulesBeforeReady(["--config", config]),
    modulesBeforeReady(["--config", config, "--wiremock", fixture("wiremock/body_json")]),
  ]);
  assert.ok(plain.includes("src/server/wiremock/lazy.ts"), plain.join(" "));
  assert.deepEqual(plain.filter(isWireMockRoom), []);
  assert.ok(wiremock.includes("src/server/wiremock/wiremock_admin.ts"), wiremock.join(" "));
  assert.ok(wiremock.includes("src/formats/wiremock/mapping.ts"), wiremock.join(" "));
});

Deno.test("lazy: the first /__admin/ request of a plain serve loads the room; health's uptime counts from the start, not from that request", async () => {
  await using dir = await tempDir();
  const config = join(dir.path, "plain.json");
  await writeFile(
    config,
    JSON.stringify({ routes: [{ id: "u", method: "GET", path: "/users/1", body: { id: "1" } }] }),
  );
  const served = await startServe(["--port", "0", "--quiet", "--config", config]);
  await using _ = served.process;
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const health = await get(`${served.url}/__admin/health`);
  assert.equal(health.status, 200, health.text);
  assert.ok(JSON.parse(health.text).uptimeInSeconds >= 1, health.text);
  const mappings = await get(`${served.url}/__admin/mappings`);
  assert.equal(mappings.status, 200, mappings.text);
  const listed = JSON.parse(mappings.text);
  assert.equal(listed.meta.total, 1);
  assert.deepEqual(listed.mappings[0].request, { method: "GET", urlPath: "/users/1" });
  const added = await get(`${served.url}/__admin/mappings`, {
    method: "POST",
    body: JSON.stringify({ request: { method: "GET", url: "/added" }, response: { status: 200, body: "added" } }),
  });
  assert.equal(added.status, 201, added.text);
  assert.deepEqual(await get(`${served.url}/added`), { status: 200, text: "added" });
  assert.deepEqual(await get(`${served.url}/users/1`), { status: 200, text: '{"id":"1"}' });
});
