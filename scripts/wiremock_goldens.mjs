#!/usr/bin/env node
// Records golden answers from WireMock itself: for each tests/fixtures/wiremock/<case>/ it starts
// the standalone jar on 127.0.0.1 with that folder as its root dir, sends the case's requests.json
// in order over raw sockets, and writes <case>/golden.json. stubtool's WireMock support is then
// tested against these files without Java.
//
//   npm run goldens:wiremock                 # every case
//   npm run goldens:wiremock -- faults proxy # only these cases
import { spawn, spawnSync } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  COMPARE_MODES,
  compareAnswer,
  exchange,
  exists,
  goldenAnswer,
  mappingFacts,
  materializeCase,
  startUpstream,
} from "../tests/_wiremock_wire.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const casesDir = join(root, "tests", "fixtures", "wiremock");
const jarDir = join(root, "node_modules", "wiremock", "build");
const PARALLEL = 2;

function fail(message) {
  console.error(`wiremock_goldens: ${message}`);
  process.exit(1);
}

async function findJar() {
  const names = (await exists(jarDir)) ? await readdir(jarDir) : [];
  const jar = names.find((name) => /^wiremock-standalone-.*\.jar$/.test(name));
  if (!jar) {
    fail(
      `no WireMock jar in ${jarDir}: run \`npm install\` (the \`wiremock\` devDependency ships ` +
        `wiremock-standalone-<version>.jar)`,
    );
  }
  return { path: join(jarDir, jar), version: jar.replace(/^wiremock-standalone-|\.jar$/g, "") };
}

function checkJava() {
  const java = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (java.error || java.status !== 0) {
    fail("`java` is not on PATH: install a Java 11+ runtime (e.g. `apt-get install openjdk-17-jre-headless`)");
  }
  return (java.stderr.split("\n")[0] ?? "").trim();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startWireMock(jar, rootDir) {
  const port = await freePort();
  const child = spawn("java", [
    "-jar",
    jar,
    "--port",
    String(port),
    "--bind-address",
    "127.0.0.1",
    "--root-dir",
    rootDir,
    "--disable-banner",
  ], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (chunk) => log += chunk);
  child.stderr.on("data", (chunk) => log += chunk);
  let exited = null;
  child.on("exit", (code) => exited = code ?? "signal");
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`WireMock exited (${exited}) before it was ready:\n${log}`);
    const seen = await exchange(port, { name: "health", method: "GET", path: "/__admin/health" }, 2000);
    if (Buffer.from(seen.bytes).toString("latin1").startsWith("HTTP/1.1 200")) {
      return {
        port,
        log: () => log,
        stop: () =>
          new Promise((resolve) => {
            if (exited !== null) return resolve();
            child.on("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  child.kill("SIGKILL");
  throw new Error(`WireMock did not answer /__admin/health within 60 s:\n${log}`);
}

async function recordCase(jar, name) {
  const caseDir = join(casesDir, name);
  const requests = JSON.parse(await readFile(join(caseDir, "requests.json"), "utf8"));
  for (const request of requests) {
    if (!COMPARE_MODES.includes(request.compare ?? "exact")) {
      throw new Error(`${name}/requests.json: "${request.name}": compare must be one of ${COMPARE_MODES.join(", ")}`);
    }
  }
  const facts = await mappingFacts(caseDir);
  const upstream = await startUpstream();
  const copy = await materializeCase(caseDir, upstream.port);
  const started = performance.now();
  let wiremock;
  try {
    wiremock = await startWireMock(jar.path, copy.dir);
    const answers = [];
    const problems = [];
    for (const request of requests) {
      upstream.clearHooks();
      const seen = await exchange(wiremock.port, request);
      const hook = request.webhook ? await upstream.nextHook(5000) : undefined;
      const answer = goldenAnswer(request, seen, facts, hook);
      // The golden must pass its own comparison (shapes, minimum delays), else it measures nothing.
      problems.push(...compareAnswer(request, answer, seen, hook));
      answers.push(answer);
    }
    if (problems.length) throw new Error(`recorded answers fail their own checks:\n  ${problems.join("\n  ")}`);
    const golden = { recorded_with: `WireMock ${jar.version}`, answers };
    await writeFile(join(caseDir, "golden.json"), JSON.stringify(golden, null, 2) + "\n");
    console.log(`${name}: ${answers.length} answers (${Math.round(performance.now() - started)} ms)`);
  } catch (error) {
    throw new Error(`${name}: ${error.message}${wiremock ? `\nWireMock log:\n${wiremock.log()}` : ""}`);
  } finally {
    await wiremock?.stop();
    await upstream.close();
    await copy.remove();
  }
}

async function main() {
  const javaVersion = checkJava();
  const jar = await findJar();
  const all = (await readdir(casesDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name)
    .sort();
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !all.includes(name));
  if (unknown.length) fail(`no such case: ${unknown.join(", ")} (cases: ${all.join(", ")})`);
  const names = wanted.length ? wanted : all;
  console.log(`recording ${names.length} cases with WireMock ${jar.version} on ${javaVersion}`);
  const started = performance.now();
  const queue = [...names];
  const failures = [];
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      await recordCase(jar, name).catch((error) => failures.push(error.message));
    }
  }));
  console.log(`done in ${Math.round((performance.now() - started) / 1000)} s`);
  // Keep the written files in the repository's format, so re-recording gives a clean diff.
  const deno = join(root, "node_modules", ".bin", "deno");
  const written = names.map((name) => join(casesDir, name, "golden.json"));
  if (await exists(deno)) spawnSync(deno, ["fmt", "--quiet", ...written], { stdio: "inherit" });
  else console.log("deno is not installed: golden.json files are left unformatted (run `deno fmt`)");
  if (failures.length) fail(`${failures.length} case(s) failed:\n${failures.join("\n\n")}`);
}

await main();
