/**
 * `stubtool serve --state` (P22) as subprocesses: three replicas of one cluster behind a real
 * `redis-server`, requests spread round-robin; a replica killed with SIGKILL leaves the others
 * serving; the banner names the store without its password; a bad URL is one usage line.
 */
import assert from "node:assert/strict";
import { get, runCli, type Served, startServe } from "./_cli.ts";
import { eventually, RedisServer } from "./_redis.ts";

Deno.test("serve --state: a stub added on one of three replicas answers round-robin on all; a killed replica leaves the rest", async () => {
  await using redis = await new RedisServer().start();
  const cluster = `cli-${crypto.randomUUID()}`;
  const served: Served[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      served.push(await startServe(["--port", "0", "--quiet", "--state", redis.url, "--cluster", cluster]));
    }
    const [a] = served;
    const added = await fetch(`${a.url}/__stubtool__/stubs`, {
      method: "POST",
      body: JSON.stringify({ routes: [{ method: "GET", path: "/rr", body: "shared" }] }),
    });
    assert.equal(added.status, 201);
    await added.body?.cancel();
    for (const s of served) await eventually(async () => (await get(`${s.url}/rr`)).status === 200, 2_000);
    const answers: string[] = [];
    for (let i = 0; i < 9; i++) answers.push((await get(`${served[i % 3].url}/rr`)).text);
    assert.deepEqual(answers, Array(9).fill('"shared"'));
    served[0].process.kill("SIGKILL");
    await served[0].process.result();
    const removed = await fetch(`${served[1].url}/__stubtool__/stubs/reset`, { method: "POST" });
    assert.equal(removed.status, 204);
    await eventually(async () => (await get(`${served[2].url}/rr`)).status === 404, 2_000);
    assert.equal((await get(`${served[2].url}/__stubtool__/health`)).text.includes('"status":"ok"'), true);
  } finally {
    for (const s of served) await s.process[Symbol.asyncDispose]();
  }
});

Deno.test("serve --state: the banner names the cluster and the store with its password hidden; a bad URL is one usage line", async () => {
  await using redis = await new RedisServer().start(["--requirepass", "hunter2-secret"]);
  const url = `redis://:hunter2-secret@127.0.0.1:${redis.port}`;
  const served = await startServe(["--port", "0", "--quiet"], { env: { STUBTOOL_STATE: url } });
  try {
    assert.match(
      served.process.stdout,
      new RegExp(
        `^state: .* shared with cluster stubtool through redis://:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port}$`,
        "m",
      ),
    );
    const health = JSON.parse((await get(`${served.url}/__stubtool__/health`)).text);
    assert.deepEqual(health, { status: "ok", state: { store: "connected", cluster: "stubtool", lost: 0, pending: 0 } });
  } finally {
    await served.process[Symbol.asyncDispose]();
  }
  assert.ok(!served.process.stdout.includes("hunter2") && !served.process.stderr.includes("hunter2"));
  const bad = await runCli(["serve", "--state", "http://:hunter2-secret@x:1"]);
  assert.equal(bad.code, 2);
  assert.ok(!bad.stderr.includes("hunter2"));
  assert.match(
    bad.stderr,
    /^\[ERROR\] --state: must start with redis:\/\/ or rediss:\/\/, got http:\/\/:\*\*\*@x:1\/; run stubtool serve --help$/m,
  );
  const orphan = await runCli(["serve", "--cluster", "a"]);
  assert.equal(orphan.code, 2);
  assert.match(orphan.stderr, /--cluster: needs --state redis:\/\/HOST:PORT/);
});

Deno.test("serve --state: counts a replica made up to 100 ms before it was SIGKILLed are in the report of the others", async () => {
  await using redis = await new RedisServer().start();
  const cluster = `cli-${crypto.randomUUID()}`;
  const config = await Deno.makeTempFile({ suffix: ".yaml" });
  await Deno.writeTextFile(config, "routes:\n  - { method: GET, path: /counted, body: 1 }\n");
  const served: Served[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      served.push(
        await startServe(["--port", "0", "--quiet", "--config", config, "--state", redis.url, "--cluster", cluster]),
      );
    }
    const [doomed, survivor] = served;
    for (let i = 0; i < 40; i++) assert.equal((await get(`${doomed.url}/counted`)).status, 200);
    await get(`${survivor.url}/counted`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    doomed.process.kill("SIGKILL");
    await doomed.process.result();
    const report = async () => JSON.parse((await get(`${survivor.url}/__stubtool__/report`)).text);
    await eventually(async () => (await report()).stubs[0].hit_count === 41, 2_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await report()).stubs[0].hit_count, 41);
  } finally {
    for (const s of served) await s.process[Symbol.asyncDispose]();
    await Deno.remove(config);
  }
});
