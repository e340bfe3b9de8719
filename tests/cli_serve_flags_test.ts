// `stubtool serve`'s TLS, safety and files flags as subprocesses: TLS (--tls-self-signed with
// --tls-cert-out, --tls-cert/--tls-key and their variables) with wait/report over https
// (--ca, --insecure); CORS and proxy_unmatched from the flags and from the config file;
// --journal-bytes, --allow-host and --admin-token; half or conflicting settings refused.
import assert from "node:assert/strict";
import { request } from "node:https";
import { join } from "node:path";
import { freePort, get, lines, runCli, startServe, tempDir } from "./_cli.ts";
import { rawRequest } from "./_http.ts";
import { selfSignedCertificate } from "../src/server/tls.ts";
import { stubServer } from "../mod.ts";

/** GET over https trusting `ca` (node:https: Deno's fetch trusts no extra CA without a Deno-only client). */
function httpsGet(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => body += chunk);
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    }).on("error", reject).end();
  });
}

Deno.test("serve --tls-self-signed --tls-cert-out: https with a certificate clients trust; wait and report with --ca or --insecure", async () => {
  await using dir = await tempDir();
  const pem = join(dir.path, "stubtool.pem");
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--stub",
    'GET /hello -> 200 {"tls": true}',
    "--tls-self-signed",
    "--tls-cert-out",
    pem,
  ]);
  await using _ = served.process;
  assert.match(served.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(
    served.process.stdout.includes(
      `certificate: written to ${pem} (trust it: curl --cacert ${pem}, NODE_EXTRA_CA_CERTS=${pem}, stubtool report --ca ${pem})`,
    ),
    served.process.stdout,
  );
  const ca = await Deno.readTextFile(pem);
  assert.deepEqual(await httpsGet(`${served.url}/hello`, ca), { status: 200, body: '{"tls":true}' });
  const localhost = served.url.replace("127.0.0.1", "localhost");

  const trusted = await runCli(["wait", "--url", localhost, "--ca", pem]);
  assert.equal(trusted.code, 0, trusted.stderr);
  const untrusted = await runCli(["wait", "--url", localhost, "--timeout", "2"]);
  assert.equal(untrusted.code, 1);
  assert.match(
    untrusted.stderr,
    /last attempt: its certificate is not trusted \(pass --ca FILE with the certificate serve --tls-cert-out wrote, or --insecure\)/,
  );
  const report = await runCli(["report", "--url", localhost, "--insecure", "--format", "json"]);
  assert.equal(report.code, 0, report.stderr);
  assert.deepEqual(JSON.parse(report.stdout).stubs.map((s: { hit_count: number }) => s.hit_count), [1]);
  const noCa = await runCli(["report", "--url", localhost]);
  assert.equal(noCa.code, 2);
  assert.match(noCa.stderr, /cannot reach stubtool at https:\/\/localhost:\d+: its certificate is not trusted/);
});

Deno.test("serve --tls-cert/--tls-key, or STUBTOOL_TLS_CERT/STUBTOOL_TLS_KEY: https with that certificate", async () => {
  await using dir = await tempDir();
  const { cert, key } = await selfSignedCertificate();
  await Deno.writeTextFile(join(dir.path, "cert.pem"), cert);
  await Deno.writeTextFile(join(dir.path, "key.pem"), key);
  for (
    const [args, env] of [
      [["--tls-cert", join(dir.path, "cert.pem"), "--tls-key", join(dir.path, "key.pem")], {}],
      [[], { STUBTOOL_TLS_CERT: join(dir.path, "cert.pem"), STUBTOOL_TLS_KEY: join(dir.path, "key.pem") }],
    ] as const
  ) {
    const served = await startServe(["--port", "0", "--quiet", "--stub", "GET /a -> 204", ...args], { env });
    await using _ = served.process;
    assert.match(served.url, /^https:/);
    assert.equal((await httpsGet(`${served.url}/a`, cert)).status, 204);
  }
});

