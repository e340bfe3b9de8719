import assert from "node:assert/strict";
import { binaryName, denortProblem, nodeModulesExcludes, PERMISSIONS, TARGETS, V8_FLAGS } from "../scripts/compile.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SCRIPT = new URL("../scripts/compile.ts", import.meta.url).pathname;

/** Runs scripts/compile.ts; never longer than 90 s. */
async function runCompile(args: string[], env: Record<string, string>, clearEnv: string[] = []) {
  const environment = { ...Deno.env.toObject(), ...env };
  for (const name of clearEnv) delete environment[name];
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SCRIPT, ...args],
    cwd: ROOT,
    env: environment,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(90_000),
  }).output();
  return { code, stdout: new TextDecoder().decode(stdout), stderr: new TextDecoder().decode(stderr) };
}

Deno.test("compile: without DENORT_BIN, an unreachable runtime-stub host fails fast with one line naming the fix", async () => {
  // Stand in for "dl.deno.land is unreachable" wherever this runs, online or not: route Deno's
  // download through a local proxy that hangs up at once, with an empty cache.
  const proxy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const refusing = (async () => {
    for await (const connection of proxy) connection.close();
  })();
  const denoDir = await Deno.makeTempDir();
  const out = await Deno.makeTempDir();
  try {
    const proxyUrl = `http://127.0.0.1:${proxy.addr.port}`;
    const result = await runCompile(
      ["--target", "x86_64-unknown-linux-gnu", "--out", out],
      { HTTPS_PROXY: proxyUrl, https_proxy: proxyUrl, DENO_DIR: denoDir },
      ["DENORT_BIN", "NO_PROXY", "no_proxy"],
    );
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.match(
      lines[0],
      /^\[compile\] error: cannot obtain the Deno runtime stub \(denort\) for x86_64-unknown-linux-gnu: /,
    );
    assert.match(lines[0], /denort-x86_64-unknown-linux-gnu\.zip/);
    assert.match(lines[0], /set DENORT_BIN=/);
    assert.deepEqual([...Deno.readDirSync(out)], [], "nothing is left in --out");
  } finally {
    proxy.close();
    await refusing.catch(() => {});
    await Deno.remove(denoDir, { recursive: true });
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test({
  name: "compile: with DENORT_BIN, builds the one target into --out and writes SHA256SUMS",
  // Any ELF executable stands in for Linux's denort: deno compile appends the program to it.
  ignore: Deno.build.os !== "linux",
  async fn() {
    const out = await Deno.makeTempDir();
    try {
      const result = await runCompile(["--out", out], { DENORT_BIN: "/bin/true" });
      assert.equal(result.code, 0, result.stderr);
      const name = binaryName(Deno.build.target);
      const binary = await Deno.readFile(`${out}/${name}`);
      const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", binary)))
        .map((b) => b.toString(16).padStart(2, "0")).join("");
      assert.equal(await Deno.readTextFile(`${out}/SHA256SUMS`), `${digest}  ${name}\n`);
      // The runtime dependencies (yaml, ajv, the OpenAPI parser, handlebars, jsonpath-plus,
      // openapi-sampler) come to ~21 MB with the stand-in runtime; all of node_modules is ~200 MB.
      assert.ok(binary.byteLength < 40 * 1024 * 1024, `${binary.byteLength} bytes: node_modules leaked in`);

      const several = await runCompile(["--out", out, "--target", TARGETS[0], "--target", TARGETS[1]], {
        DENORT_BIN: "/bin/true",
      });
      assert.equal(several.code, 1);
      assert.match(several.stderr, /DENORT_BIN names one runtime stub/);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});

Deno.test("compile: denortProblem reads deno compile's download error, and leaves other errors alone", () => {
  const stderr = [
    "error: Writing deno compile executable to temporary file 'dist/x.tmp'",
    "",
    "Caused by:",
    "    0: Setting up base binary.",
    "    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-aarch64-apple-darwin.zip)",
    "    2: dns error",
    "    3: failed to lookup address information: Name or service not known",
    "",
    "Stack backtrace:",
    "   0: <unknown>",
  ].join("\n");
  const line = denortProblem(stderr, "aarch64-apple-darwin", "2.9.6");
  assert.ok(line);
  assert.ok(!line.includes("\n"));
  assert.match(line, /https:\/\/dl\.deno\.land\/release\/v2\.9\.6\/denort-aarch64-apple-darwin\.zip failed/);
  assert.match(line, /\(failed to lookup address information: Name or service not known\)/);
  assert.match(line, /--target aarch64-apple-darwin/);
  assert.equal(denortProblem("error: TS2322 [ERROR]: Type 'string' is not assignable", "x", "2.9.6"), undefined);
});

Deno.test("compile: binaries are named per target, and node_modules keeps only runtime dependencies", () => {
  assert.equal(binaryName("x86_64-pc-windows-msvc"), "stubtool-x86_64-pc-windows-msvc.exe");
  assert.equal(binaryName("aarch64-apple-darwin"), "stubtool-aarch64-apple-darwin");
  const excluded = nodeModulesExcludes(ROOT);
  assert.ok(excluded.includes("node_modules/deno"));
  assert.ok(excluded.includes("node_modules/typescript"));
  assert.ok(!excluded.includes("node_modules/yaml"));
});

Deno.test("compile: the binary's permission and V8 flags are enough for serve, wait, report and validate", async () => {
  const dir = await Deno.makeTempDir();
  const cli = (args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", ...PERMISSIONS, ...V8_FLAGS, `${ROOT}cli.ts`, ...args],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(30_000),
    });
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  try {
    await Deno.writeTextFile(
      `${dir}/stubs.yaml`,
      "routes:\n  - method: GET\n    path: /users/{id}\n    body: {id: '{id}'}\n",
    );
    const validate = await cli(["validate", "stubs.yaml"]).output();
    assert.equal(validate.code, 0, text(validate.stderr));

    const serve = cli(["serve", "--port", "0", "--config", "stubs.yaml", "--report-file", "report.json"]).spawn();
    const reader = serve.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let banner = "";
    while (!/listening on (http:\S+)/.test(banner)) {
      const { done, value } = await reader.read();
      if (done) break;
      banner += value;
    }
    const url = banner.match(/listening on (http:\S+)/)?.[1];
    assert.ok(url, `no URL in: ${banner}`);
    const wait = await cli(["wait", "--url", url, "--timeout", "10"]).output();
    assert.equal(wait.code, 0, text(wait.stderr));
    assert.deepEqual(await (await fetch(`${url}/users/3`)).json(), { id: "3" });
    const report = await cli(["report", "--url", url, "--format", "json"]).output();
    assert.equal(report.code, 0, text(report.stderr));
    assert.equal(JSON.parse(text(report.stdout)).summary.matched_stubs, 1);

    serve.kill("SIGTERM");
    await reader.cancel();
    const stderr = await new Response(serve.stderr).text();
    assert.equal((await serve.status).code, 0, stderr);
    assert.equal(JSON.parse(await Deno.readTextFile(`${dir}/report.json`)).summary.total_stubs, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("npm start and README's install line run cli.ts with the binary's V8 flags (the young generation cap of the RSS ceiling)", async () => {
  assert.deepEqual(V8_FLAGS, ["--v8-flags=--max-semi-space-size=4,--heap-growing-percent=50"]);
  const start: string = JSON.parse(await Deno.readTextFile(`${ROOT}package.json`)).scripts.start;
  assert.equal(start, `deno run -A ${V8_FLAGS.join(" ")} cli.ts serve --config examples/stubs.yaml`);
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  assert.ok(
    readme.includes(`node_modules/.bin/${start}   # npm start`),
    "README's install block shows what npm start runs",
  );
});
