// `npm test`: every test suite, each run even when an earlier one failed, one summary line
// per suite, exit 1 when any failed. Plain Node, so it works on a fresh clone before Deno is
// installed: it runs `npm ci` first when node_modules is missing (scripts/ensure_deps.mjs),
// and gets what a suite needs besides Node and Deno (Chromium, wrk) from
// scripts/provision.mjs just before that suite runs. A suite whose need cannot be met fails
// with one line saying what to install; no suite is ever skipped.
//
//   npm test                         # every suite
//   npm test -- browser node         # only these suites, in this order
//   node scripts/test.mjs --suites FILE   # suites from a JSON file (the runner's own tests)
//
// A failed suite's summary line is followed by the tests its output names as failed (Deno's
// FAILURES, node:test's `not ok`), so a log cut to its tail still says which.
//
// A suite file is a JSON list of { "name", "command": [program, ...args], "needs"?: ["chromium" | "wrk" | "redis-server" | "python-httpx"] }.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureDeps } from "./ensure_deps.mjs";
import { ensureChromium, ensureHttpx, ensureRedis, ensureWrk } from "./provision.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Every suite of `npm test`, in the order they run. */
export const SUITES = [
  {
    name: "deno",
    what: "unit, HTTP on both adapters, CLI subprocesses, README blocks, doc examples",
    command: ["deno", "test", "-A", "--doc", "--ignore=tests/browser/"],
    // tests/state_test.ts and tests/cli_state_test.ts start their own redis-server; tests/stream_test.ts streams with
    // Python's httpx.
    needs: ["redis-server", "python-httpx"],
  },
  {
    name: "browser",
    what: "the dashboard, a cross-origin app and the admin token in headless Chromium",
    command: ["deno", "test", "-A", "tests/browser/"],
    needs: ["chromium"],
  },
  { name: "node", what: "the npm package on Node", command: ["node", "--test", "tests/node/all.mjs"] },
  { name: "bench", what: "benchmark smoke", command: ["deno", "run", "-A", "bench/run.ts", "--smoke"], needs: ["wrk"] },
];

const PROVIDERS = {
  chromium: ensureChromium,
  wrk: ensureWrk,
  "redis-server": ensureRedis,
  "python-httpx": ensureHttpx,
};

function parseArgs(argv) {
  let suites = SUITES;
  const names = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--suites") {
      const file = argv[++i];
      if (!file) throw new Error("--suites needs a file: a JSON list of { name, command }");
      suites = JSON.parse(readFileSync(file, "utf8"));
    } else names.push(argv[i]);
  }
  if (names.length === 0) return suites;
  return names.map((name) => {
    const suite = suites.find((s) => s.name === name);
    if (!suite) throw new Error(`unknown suite '${name}' (suites: ${suites.map((s) => s.name).join(", ")})`);
    return suite;
  });
}

