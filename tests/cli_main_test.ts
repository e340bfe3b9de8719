// main(args, env) in-process (STYLE 12), the printing layer, and the portability rule.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { main } from "../src/cli/main.ts";
import { MemoryOutput, StreamOutput, streamSink, type TextSink } from "../src/cli/output.ts";
import { logLine, ROUTE_TABLE_ROWS, routeTable } from "../src/cli/serve.ts";
import { inlineStubs } from "../src/stubs/inline.ts";
import { VERSION } from "../src/version.ts";
import { fixture, lines, ROOT } from "./_cli.ts";

Deno.test("main: returns the exit code and prints through the given output", async () => {
  const output = new MemoryOutput();
  assert.equal(await main(["--version"], {}, { output }), 0);
  assert.deepEqual(output.stdout, [`stubtool ${VERSION}`]);

  const bad = new MemoryOutput();
  assert.equal(await main(["validate", fixture("invalid_method.yaml")], {}, { output: bad }), 1);
  assert.deepEqual(bad.stdout, []);
  assert.equal(bad.stderr.length, 1);

  const usage = new MemoryOutput();
  assert.equal(await main(["serve", "--nope"], {}, { output: usage }), 2);
  assert.deepEqual(usage.stderr, ["[ERROR] serve: unknown option '--nope'; run stubtool serve --help"]);
});

Deno.test("main: serve in-process reads env, serves, and stops on the given signal with exit 0", async () => {
  const output = new MemoryOutput();
  const stop = new AbortController();
  const env = { STUBTOOL_CONFIG: fixture("valid.yaml"), STUBTOOL_HOST: "127.0.0.1" };
  const running = main(["serve", "--port", "0"], env, { output, stop: stop.signal });
  const [, url] = await output.waitFor(/listening on (http:\/\/\S+)/);
  const response = await fetch(`${url}/users/5`);
  assert.deepEqual(await response.json(), { id: "5" });
  await output.waitFor(/^GET \/users\/5 200 \[stub-1: GET \/users\/\{id\}\] \d+\.\dms$/);
  stop.abort("test over");
  assert.equal(await running, 0);
  assert.equal(output.stdout.at(-2), "stopping (test over): no new connections; in-flight responses get up to 5s");
  assert.equal(output.stdout.at(-1), "stopped: 1/2 stubs exercised, 0 unmatched request(s)");
});

Deno.test("main: a --report-file that cannot be written is one [ERROR] line after shutdown, exit 1", async () => {
  // The path is a directory: the startup check passes (its parent exists), the write fails.
  const output = new MemoryOutput();
  const stop = new AbortController();
  stop.abort("now");
  const code = await main(["serve", "--port", "0", "--report-file", ROOT + "tests"], {}, { output, stop: stop.signal });
  assert.equal(code, 1);
  assert.equal(output.stderr.length, 1);
  assert.deepEqual(output.stderr, [`[ERROR] --report-file ${ROOT}tests: cannot write the report: it is a directory`]);
});

Deno.test("without --allow-env, --version works and serve fails with one [ERROR] line (no stack trace)", async () => {
  const run = async (...args: string[]) => {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--allow-read", "--allow-net", `${ROOT}cli.ts`, ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
  };
  assert.deepEqual(await run("--version"), { code: 0, stdout: `stubtool ${VERSION}\n`, stderr: "" });
  const serve = await run("serve", "--port", "0", "--stub", "GET /a -> 200");
  assert.equal(serve.code, 1);
  assert.match(serve.stderr, /^\[ERROR\] serve: unexpected error: Requires env access to "STUBTOOL_\w+".*\n$/);
});

/** Output whose stdout fails, to provoke an error no command expects. */
class BrokenOutput extends MemoryOutput {
  override out(): void {
    throw new Error("stdout is gone\nsecond line");
  }
}

Deno.test("main: an unexpected error is one [ERROR] line without a stack; --debug adds the stack", async () => {
  const plain = new BrokenOutput();
  assert.equal(await main(["--version"], {}, { output: plain }), 1);
  assert.deepEqual(plain.stderr, [
    "[ERROR] stubtool: unexpected error: stdout is gone (run again with --debug for details)",
  ]);
  const debug = new BrokenOutput();
  assert.equal(await main(["--version", "--debug"], {}, { output: debug }), 1);
  assert.equal(debug.stderr[0], "[ERROR] stubtool: unexpected error: stdout is gone");
  assert.match(debug.stderr[1], /^Error: stdout is gone\nsecond line\n\s+at /);
});

Deno.test("logLine: METHOD TARGET STATUS [ID: STUB] TIMEms, UNMATCHED with the closest stubs' ids when no stub matched", () => {
  assert.equal(
    logLine({ method: "GET", target: "/users/1?x=1", status: 200, stub: "GET /users/{id}", id: "get-user", ms: 1.26 }),
    "GET /users/1?x=1 200 [get-user: GET /users/{id}] 1.3ms",
  );
  assert.equal(logLine({ method: "BREW", target: "/pot", status: 404, ms: 0.04 }), "BREW /pot 404 [UNMATCHED] 0.0ms");
  assert.equal(
    logLine({ method: "POST", target: "/payments", status: 404, closest: ["stub-1", "stub-2"], ms: 0.31 }),
    "POST /payments 404 [UNMATCHED; closest: stub-1, stub-2] 0.3ms",
  );
});

