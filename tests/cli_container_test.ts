// The container contract. There is no Docker engine here, so the
// Dockerfile is parsed and its ENTRYPOINT/CMD/HEALTHCHECK are run exactly as the image
// would run them: same arguments, same environment, config auto-loaded from the default path.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { selfSignedCertificate } from "../src/server/tls.ts";
import { freePort, get, lines, ROOT, runCli, startServe, tempDir } from "./_cli.ts";

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(): Instruction[] {
  const text = Deno.readTextFileSync(ROOT + "Dockerfile").replace(/\\\n/g, " ");
  return text.split("\n").filter((l) => l.trim() && !l.trim().startsWith("#")).map((line) => {
    const [, keyword, args] = /^\s*(\S+)\s+(.*)$/.exec(line)!;
    return { keyword: keyword.toUpperCase(), args: args.trim() };
  });
}

/** The instructions of the last stage (the image that ships). */
function finalStage(): Instruction[] {
  const all = instructions();
  const lastFrom = all.findLastIndex((i) => i.keyword === "FROM");
  return all.slice(lastFrom);
}

function execForm(args: string): string[] {
  const parsed = JSON.parse(args);
  assert.ok(Array.isArray(parsed) && parsed.every((a) => typeof a === "string"), `exec form: ${args}`);
  return parsed;
}

/** The image's environment, from its ENV lines. */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of finalStage().filter((i) => i.keyword === "ENV")) {
    for (const [, key, value] of args.matchAll(/(\w+)=(\S+)/g)) env[key] = value;
  }
  return env;
}

const entrypoint = () => execForm(finalStage().find((i) => i.keyword === "ENTRYPOINT")!.args);
const cmd = () => execForm(finalStage().find((i) => i.keyword === "CMD")!.args);
const healthcheck = () =>
  execForm(/CMD\s+(\[.*\])$/.exec(finalStage().find((i) => i.keyword === "HEALTHCHECK")!.args)![1]);

Deno.test("Dockerfile: deno compile in a build stage, distroless cc runtime, the ENV of port and host, EXPOSE, HEALTHCHECK, ENTRYPOINT, CMD", () => {
  const all = instructions();
  const froms = all.filter((i) => i.keyword === "FROM");
  assert.ok(froms.length >= 2, "multi-stage");
  assert.match(froms[0].args, / AS build$/i);
  assert.ok(
    all.some((i) => i.keyword === "RUN" && /deno (compile|run -A scripts\/compile\.ts)/.test(i.args)),
    "deno compile",
  );
  const stage = finalStage();
  assert.equal(stage[0].args, "gcr.io/distroless/cc-debian12");
  assert.ok(stage.some((i) => i.keyword === "COPY" && i.args === "--from=build /stubtool /stubtool"));
  assert.deepEqual(imageEnv(), { STUBTOOL_PORT: "8080", STUBTOOL_HOST: "0.0.0.0" });
  assert.ok(stage.some((i) => i.keyword === "EXPOSE" && i.args === "8080"));
  assert.deepEqual(healthcheck(), ["/stubtool", "wait", "--timeout", "2"]);
  assert.deepEqual(entrypoint(), ["/stubtool"]);
  assert.deepEqual(cmd(), ["serve"]);
});

Deno.test("Dockerfile: every file the build stage copies exists in the repository", () => {
  const copies = instructions().filter((i) => i.keyword === "COPY" && !i.args.startsWith("--from"));
  assert.ok(copies.length > 0);
  for (const { args } of copies) {
    const sources = args.split(/\s+/).slice(0, -1);
    for (const source of sources) assert.ok(existsSync(ROOT + source), `${source} exists`);
  }
});

Deno.test("container: CMD serves the config at the default path on STUBTOOL_PORT, all interfaces; the health check passes", async () => {
  const port = freePort();
  // STUBTOOL_CONFIG stands in for /config/stubs.yaml (this test may not write to /config).
  const env = { ...imageEnv(), STUBTOOL_PORT: String(port), STUBTOOL_CONFIG: ROOT + "examples/stubs.yaml" };
  const served = await startServe(cmd().slice(1), { env });
  await using _ = served.process;
  assert.equal(served.port, port);
  assert.match(served.process.stdout, /\(bound to 0\.0\.0\.0\)/);
  assert.match(served.process.stdout, /^config: .*examples\/stubs\.yaml \(10 route\(s\)\)$/m);
  assert.equal((await get(`http://127.0.0.1:${port}/users/7`)).status, 200);

  // HEALTHCHECK runs the binary with the image's environment: only STUBTOOL_PORT matters to wait.
  const [, ...check] = healthcheck();
  const healthy = await runCli(check, { env: { STUBTOOL_PORT: String(port) } });
  assert.equal(healthy.code, 0, healthy.stderr);
  assert.match(healthy.stdout, new RegExp(`^\\[OK\\] stubtool at http://localhost:${port} is ready`));

  // `docker exec ... stubtool report` with the image's environment.
  const report = await runCli(["report"], { env: { ...imageEnv(), STUBTOOL_PORT: String(port) } });
  assert.equal(report.code, 0);
  assert.match(report.stdout, /^Exercised stubs: 1\/10$/m);
});

Deno.test("container: the health check fails (exit 1) within its 2 s when nothing serves on STUBTOOL_PORT", async () => {
  const [, ...check] = healthcheck();
  const { code, stderr, ms } = await runCli(check, { env: { STUBTOOL_PORT: String(freePort()) } });
  assert.equal(code, 1);
  assert.equal(lines(stderr).length, 1);
  assert.match(stderr, /^\[ERROR\] http:\/\/localhost:\d+: not ready after 2s/);
  assert.ok(ms < 4_000, `${ms} ms`);
});

Deno.test("container: without STUBTOOL_CONFIG the default config path is /config/stubs.yaml", async () => {
  const served = await startServe([...cmd().slice(1), "--port", "0"], { env: imageEnv() });
  await using _ = served.process;
  const line = lines(served.process.stdout).find((l) => l.startsWith("config: "));
  assert.ok(
    line === "config: none (/config/stubs.yaml not found)" || line?.startsWith("config: /config/stubs.yaml ("),
    line,
  );
});

Deno.test("container with TLS: STUBTOOL_TLS_CERT/KEY serve https; the health check and report inside reach https://localhost", async () => {
  await using dir = await tempDir();
  // report trusts the mounted certificate; the health check only asks whether the server is up.
  const { cert, key } = await selfSignedCertificate();
  await Deno.writeTextFile(`${dir.path}/cert.pem`, cert);
  await Deno.writeTextFile(`${dir.path}/key.pem`, key);
  const port = freePort();
  const tls = { STUBTOOL_TLS_CERT: `${dir.path}/cert.pem`, STUBTOOL_TLS_KEY: `${dir.path}/key.pem` };
  const env = { ...imageEnv(), ...tls, STUBTOOL_PORT: String(port), STUBTOOL_CONFIG: ROOT + "examples/stubs.yaml" };
  const served = await startServe(cmd().slice(1), { env });
  await using _ = served.process;
  assert.equal(served.url, `https://127.0.0.1:${port}`);
  const [, ...check] = healthcheck();
  const healthy = await runCli(check, { env: { ...tls, STUBTOOL_PORT: String(port) } });
  assert.equal(healthy.code, 0, healthy.stderr);
  assert.match(healthy.stdout, new RegExp(`^\\[OK\\] stubtool at https://localhost:${port} is ready`));
  const report = await runCli(["report"], { env: { ...imageEnv(), ...tls, STUBTOOL_PORT: String(port) } });
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /^Exercised stubs: 0\/10$/m);
});
