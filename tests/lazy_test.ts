// The WireMock admin room (src/server/wiremock/lazy.ts) loads when it is first needed: a plain
// `serve` never evaluates it before it says it is ready; the first /__admin/ request loads it
// and is answered as before; `serve --wiremock` loads it before it is ready.
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { evaluatedBeforeReady, fixture, get, ROOT, startServe, tempDir } from "./_cli.ts";

/** The files of ours a real `deno run cli.ts serve …` evaluated before its banner. */
async function modulesBeforeReady(args: string[]): Promise<string[]> {
  const root = new URL(`file://${ROOT}`).href;
  return (await evaluatedBeforeReady(args))
    .filter((url) => url.startsWith(root) && !url.includes("/node_modules/"))
    .map((url) => url.slice(root.length))
    .sort();
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