Deno.test("routeTable: aligned columns of method, path with query, response, source", async () => {
  const { stubs } = await inlineStubs(["GET /search?q={term} -> 200", "DELETE /users/{id} -> 204"]);
  assert.deepEqual(routeTable(stubs, ["routes[0]", "--stub[0]"]), [
    "  GET     /search?q={term}  200  routes[0]",
    "  DELETE  /users/{id}       204  --stub[0]",
  ]);
});

Deno.test("regression: logLine and routeTable showed no scenario state; a move is [cart: Started → one-item], a condition a column", async () => {
  assert.equal(
    logLine({
      method: "POST",
      target: "/cart",
      status: 201,
      stub: "POST /cart",
      id: "add",
      transition: "cart: Started → one-item",
      ms: 0.42,
    }),
    "POST /cart 201 [add: POST /cart] [cart: Started → one-item] 0.4ms",
  );
  const { stubs } = await inlineStubs([
    "{method: GET, path: /cart, scenario: cart, when_state: one-item}",
    "{method: POST, path: /cart, scenario: cart, set_state: one-item}",
    "GET /other -> 204",
  ]);
  assert.deepEqual(routeTable(stubs, ["a", "b", "c"]), [
    "  GET   /cart   200  [cart: one-item]      a",
    "  POST  /cart   200  [cart: * → one-item]  b",
    "  GET   /other  204                        c",
  ]);
});

Deno.test("routeTable: past the row limit, one line counts the rest; widths come from the shown rows", async () => {
  const texts = ["GET /a -> 200", "GET /b -> 200", "GET /a-much-longer-path-that-is-not-shown -> 200"];
  const { stubs } = await inlineStubs(texts);
  const places = ["routes[0]", "routes[1]", "routes[2]"];
  assert.deepEqual(routeTable(stubs, places, 2), [
    "  GET  /a  200  routes[0]",
    "  GET  /b  200  routes[1]",
    "  … and 1 more routes (GET /__stubtool__/report lists them all)",
  ]);
  assert.equal(routeTable(stubs, places, 3).length, 3, "no extra line when every stub is shown");
  assert.equal(ROUTE_TABLE_ROWS, 40);
});

