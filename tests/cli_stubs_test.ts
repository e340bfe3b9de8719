// `stubtool stubs add|list|remove` as subprocesses against `stubtool serve`: batches
// that override the config, scopes, body files sent as bytes, validate's messages placed in
// the user's files, unknown ids, --all, the admin token, an unreachable server.
import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort, get, lines, runCli, startServe, tempDir } from "./_cli.ts";

const BASE = "routes:\n  - {id: user, method: GET, path: '/users/{id}', body: {id: '{id}'}}\n";

Deno.test("stubs add: a file and --stub go in as one batch that overrides the config; list shows them; remove takes them out", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "base.yaml"), BASE);
  await Deno.mkdir(join(dir.path, "more"));
  await Deno.writeFile(join(dir.path, "more", "logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]));
  await Deno.writeTextFile(
    join(dir.path, "more", "failures.yaml"),
    "routes:\n" +
      "  - {id: user-500, method: GET, path: '/users/{id}', status: 500, body: {error: boom}}\n" +
      "  - {id: logo, method: GET, path: /logo, body_file: logo.png}\n",
  );
  const served = await startServe(["--port", "0", "--quiet", "--config", join(dir.path, "base.yaml")]);
  await using _ = served.process;
  const url = ["--url", served.url];

  // Run from another folder: body_file is relative to its config file, and sent as bytes.
  const added = await runCli(["stubs", "add", "more/failures.yaml", "--stub", "POST /orders -> 201", ...url], {
    cwd: dir.path,
  });
  assert.equal(added.code, 0, added.stderr);
  assert.equal(added.stderr, "");
  assert.deepEqual(lines(added.stdout).slice(0, 2), ["user-500  GET /users/{id}", "logo      GET /logo"]);
  assert.match(lines(added.stdout)[2], /^\S+\s+POST \/orders$/);
  assert.equal(lines(added.stdout)[3], `[OK] added 3 stub(s) to ${served.url}`);

  // A later batch wins: the config's stub is overridden for the same request.
  const user = await get(`${served.url}/users/7`);
  assert.deepEqual([user.status, JSON.parse(user.text)], [500, { error: "boom" }]);
  const logo = await fetch(`${served.url}/logo`);
  assert.equal(logo.headers.get("content-type"), "image/png");
  assert.deepEqual([...new Uint8Array(await logo.arrayBuffer())], [0x89, 0x50, 0x4e, 0x47, 0, 255]);

  const listed = await runCli(["stubs", "list", ...url]);
  assert.equal(listed.code, 0, listed.stderr);
  const rows = lines(listed.stdout);
  assert.equal(rows[0].replace(/ +/g, " "), "ID SOURCE HITS STUB SCOPE");
  assert.deepEqual(rows.slice(1, 4).map((row) => row.replace(/ +/g, " ")), [
    "user config 0 GET /users/{id}",
    "user-500 admin 1 GET /users/{id}",
    "logo admin 1 GET /logo",
  ]);
  const json = await runCli(["stubs", "list", "--format", "json", ...url]);
  const stubs = JSON.parse(json.stdout).stubs;
  assert.deepEqual(stubs.map((s: { id: string; source: string }) => `${s.id} ${s.source}`).slice(0, 3), [
    "user config",
    "user-500 admin",
    "logo admin",
  ]);
  // The server (no --files-root) reads no file: the client sent the logo's bytes.
  const logoStub = stubs.find((s: { id: string }) => s.id === "logo");
  assert.deepEqual([logoStub.body_file, logoStub.body_base64], [undefined, "iVBORwD/"]);

  const removed = await runCli(["stubs", "remove", "user-500", "no-such", ...url]);
  assert.equal(removed.code, 1);
  assert.deepEqual(lines(removed.stdout), ["removed user-500"]);
  assert.deepEqual(lines(removed.stderr), [
    `[ERROR] no-such: no stub has this id on ${served.url} (stubtool stubs list shows them)`,
  ]);
  assert.equal(JSON.parse((await get(`${served.url}/users/7`)).text).id, "7", "the config's stub answers again");

  const all = await runCli(["stubs", "remove", "--all", ...url]);
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(lines(all.stdout), [
    `[OK] removed 2 stub(s) added at runtime from ${served.url}; the config's and --stub's stay`,
  ]);
  const after = JSON.parse((await runCli(["stubs", "list", "--format", "json", ...url])).stdout).stubs;
  assert.deepEqual(after.map((s: { id: string }) => s.id), ["user"]);
});

