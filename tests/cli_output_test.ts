// What `serve` prints when its reader does not keep up: the real CLI as a subprocess, with
// stdout piped and not read (a test harness that pipes it and only reads stderr, or Python's
// Popen(stdout=PIPE) without communicate()).
import assert from "node:assert/strict";
import { freePort, lines, spawnCli, startServe } from "./_cli.ts";

const REQUESTS = 3_000;
/** A query long enough that 3,000 log lines (3 MB) overflow the 1 MiB the CLI holds for a stdout nobody reads. */
const PAD = "p".repeat(1_000);
const STUB = "GET /n/{i} -> 200";

/** Sends the requests one after another; each must be answered within 10 s. */
async function sendAll(base: string): Promise<void> {
  for (let i = 0; i < REQUESTS; i++) {
    let status: number;
    try {
      const response = await fetch(`${base}/n/${i}?pad=${PAD}`, { signal: AbortSignal.timeout(10_000) });
      await response.body?.cancel();
      status = response.status;
    } catch (error) {
      throw new Error(`request ${i} of ${REQUESTS} was not answered: ${error}`);
    }
    assert.equal(status, 200, `request ${i}`);
  }
}

/** The request number of each request-log line, in the order printed. */
function loggedRequests(stdout: string): number[] {
  return lines(stdout).flatMap((line) => {
    const match = /^GET \/n\/(\d+)\?pad=p+ 200 \[stub-\d+: GET \/n\/\{i\}\] \d+\.\dms$/.exec(line);
    return match ? [Number(match[1])] : [];
  });
}

async function untilHealthy(base: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      const response = await fetch(`${base}/__stubtool__/health`);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`stubtool serve did not become healthy at ${base}`);
}

Deno.test("regression: once its stdout pipe was full and nobody read it, serve on Deno stopped answering (508 of 3,000 requests); now every request is answered and the dropped log lines are counted exactly", async () => {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawnCli(["serve", "--port", String(port), "--stub", STUB]);
  let stdout = "";
  let reading: Promise<void> | undefined;
  try {
    await untilHealthy(base);
    await sendAll(base);
    // Now read: the pipe drains, and the count of what did not fit follows the lines that did.
    const warning = /^\[WARN\] (\d+) log lines dropped: stdout is not being read$/m;
    const { promise: seen, resolve: warned } = Promise.withResolvers<void>();
    reading = (async () => {
      for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) {
        stdout += text;
        if (warning.test(stdout)) warned();
      }
    })();
    await Promise.race([seen, new Promise((_, reject) => setTimeout(() => reject(new Error(stdout)), 15_000))]);
    child.kill("SIGTERM");
    const [{ code }, stderr] = await Promise.all([child.status, new Response(child.stderr).text(), reading]);
    assert.equal(code, 0, stderr);
    assert.equal(stderr, "");
    const logged = loggedRequests(stdout);
    const dropped = Number(warning.exec(stdout)![1]);
    assert.ok(dropped > 0 && logged.length > 0, `${logged.length} logged, ${dropped} dropped`);
    // The first requests' lines, in order, then one warning for all the rest.
    assert.deepEqual(logged, Array.from({ length: logged.length }, (_, i) => i));
    assert.equal(logged.length + dropped, REQUESTS);
    const out = lines(stdout);
    const warningAt = out.findIndex((line) => warning.test(line));
    assert.match(out[warningAt - 1], new RegExp(`^GET /n/${logged.length - 1}\\?`), "the warning stands at the gap");
    // What is printed after the stop reaches a reader that reads.
    assert.match(out.at(-2)!, /^stopping \(SIGTERM\): /);
    assert.equal(out.at(-1), "stopped: 1/1 stubs exercised, 0 unmatched request(s)");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    if (!reading) await child.stdout.cancel();
    await child.stderr.cancel().catch(() => {});
  }
});

Deno.test("serve: a stdout that is read keeps every request-log line, in order, and warns of nothing", async () => {
  const served = await startServe(["--port", "0", "--stub", STUB]);
  await using _process = served.process;
  await sendAll(served.url);
  await served.process.waitForStdout(new RegExp(`^GET /n/${REQUESTS - 1}\\?`, "m"));
  served.process.kill("SIGTERM");
  const { code, stdout, stderr } = await served.process.result();
  assert.equal(code, 0, stderr);
  assert.deepEqual(loggedRequests(stdout), Array.from({ length: REQUESTS }, (_, i) => i));
  assert.doesNotMatch(stdout + stderr, /dropped/);
});