Deno.test("serve: TLS settings that cannot work are refused before anything starts", async () => {
  await using dir = await tempDir();
  const notPem = join(dir.path, "cert.txt");
  await Deno.writeTextFile(notPem, "hello");
  const usage: [string[], string][] = [
    [
      ["--tls-cert", notPem],
      "[ERROR] --tls-cert needs --tls-key FILE (the certificate's private key; or $STUBTOOL_TLS_KEY); run stubtool serve --help",
    ],
    [
      ["--tls-self-signed", "--tls-key", notPem],
      "[ERROR] --tls-self-signed makes its own certificate: give it or --tls-cert/--tls-key, not both; run stubtool serve --help",
    ],
    [
      ["--tls-cert-out", join(dir.path, "x.pem")],
      "[ERROR] --tls-cert-out writes the certificate --tls-self-signed makes; with --tls-cert, clients trust that file; run stubtool serve --help",
    ],
    [
      ["--proxy-unmatched", "http://up.test/?x=1"],
      '[ERROR] --proxy-unmatched must be an http:// or https:// URL without ?query or #fragment (the request\'s own path and query are added), got "http://up.test/?x=1"; run stubtool serve --help',
    ],
    [["--admin-token="], "[ERROR] --admin-token: must not be empty; run stubtool serve --help"],
  ];
  for (const [args, message] of usage) {
    const { code, stderr } = await runCli(["serve", "--port", "0", ...args]);
    assert.equal(code, 2, args.join(" "));
    assert.deepEqual(lines(stderr), [message]);
  }
  const { code, stderr } = await runCli([
    "serve",
    "--port",
    "0",
    "--tls-cert",
    notPem,
    "--tls-key",
    join(dir.path, "none.pem"),
  ]);
  assert.equal(code, 1);
  assert.deepEqual(lines(stderr), [
    `[ERROR] --tls-cert ${notPem}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
  ]);
});

Deno.test("regression: a config's cors: and proxy_unmatched: passed validate but serve ignored them (now served; the flags win)", async () => {
  await using upstream = await stubServer(0, { adapter: "deno" });
  await using dir = await tempDir();
  const config = join(dir.path, "stubs.yaml");
  await Deno.writeTextFile(
    config,
    `cors: {origins: ["http://app.localhost:5173"]}\nproxy_unmatched: ${upstream.url}\nroutes:\n  - {method: GET, path: /mine}\n`,
  );
  const served = await startServe(["--port", "0", "--quiet", "--config", config]);
  await using _ = served.process;
  assert.ok(served.process.stdout.includes("cors: answering browser apps on http://app.localhost:5173\n"));
  assert.ok(
    served.process.stdout.includes(
      `proxy: requests no stub matches go to ${upstream.url} (still recorded as unmatched)\n`,
    ),
  );
  const mine = await fetch(`${served.url}/mine`, { headers: { origin: "http://app.localhost:5173" } });
  await mine.body?.cancel();
  assert.equal(mine.headers.get("access-control-allow-origin"), "http://app.localhost:5173");
  const passed = await fetch(`${served.url}/elsewhere`);
  assert.equal(passed.status, 404);
  assert.match(await passed.text(), /elsewhere/);
  assert.equal((await upstream.report()).summary.unmatched_requests, 1, "the upstream saw the unmatched request");

  // --cors opens it to any origin; --proxy-unmatched wins over the file's.
  const served2 = await startServe(["--port", "0", "--quiet", "--config", config, "--cors"]);
  await using __ = served2.process;
  const other = await fetch(`${served2.url}/mine`, { headers: { origin: "http://other.localhost" } });
  await other.body?.cancel();
  assert.equal(other.headers.get("access-control-allow-origin"), "http://other.localhost");
});

Deno.test("serve --proxy-unmatched URL: requests no stub matches are passed on", async () => {
  await using upstream = await stubServer(0, { adapter: "deno" });
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--stub",
    "GET /mine -> 204",
    "--proxy-unmatched",
    upstream.url,
  ]);
  await using _ = served.process;
  const { code, stdout } = await runCli(["report", "--url", served.url, "--format", "json"]);
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).summary.unmatched_requests, 0);
  assert.equal((await get(`${served.url}/theirs?q=1`)).status, 404);
  const report = JSON.parse((await runCli(["report", "--url", served.url, "--format", "json"])).stdout);
  assert.equal(report.unmatched_requests[0].proxied, true);
  assert.equal(report.unmatched_requests[0].upstream_status, 404);
});

Deno.test("serve --allow-host and --admin-token: the reserved endpoints answer only as told", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--allow-host", "mock.internal", "--admin-token", "t0k"]);
  await using _ = served.process;
  assert.ok(
    served.process.stdout.includes(
      "admin token: /__stubtool__/ endpoints but health need authorization: Bearer TOKEN; " +
        "open the dashboard once as /__stubtool__/?token=TOKEN\n",
    ),
  );
  assert.equal((await get(`${served.url}/__stubtool__/health`)).status, 200);
  assert.equal((await get(`${served.url}/__stubtool__/report`)).status, 401);
  const auth = { authorization: "Bearer t0k" };
  assert.equal((await get(`${served.url}/__stubtool__/report`, { headers: auth })).status, 200);
  const curl = async (host: string) => {
    const { stdout } = await new Deno.Command("curl", {
      args: [
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "-H",
        `host: ${host}`,
        "-H",
        "authorization: Bearer t0k",
        `${served.url}/__stubtool__/report`,
      ],
    }).output();
    return new TextDecoder().decode(stdout);
  };
  assert.equal(await curl("mock.internal"), "200");
  assert.equal(await curl("rebound.test"), "403");
});

Deno.test("serve --journal-bytes: the journal keeps at most that many bytes of bodies", async () => {
  const served = await startServe(["--port", "0", "--quiet", "--stub", "POST /a -> 204", "--journal-bytes", "3000"]);
  await using _ = served.process;
  for (let i = 0; i < 5; i++) {
    const answer = await fetch(`${served.url}/a`, { method: "POST", body: "x".repeat(1000) });
    await answer.body?.cancel();
  }
  const journal = JSON.parse((await get(`${served.url}/__stubtool__/requests`)).text);
  const kept = journal.requests.filter((r: { body?: string }) => r.body !== undefined).length;
  assert.ok(kept >= 1 && kept < 5, `kept ${kept} bodies of 5 with a 3000-byte budget`);
  const usage = await runCli(["serve", "--port", String(freePort()), "--journal-bytes", "lots"]);
  assert.equal(usage.code, 2);
  assert.deepEqual(lines(usage.stderr), [
    '[ERROR] --journal-bytes: must be a whole number of bytes of 0 or more, got "lots"; run stubtool serve --help',
  ]);
});

Deno.test("serve --stub '{...}': a stub in config form on the command line, with a header condition and response headers", async () => {
  const served = await startServe([
    "--port",
    "0",
    "--quiet",
    "--stub",
    "{method: GET, path: /env, request: {headers: {x-env: prod}}, headers: {x-served-by: stubtool}, body: {env: prod}}",
    "--stub",
    'GET /env -> 200 {"env": "any"}',
  ]);
  await using _ = served.process;
  const prod = await fetch(`${served.url}/env`, { headers: { "x-env": "prod" } });
  assert.deepEqual([prod.status, prod.headers.get("x-served-by"), await prod.json()], [200, "stubtool", {
    env: "prod",
  }]);
  const other = await fetch(`${served.url}/env`, { headers: { "x-env": "dev" } });
  assert.deepEqual(await other.json(), { env: "any" }, "the condition ranks the first stub higher only when it holds");
});

Deno.test("serve --files-root DIR (or STUBTOOL_FILES_ROOT): stubs added over the admin API read body files inside DIR only; a missing DIR stops serve", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "files");
  await Deno.mkdir(root);
  await Deno.writeFile(join(root, "logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  await Deno.writeTextFile(join(dir.path, "secret.txt"), "secret");
  const addFile = (url: string, body_file: string) =>
    fetch(`${url}/__stubtool__/stubs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "GET", path: "/logo", body_file }),
    }).then(async (r) => ({ status: r.status, json: await r.json() }));
  for (const [args, env] of [[["--files-root", root], {}], [[], { STUBTOOL_FILES_ROOT: root }]] as const) {
    const served = await startServe(["--port", "0", "--quiet", ...args], { env });
    await using _ = served.process;
    assert.ok(
      served.process.stdout.includes(`files root: stubs added over the admin API may read body_file inside ${root}\n`),
    );
    const outside = await addFile(served.url, "../secret.txt");
    assert.equal(outside.status, 400);
    assert.equal(
      outside.json.problems[0].message,
      `body_file "../secret.txt" cannot be read: it is not a file inside --files-root ${root} (looked for ${
        join(dir.path, "secret.txt")
      })`,
    );
    assert.equal((await addFile(served.url, "logo.png")).status, 201);
    const logo = await fetch(`${served.url}/logo`);
    assert.equal(logo.headers.get("content-type"), "image/png");
    assert.deepEqual([...new Uint8Array(await logo.arrayBuffer())], [0x89, 0x50, 0x4e, 0x47]);
  }
  const missing = await runCli(["serve", "--port", "0", "--files-root", join(dir.path, "none")]);
  assert.equal(missing.code, 1);
  assert.deepEqual(lines(missing.stderr), [
    `[ERROR] --files-root: ${
      JSON.stringify(join(dir.path, "none"))
    } cannot be read: no such folder (a folder of body files)`,
  ]);
});