Deno.test("stubs add --scope: stubs without a scope get it; remove --all --scope removes only that scope's", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--stub", 'GET /a -> 200 {"who": "base"}']);
  await using _ = served.process;
  const url = ["--url", served.url];
  for (const worker of ["w1", "w2"]) {
    const { code, stderr } = await runCli([
      "stubs",
      "add",
      "--scope",
      worker,
      "--stub",
      `GET /a -> 200 {"who": "${worker}"}`,
      ...url,
    ]);
    assert.equal(code, 0, stderr);
  }
  const as = async (scope?: string) =>
    JSON.parse((await get(`${served.url}/a`, scope ? { headers: { "x-stubtool-scope": scope } } : {})).text).who;
  assert.deepEqual([await as(), await as("w1"), await as("w2")], ["base", "w1", "w2"]);
  const { code, stdout } = await runCli(["stubs", "remove", "--all", "--scope", "w1", ...url]);
  assert.equal(code, 0);
  assert.deepEqual(lines(stdout), [
    `[OK] removed 1 stub(s) added at runtime with scope w1 from ${served.url}; the config's and --stub's stay`,
  ]);
  assert.deepEqual([await as("w1"), await as("w2")], ["base", "w2"]);
});

Deno.test("stubs add: invalid stubs print validate's lines, placed in the user's files and flags; nothing is added (exit 1)", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "bad.yaml");
  await Deno.writeTextFile(file, "routes:\n  - {method: GET, path: /a, status: 2OO}\n");
  const served = await startServe(["--port", "0", "--quiet"]);
  await using _ = served.process;
  const local = await runCli(["stubs", "add", file, "--url", served.url]);
  assert.equal(local.code, 1);
  assert.deepEqual(lines(local.stderr), [
    `[ERROR] routes[0]: status must be an integer from 100 to 599, got "2OO" (at ${file}:2:29)`,
  ]);
  // Problems only the server can see (an id it already has) are placed in the batch's files and flags.
  await Deno.writeTextFile(file, "routes:\n  - {method: GET, path: /ok}\n  - {id: taken, method: GET, path: /b}\n");
  assert.equal((await runCli(["stubs", "add", "--stub", "GET /t -> 200", "--url", served.url])).code, 0);
  const first = await runCli(["stubs", "add", file, "--url", served.url]);
  assert.equal(first.code, 0, first.stderr);
  const again = await runCli(["stubs", "add", file, "--url", served.url]);
  assert.equal(again.code, 1);
  assert.deepEqual(lines(again.stderr), [
    `[ERROR] ${file} routes[1]: id 'taken' is already used by GET /b (admin)`,
  ]);
  const inline = await runCli(["stubs", "add", "--stub", "GET /x -> 99", "--url", served.url]);
  assert.equal(inline.code, 1);
  assert.deepEqual(lines(inline.stderr), ["[ERROR] --stub[0]: status must be an integer from 100 to 599, got 99"]);
  const count = JSON.parse((await get(`${served.url}/__stubtool__/stubs`)).text).stubs.length;
  assert.equal(count, 3, "one --stub and the file's two; the refused batches added nothing");
});

