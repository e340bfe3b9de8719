// `stubtool wait` as a subprocess (and once in-process, for exact timing): ready, timeout,
// late start, the localhost → ::1 case, and a server that is not stubtool.
import assert from "node:assert/strict";
import { main } from "../src/cli/main.ts";
import { MemoryOutput } from "../src/cli/output.ts";
import { CliProcess, freePort, lines, runCli, startServe } from "./_cli.ts";

Deno.test("wait: the default URL follows STUBTOOL_PORT and reaches serve on localhost, exit 0", async () => {
  const served = await startServe(["--port", "0"]);
  await using _ = served.process;
  const { code, stdout, stderr } = await runCli(["wait"], { env: { STUBTOOL_PORT: String(served.port) } });
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  assert.match(
    stdout,
    new RegExp(`^\\[OK\\] stubtool at http://localhost:${served.port} is ready \\(after \\d+\\.\\d\\ds\\)\\n$`),
  );
});

Deno.test("wait --url: an explicit URL, exit 0", async () => {
  const served = await startServe(["--port", "0"]);
  await using _ = served.process;
  const { code, stdout } = await runCli(["wait", "--url", served.url, "--timeout", "5"]);
  assert.equal(code, 0);
  assert.match(stdout, new RegExp(`^\\[OK\\] stubtool at ${RegExp.escape(served.url)} is ready`));
});

Deno.test("wait: localhost is tried at every loopback address (server on ::1 only)", async () => {
  const served = await startServe(["--port", "0", "--host", "::1"]);
  await using _ = served.process;
  assert.equal(served.url, `http://[::1]:${served.port}`);
  const { code, stderr } = await runCli(["wait", "--url", `http://localhost:${served.port}`, "--timeout", "3"]);
  assert.equal(code, 0, stderr);
});

Deno.test("wait: times out with one [ERROR] line, exit 1, within timeout + 0.5 s", async () => {
  const port = freePort();
  const baseline = await runCli(["--version"]); // process start-up, not part of the wait
  const { code, stdout, stderr, ms } = await runCli(["wait", "--url", `http://127.0.0.1:${port}`, "--timeout", "0.6"]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.deepEqual(lines(stderr), [
    `[ERROR] http://127.0.0.1:${port}: not ready after 0.6s (last attempt: connection refused); is stubtool serve running there?`,
  ]);
  assert.ok(ms >= 600, `kept polling until the timeout: ${ms} ms`);
  assert.ok(ms - baseline.ms < 600 + 500, `exited ${ms - baseline.ms - 600} ms after the timeout`);
});

Deno.test("wait: keeps polling until the server comes up", async () => {
  const port = freePort();
  const waiting = new CliProcess(["wait", "--timeout", "8"], { env: { STUBTOOL_PORT: String(port) } });
  await using _ = waiting;
  await new Promise((resolve) => setTimeout(resolve, 700));
  const served = await startServe(["--port", String(port)]);
  await using __ = served.process;
  const { code, stdout } = await waiting.result();
  assert.equal(code, 0);
  const seconds = Number(/after (\d+\.\d+)s/.exec(stdout)?.[1]);
  assert.ok(seconds >= 0.5 && seconds < 8, stdout);
});

Deno.test("wait: a server whose health endpoint is not 200 is not ready, and the error says what it answered", async () => {
  await using other = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("no", { status: 404 }),
  );
  const url = `http://127.0.0.1:${other.addr.port}`;
  const { code, stderr } = await runCli(["wait", "--url", url, "--timeout", "0.3"]);
  assert.equal(code, 1);
  assert.equal(
    stderr,
    `[ERROR] ${url}: not ready after 0.3s (last attempt: /__stubtool__/health answered 404); is stubtool serve running there?\n`,
  );
});

Deno.test("regression: an attempt the deadline cut short hid the answer before it ('no answer in time' for an untrusted certificate under load)", async () => {
  // Answers 503 for 1.5 s, then never: the attempt after that has less than its second left.
  const hangs = Promise.withResolvers<Response>();
  const until = performance.now() + 1_500;
  await using other = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => performance.now() < until ? new Response("busy", { status: 503 }) : hangs.promise,
  );
  const url = `http://127.0.0.1:${other.addr.port}`;
  const { code, stderr } = await runCli(["wait", "--url", url, "--timeout", "2"]);
  hangs.resolve(new Response("late"));
  assert.equal(code, 1);
  assert.equal(
    stderr,
    `[ERROR] ${url}: not ready after 2s (last attempt: /__stubtool__/health answered 503); is stubtool serve running there?\n`,
  );
});

Deno.test("wait in-process: main() returns 1 no sooner than the timeout and less than 0.5 s after it", async () => {
  const output = new MemoryOutput();
  const port = freePort();
  const start = performance.now();
  const code = await main(["wait", "--url", `http://localhost:${port}`, "--timeout", "0.4"], {}, { output });
  const ms = performance.now() - start;
  assert.equal(code, 1);
  assert.ok(ms >= 400 && ms < 900, `${ms} ms`);
  assert.equal(output.stderr.length, 1);
  assert.match(
    output.stderr[0],
    /^\[ERROR\] http:\/\/localhost:\d+: not ready after 0\.4s \(last attempt: connection refused\)/,
  );
});