/** A colour escape (Deno colours its output even into a pipe or a file). */
// deno-lint-ignore no-control-regex
const ANSI_COLOR = /\x1b\[[0-9;]*m/g;

/** How many failed tests a summary line names at most. */
const MAX_NAMED = 10;

/**
 * Picks the failed tests out of a suite's output, as its runner names them: Deno's
 * `name => file:line:col` lines under ` FAILURES `, each with the first `error:` line the
 * ERRORS section gave it; node:test's `not ok N - name`. A CI log often keeps only its tail,
 * so the summary repeats them.
 */
class FailedTests {
  /** Failed test names, in order, each with its first error line once known. */
  #failed = new Map();
  #section = "";
  /** The test whose error the ERRORS section is printing. */
  #current;
  #rest = "";

  /** Feeds a chunk of output. */
  push(chunk) {
    const lines = (this.#rest + chunk).split("\n");
    this.#rest = lines.pop() ?? "";
    for (const line of lines) this.#line(line);
  }

  #line(raw) {
    const line = raw.replace(ANSI_COLOR, "").trimEnd();
    if (/^\s*(ERRORS|FAILURES)$/.test(line)) return void (this.#section = line.trim());
    const notOk = /^\s*not ok \d+ - (.+)$/.exec(line);
    if (notOk) return void this.#failed.set(notOk[1], undefined);
    if (!this.#section) return;
    const named = /^(.+ => \S+:\d+:\d+)$/.exec(line);
    if (named) {
      if (!this.#failed.has(named[1])) this.#failed.set(named[1], undefined);
      this.#current = this.#section === "ERRORS" ? named[1] : undefined;
    } else if (this.#current && /^error: /.test(line) && this.#failed.get(this.#current) === undefined) {
      this.#failed.set(this.#current, line);
    }
  }

  /** One line per failed test (at most {@link MAX_NAMED}, then how many more). */
  lines() {
    const all = [...this.#failed].map(([name, error]) => error ? `${name}: ${error}` : name);
    const shown = all.slice(0, MAX_NAMED).map((line) => line.length > 300 ? `${line.slice(0, 299)}…` : line);
    return all.length > MAX_NAMED ? [...shown, `… and ${all.length - MAX_NAMED} more`] : shown;
  }
}

/**
 * Runs one command, passing its output on as it comes; resolves to its exit code (or 128 +
 * signal number) and the tests its output says failed.
 */
function run(command, env) {
  return new Promise((resolve) => {
    const failed = new FailedTests();
    const child = spawn(command[0], command.slice(1), { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    // The failures are read from stdout, where Deno and node:test print them; stderr only passes on.
    const decoder = new TextDecoder();
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      failed.push(decoder.decode(chunk, { stream: true }));
    });
    child.stderr.on("data", (chunk) => process.stderr.write(chunk));
    child.on("error", (error) => {
      console.error(`[test] could not start ${command[0]}: ${error.message}`);
      resolve({ code: 127, failed: [] });
    });
    // Output can outlive the suite (a process it left behind holds the pipe): wait for it 2 s at most.
    child.on("exit", (code, signal) => {
      const done = () => resolve({ code: code ?? (signal === "SIGINT" ? 130 : 128 + 15), failed: failed.lines() });
      const late = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        done();
      }, 2_000);
      child.on("close", () => {
        clearTimeout(late);
        done();
      });
    });
  });
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function main() {
  let suites;
  try {
    suites = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`[ERROR] ${error.message}`);
    return 2;
  }
  const installed = ensureDeps();
  if (installed !== 0) {
    console.error("[ERROR] npm ci failed: no suite can run without node_modules");
    return installed;
  }
  const env = { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}` };
  let interrupted = false;
  process.on("SIGINT", () => interrupted = true);
  process.on("SIGTERM", () => interrupted = true);

  const results = [];
  for (const suite of suites) {
    if (interrupted) {
      results.push({ name: suite.name, status: "not run", note: "interrupted" });
      continue;
    }
    console.log(`\n[test] ${suite.name}${suite.what ? ` (${suite.what})` : ""}: ${suite.command.join(" ")}`);
    const start = performance.now();
    const suiteEnv = { ...env };
    let missing;
    for (const need of suite.needs ?? []) {
      const provide = PROVIDERS[need];
      const got = provide ? provide({ env: suiteEnv }) : { error: `unknown need '${need}'` };
      if (got.error) {
        missing = got.error;
        break;
      }
      console.log(`[test] ${need}: ${got.path}`);
      if (need === "chromium") suiteEnv.CHROMIUM_PATH = got.path;
      else if (need === "python-httpx") suiteEnv.HTTPX_PYTHON = got.path;
      // A program found in a folder already on PATH changes nothing (prepending /usr/bin for redis-server would
      // put the system's python3 before a pyenv one); one installed elsewhere goes first.
      else if (!suiteEnv.PATH.split(delimiter).includes(dirname(got.path))) {
        suiteEnv.PATH = `${dirname(got.path)}${delimiter}${suiteEnv.PATH}`;
      }
    }
    if (missing) {
      console.error(`[ERROR] ${missing}`);
      results.push({ name: suite.name, status: "FAILED", note: missing });
      continue;
    }
    const { code, failed } = await run(suite.command, suiteEnv);
    const took = seconds(performance.now() - start);
    results.push({
      name: suite.name,
      status: code === 0 ? "passed" : "FAILED",
      note: code === 0 ? took : `exit ${code}, ${took}`,
      failed: code === 0 ? [] : failed,
    });
  }

  const width = Math.max(...results.map((r) => r.name.length));
  console.log("\n[test] summary");
  for (const r of results) {
    console.log(`  ${r.name.padEnd(width)}  ${r.status.padEnd(7)}  ${r.note}`);
    for (const line of r.failed ?? []) console.log(`    failed: ${line}`);
  }
  const passed = results.filter((r) => r.status === "passed").length;
  const failed = results.length - passed;
  console.log(`suites: ${passed} passed, ${failed} failed`);
  if (interrupted) return 130;
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