Deno.test("stubs: the admin token from the flag or STUBTOOL_ADMIN_TOKEN; without it the server's refusal, exit 2", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--admin-token", "s3cret"]);
  await using _ = served.process;
  const refused = await runCli(["stubs", "list", "--url", served.url]);
  assert.equal(refused.code, 2);
  assert.deepEqual(lines(refused.stderr), [
    `[ERROR] stubtool at ${served.url} refused: this server needs its admin token: send authorization: Bearer TOKEN ` +
    "(the CLI: --admin-token or STUBTOOL_ADMIN_TOKEN; the dashboard: open /__stubtool__/?token=TOKEN once)",
  ]);
  const flag = await runCli([
    "stubs",
    "add",
    "--stub",
    "GET /a -> 204",
    "--admin-token",
    "s3cret",
    "--url",
    served.url,
  ]);
  assert.equal(flag.code, 0, flag.stderr);
  const env = await runCli(["stubs", "list", "--url", served.url], { env: { STUBTOOL_ADMIN_TOKEN: "s3cret" } });
  assert.equal(env.code, 0, env.stderr);
  assert.match(env.stdout, /GET \/a/);
  const report = await runCli(["report", "--url", served.url], { env: { STUBTOOL_ADMIN_TOKEN: "s3cret" } });
  assert.equal(report.code, 0, report.stderr);
  const noToken = await runCli(["report", "--url", served.url]);
  assert.equal(noToken.code, 2);
  assert.match(noToken.stderr, /\/__stubtool__\/report answered 401: this server needs its admin token/);
});

Deno.test("stubs: usage errors and an unreachable server", async () => {
  const cases: [string[], string][] = [
    [
      ["stubs", "ad"],
      "[ERROR] stubs: unknown action 'ad' (did you mean 'add'?); actions: add, list, remove; run stubtool stubs --help",
    ],
    [
      ["stubs", "add"],
      "[ERROR] stubs add: nothing to add (give config files, --stub STUB, or both); run stubtool stubs --help",
    ],
    [["stubs", "list", "--all"], "[ERROR] stubs list: --all is for stubs remove; run stubtool stubs --help"],
    [["stubs", "remove"], "[ERROR] stubs remove: give the ids to remove, or --all; run stubtool stubs --help"],
    [["stubs", "remove", "a", "--all"], "[ERROR] stubs remove: give ids or --all, not both; run stubtool stubs --help"],
    [
      ["stubs", "list", "--insecure"],
      "[ERROR] --insecure: only for an https:// server; --url is http://localhost:8080; run stubtool stubs --help",
    ],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await runCli(args);
    assert.equal(code, 2, args.join(" "));
    assert.deepEqual(lines(stderr), [message]);
  }
  const port = freePort();
  const { code, stderr } = await runCli(["stubs", "list", "--url", `http://127.0.0.1:${port}`]);
  assert.equal(code, 2);
  assert.deepEqual(lines(stderr), [`[ERROR] cannot reach stubtool at http://127.0.0.1:${port}: connection refused`]);
});

Deno.test("stubs add against a server with curl only: the admin API needs no stubtool on the client (end to end)", async () => {
  const served = await startServe(["--port", "0", "--quiet"]);
  await using _ = served.process;
  const curl = async (...args: string[]) => {
    const { code, stdout } = await new Deno.Command("curl", { args: ["-s", "-w", "\\n%{http_code}", ...args] })
      .output();
    assert.equal(code, 0);
    return lines(new TextDecoder().decode(stdout));
  };
  const added = await curl(
    "-X",
    "POST",
    `${served.url}/__stubtool__/stubs`,
    "-H",
    "content-type: application/json",
    "-d",
    '{"id": "pay-402", "method": "POST", "path": "/payments", "status": 402, "body": {"error": "card_declined"}}',
  );
  assert.deepEqual(added, ['{"stubs":[{"id":"pay-402","method":"POST","path":"/payments"}]}', "201"]);
  assert.deepEqual(await curl("-X", "POST", `${served.url}/payments`, "-d", "{}"), [
    '{"error":"card_declined"}',
    "402",
  ]);
  const found = await curl(
    "-X",
    "POST",
    `${served.url}/__stubtool__/requests/find`,
    "-d",
    '{"method": "POST", "path": "/payments"}',
  );
  assert.equal(found[1], "200");
  assert.equal(JSON.parse(found[0]).count, 1);
  assert.deepEqual(await curl("-X", "DELETE", `${served.url}/__stubtool__/stubs/pay-402`), ["", "204"]);
  assert.equal((await curl("-X", "POST", `${served.url}/payments`))[1], "404");
});