// What Java's java.net.http client sends on http:// (HTTP/2 is its default): every request is
// an h2c upgrade with a `Content-Length` (0 for a GET). Deno.serve refuses it with an empty
// 400 before any handler runs; node:http, the default wire, answers it over HTTP/1.1.
const javaRequest = (method: string, body = "") =>
  `${method} /x HTTP/1.1\r\nConnection: Upgrade, HTTP2-Settings, close\r\nContent-Length: ${body.length}\r\n` +
  "Host: 127.0.0.1\r\nHTTP2-Settings: AAEAAEAAAAIAAAAAAAMAAAAAAAQBAAAAAAUAAEAAAAYABgAA\r\nUpgrade: h2c\r\n" +
  `User-Agent: Java-http-client/17.0.15\r\n${body ? "Content-Type: application/json\r\n" : ""}\r\n${body}`;

Deno.test("regression: the default serve answered Java's java.net.http GET and POST with an empty 400; --adapter deno still does; a bad value is a usage error", async () => {
  const stubs = ["--stub", 'GET /x -> 200 {"a":1}', "--stub", 'POST /x -> 201 {"ok":true}'];
  const served = await startServe(["--port", "0", "--quiet", ...stubs]);
  await using _ = served.process;
  const port = Number(new URL(served.url).port);
  const got = await rawRequest(port, javaRequest("GET"));
  assert.deepEqual([got.statusLine, got.body], ["HTTP/1.1 200 OK", '{"a":1}']);
  const posted = await rawRequest(port, javaRequest("POST", '{"a":1}'));
  assert.deepEqual([posted.statusLine, posted.body], ["HTTP/1.1 201 Created", '{"ok":true}']);
  // The fast wire, by flag or variable: its caveat (README "Runtimes and wires").
  const deno = await startServe(["--port", "0", "--quiet", "--adapter", "deno", ...stubs]);
  await using __ = deno.process;
  for (const request of [javaRequest("GET"), javaRequest("POST", '{"a":1}')]) {
    const refused = await rawRequest(Number(new URL(deno.url).port), request);
    assert.deepEqual([refused.statusLine, refused.body], ["HTTP/1.1 400 Bad Request", ""]);
  }
  const env = await startServe(["--port", "0", "--quiet", ...stubs], { env: { STUBTOOL_ADAPTER: "deno" } });
  await using ___ = env.process;
  assert.equal(
    (await rawRequest(Number(new URL(env.url).port), javaRequest("GET"))).statusLine,
    "HTTP/1.1 400 Bad Request",
  );
  const bad = await runCli(["serve", "--adapter", "bun"]);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, '[ERROR] --adapter: must be deno or node, got "bun"; run stubtool serve --help\n');
});