/** A sink that records each write and, when `hold` is set, confirms writes only when released. */
class SlowStream implements TextSink {
  writes: string[] = [];
  #held: (() => void)[] = [];
  constructor(readonly hold: boolean) {}
  write(text: string): Promise<void> {
    this.writes.push(text);
    if (!this.hold) return Promise.resolve();
    return new Promise((resolve) => this.#held.push(resolve));
  }
  release(): void {
    for (const resolve of this.#held.splice(0)) resolve();
  }
}

Deno.test("StreamOutput: request-log lines are batched into one write", async () => {
  const stdout = new SlowStream(false);
  const output = new StreamOutput(stdout, new SlowStream(false));
  for (let i = 0; i < 100; i++) output.log(`line ${i}`);
  assert.equal(stdout.writes.length, 0, "nothing written per line");
  await output.flush();
  assert.equal(stdout.writes.length, 1);
  assert.equal(stdout.writes[0], Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join(""));
  // A direct line first sends pending log lines, so order is kept.
  output.log("logged");
  output.out("direct");
  await output.flush();
  assert.equal(stdout.writes.slice(1).join(""), "logged\ndirect\n");
});

Deno.test("StreamOutput: log lines are written on a short timer without an explicit flush", async () => {
  const stdout = new SlowStream(false);
  const output = new StreamOutput(stdout, new SlowStream(false));
  output.log("a");
  output.log("b");
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(stdout.writes, ["a\nb\n"]);
});

/** Lets the writes a release or a batch timer starts run. */
const settle = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("StreamOutput: a server's stdout nobody reads holds about 1 MiB; the lines past it are dropped and counted exactly", async () => {
  const stdout = new SlowStream(true);
  const output = new StreamOutput(stdout, new SlowStream(false));
  output.serving();
  const line = (i: number) => `${i} `.padEnd(1000, "y");
  for (let i = 0; i < 3000; i++) output.log(line(i)); // 3 MB offered to a stdout nobody reads
  await settle(50); // the batch timer starts the first write, which the stream never confirms
  assert.equal(stdout.writes.length, 1);
  const kept = lines(stdout.writes[0]);
  assert.ok(kept.length > 1000 && kept.length < 1050, `kept ${kept.length}`);
  assert.deepEqual(kept, Array.from({ length: kept.length }, (_, i) => line(i)), "the first lines, in order");
  output.log(line(3000)); // still dropped: the queue has not drained
  output.out("stopping"); // a server's own lines have room past the log's bound
  stdout.release(); // the reader starts reading
  await settle();
  assert.deepEqual(stdout.writes.slice(1), ["stopping\n"]);
  stdout.release();
  await settle();
  assert.deepEqual(stdout.writes.slice(2), [
    `[WARN] ${3001 - kept.length} log lines dropped: stdout is not being read\n`,
  ]);
  stdout.release();
  await settle();
  output.log("after");
  const flushing = output.flush();
  stdout.release();
  await flushing;
  assert.deepEqual(stdout.writes.slice(3), ["after\n"], "once drained, lines are kept again");
});

Deno.test("StreamOutput: a server's stderr nobody reads is bounded too, and the warning names stderr", async () => {
  const stderr = new SlowStream(true);
  const output = new StreamOutput(new SlowStream(false), stderr);
  output.serving();
  const line = (i: number) => `[WARN] ${i} `.padEnd(1000, "w");
  for (let i = 0; i < 1500; i++) output.err(line(i));
  assert.equal(stderr.writes.length, 1, "one write under way");
  stderr.release();
  await settle();
  const kept = [...lines(stderr.writes[0]), ...lines(stderr.writes[1])];
  assert.ok(kept.length > 1000 && kept.length < 1500, `kept ${kept.length}`);
  assert.deepEqual(kept, Array.from({ length: kept.length }, (_, i) => line(i)));
  stderr.release();
  await settle();
  assert.deepEqual(stderr.writes.slice(2), [
    `[WARN] ${1500 - kept.length} log lines dropped: stderr is not being read\n`,
  ]);
  stderr.release();
  await output.flush();
});

Deno.test("StreamOutput: a one-shot command (report, stubs list) drops nothing and waits for a slow reader past the server's 2 s", async () => {
  const stdout = new SlowStream(true);
  const output = new StreamOutput(stdout, new SlowStream(false));
  const line = (i: number) => `${i} `.padEnd(1000, "r");
  for (let i = 0; i < 3000; i++) output.out(line(i));
  let flushed = false;
  const flushing = output.flush().then(() => flushed = true);
  await settle(2_300);
  assert.equal(flushed, false, "still waiting for the reader");
  stdout.release();
  await settle();
  stdout.release();
  await flushing;
  assert.deepEqual(lines(stdout.writes.join("")), Array.from({ length: 3000 }, (_, i) => line(i)));
});

Deno.test("StreamOutput: direct lines sent while a write is under way go out together, in order, after it", async () => {
  const stdout = new SlowStream(true);
  const output = new StreamOutput(stdout, new SlowStream(false));
  output.out("first");
  output.out("second");
  output.out("third");
  assert.deepEqual(stdout.writes, ["first\n"], "one write at a time");
  stdout.release();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(stdout.writes, ["first\n", "second\nthird\n"]);
  stdout.release();
  await output.flush();
});

Deno.test("StreamOutput: a server's flush gives up on a stream that never confirms (a stuck pipe must not keep it alive)", async () => {
  const stdout = new SlowStream(true);
  const output = new StreamOutput(stdout, new SlowStream(false));
  output.serving();
  output.out("stuck");
  const start = performance.now();
  await output.flush();
  const ms = performance.now() - start;
  assert.ok(ms > 1_500 && ms < 4_000, `flush returned after ${ms} ms`);
  stdout.release();
});

Deno.test("streamSink: a write resolves once the stream confirms it; a destroyed stream loses text without throwing", async () => {
  const seen: string[] = [];
  let confirm = () => {};
  const slow = new Writable({
    decodeStrings: false,
    write(chunk, _encoding, done) {
      seen.push(String(chunk));
      confirm = done;
    },
  });
  let resolved = false;
  const written = streamSink(slow).write("line\n").then(() => resolved = true);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(seen, ["line\n"]);
  assert.equal(resolved, false, "not before the stream confirms");
  confirm();
  await written;
  const closed = new Writable({ write: (_chunk, _encoding, done) => done() });
  const sink = streamSink(closed);
  closed.destroy(new Error("EPIPE"));
  await sink.write("lost\n");
});

Deno.test("CLI code uses no Deno.*: one code path on node: built-ins for Deno and the npm bin on Node", async () => {
  const files = ["cli.ts", "src/stubs/config.ts", "src/stubs/inline.ts", "src/report/report.ts"];
  // Every file under src/cli/, its loaders/ included.
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(ROOT + dir)) {
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`);
      else files.push(`${dir}/${entry.name}`);
    }
  };
  await walk("src/cli");
  const code = async (file: string) => (await Deno.readTextFile(ROOT + file)).replace(/^\s*(\*|\/\/|\/\*).*$/gm, "");
  for (const file of files) assert.doesNotMatch(await code(file), /\bDeno\./, file);
  assert.ok(
    files.includes("src/cli/serve.ts") && files.includes("src/cli/loaders/wiremock_folder.ts"),
    "the CLI's files are read",
  );
});
