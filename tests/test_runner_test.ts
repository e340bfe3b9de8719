// scripts/test.mjs (`npm test`), run as a subprocess with tiny fake suites (`--suites FILE`):
// every suite runs even after one failed, one summary line per suite, the exit code says
// whether all passed, a failed suite names its failed tests in the summary, and a suite whose
// need cannot be met fails with one line.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./_cli.ts";

interface Suite {
  name: string;
  command: string[];
  needs?: string[];
}

/** A suite that prints `<name> ran` and exits with `code`. */
const fake = (name: string, code: number, needs?: string[]): Suite => ({
  name,
  command: ["node", "-e", `console.log(${JSON.stringify(`${name} ran`)}); process.exit(${code})`],
  ...(needs ? { needs } : {}),
});

async function runner(suites: Suite[], args: string[] = [], env: Record<string, string> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "stubtool-runner-" });
  try {
    const file = join(dir, "suites.json");
    await Deno.writeTextFile(file, JSON.stringify(suites));
    const { code, stdout, stderr } = await new Deno.Command("node", {
      args: [join(ROOT, "scripts", "test.mjs"), "--suites", file, ...args],
      env: { NO_COLOR: "1", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The summary lines: `name status note`, whitespace collapsed, durations replaced by `N s`. */
function summary(stdout: string): string[] {
  const lines = stdout.split("\n");
  return lines.slice(lines.indexOf("[test] summary") + 1).filter((l) => l !== "")
    .map((l) => l.trim().replace(/\s+/g, " ").replace(/\d+\.\d s/, "N s"));
}

Deno.test("test runner: a failing first suite does not stop the later ones, and the exit code is 1", async () => {
  const { code, stdout } = await runner([fake("first", 3), fake("second", 0), fake("third", 0)]);
  assert.equal(code, 1);
  for (const name of ["first", "second", "third"]) assert.match(stdout, new RegExp(`^${name} ran$`, "m"));
  assert.deepEqual(summary(stdout), [
    "first FAILED exit 3, N s",
    "second passed N s",
    "third passed N s",
    "suites: 2 passed, 1 failed",
  ]);
});

Deno.test("test runner: every suite passing exits 0 with a closing 'N passed, N failed' line", async () => {
  const { code, stdout } = await runner([fake("one", 0), fake("two", 0)]);
  assert.equal(code, 0);
  assert.deepEqual(summary(stdout), ["one passed N s", "two passed N s", "suites: 2 passed, 0 failed"]);
});

Deno.test("test runner: suites named on the command line run alone, in that order", async () => {
  const { code, stdout } = await runner([fake("one", 0), fake("two", 1), fake("three", 0)], ["three", "one"]);
  assert.equal(code, 0);
  assert.deepEqual(summary(stdout), ["three passed N s", "one passed N s", "suites: 2 passed, 0 failed"]);
  assert.doesNotMatch(stdout, /^two ran$/m);
});

Deno.test("test runner: an unknown suite name is a usage error naming the suites", async () => {
  const { code, stdout, stderr } = await runner([fake("one", 0)], ["won"]);
  assert.equal(code, 2);
  assert.equal(stderr, "[ERROR] unknown suite 'won' (suites: one)\n");
  assert.equal(stdout, "");
});

Deno.test("test runner: a suite whose browser cannot be had fails with one line saying what to install; the rest run", async () => {
  const { code, stdout, stderr } = await runner(
    [fake("browser", 0, ["chromium"]), fake("after", 0)],
    [],
    { CHROMIUM_PATH: "/nonexistent/chromium", PATH: Deno.env.get("PATH") ?? "" },
  );
  assert.equal(code, 1);
  assert.doesNotMatch(stdout, /^browser ran$/m, "the suite itself never started");
  assert.match(stdout, /^after ran$/m);
  const line = "CHROMIUM_PATH=/nonexistent/chromium is not an executable file: install Chromium (Debian/Ubuntu: " +
    "apt-get install chromium; macOS: install Google Chrome), or set CHROMIUM_PATH to a Chromium or Chrome executable";
  assert.equal(stderr, `[ERROR] ${line}\n`);
  assert.deepEqual(summary(stdout), [`browser FAILED ${line}`, "after passed N s", "suites: 1 passed, 1 failed"]);
});

/** A suite that prints `output` on stdout and exits with `code`. */
const printing = (name: string, output: string, code: number): Suite => ({
  name,
  command: ["node", "-e", `process.stdout.write(${JSON.stringify(output)}); process.exitCode = ${code}`],
});

Deno.test("test runner: a failed suite's summary names its failed tests and their first error line (a CI log keeps only its tail)", async () => {
  const red = (text: string) => `\x1b[31m${text}\x1b[0m`;
  const deno = [
    "fails with a message ... FAILED (4ms)",
    "",
    `\x1b[1m\x1b[37m\x1b[41m ERRORS \x1b[0m`,
    "",
    `fails with a message \x1b[38;5;245m=> ./a_test.ts:3:6\x1b[0m`,
    `\x1b[1m${red("error")}: AssertionError: one is not two`,
    "",
    "1 !== 2",
    "error: a later line of the same error",
    "",
    `steps ... inner fails \x1b[38;5;245m=> ./a_test.ts:4:43\x1b[0m`,
    `${red("error")}: Error: boom`,
    "",
    `\x1b[1m\x1b[37m\x1b[41m FAILURES \x1b[0m`,
    "",
    "fails with a message => ./a_test.ts:3:6",
    "steps ... inner fails => ./a_test.ts:4:43",
    "",
    `${red("FAILED")} | 1 passed | 2 failed (1 step)`,
    "",
  ].join("\n");
  const node = "ok 1 - node passes\nnot ok 2 - node fails\n  ---\n  ...\n";
  const { code, stdout } = await runner([
    printing("deno", deno, 1),
    printing("node", node, 1),
    printing("clean", "not ok 1 - printed by a suite that passed\n", 0),
  ]);
  assert.equal(code, 1);
  assert.ok(stdout.includes(deno), "the suite's output passes on unchanged");
  assert.deepEqual(summary(stdout), [
    "deno FAILED exit 1, N s",
    "failed: fails with a message => ./a_test.ts:3:6: error: AssertionError: one is not two",
    "failed: steps ... inner fails => ./a_test.ts:4:43: error: Error: boom",
    "node FAILED exit 1, N s",
    "failed: node fails",
    "clean passed N s",
    "suites: 1 passed, 2 failed",
  ]);
});

Deno.test("test runner: past ten failed tests the summary says how many more", async () => {
  const output = Array.from({ length: 13 }, (_, i) => `not ok ${i + 1} - test ${i + 1}\n`).join("");
  const { stdout } = await runner([printing("many", output, 1)]);
  assert.deepEqual(summary(stdout), [
    "many FAILED exit 1, N s",
    ...Array.from({ length: 10 }, (_, i) => `failed: test ${i + 1}`),
    "failed: … and 3 more",
    "suites: 0 passed, 1 failed",
  ]);
});

Deno.test("test runner: a process a suite leaves behind holding its output does not hold the run (2 s at most)", async () => {
  const leaves: Suite = {
    name: "leaves",
    command: [
      "node",
      "-e",
      "require('node:child_process').spawn('sleep', ['8'], { stdio: 'inherit', detached: true }).unref(); console.log('left one')",
    ],
  };
  const started = performance.now();
  const { code, stdout } = await runner([leaves, fake("after", 0)]);
  const ms = performance.now() - started;
  assert.equal(code, 0);
  assert.deepEqual(summary(stdout), ["leaves passed N s", "after passed N s", "suites: 2 passed, 0 failed"]);
  assert.ok(ms < 6_000, `the run took ${ms.toFixed(0)} ms with an 8 s process left behind`);
});
