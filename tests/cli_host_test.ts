// The CLI's two hosts (src/cli/host_deno.ts, src/cli/host_node.ts) pass the same
// cases: file errors carry the codes the CLI's messages are keyed on, paths resolve alike,
// streams confirm writes, signals reach listeners. The Node host runs here under Deno's
// Node compatibility; the npm suite (tests/node/) runs it on Node through the bin.
import assert from "node:assert/strict";
import { posix, win32 } from "node:path";
import { Writable } from "node:stream";
import { denoHost, dirnamePath, resolvePath } from "../src/cli/host_deno.ts";
import { nodeHost, nodeStream } from "../src/cli/host_node.ts";
import type { Host } from "../src/cli/host.ts";
import { loadHost } from "../src/cli/host.ts";
import { describeReadError, loadConfigFile } from "../src/stubs/config.ts";
import { ROOT, tempDir } from "./_cli.ts";

const HOSTS: [string, Host][] = [["deno", denoHost], ["node", nodeHost]];

/** What a rejected promise rejected with. */
async function rejection(promise: Promise<unknown>): Promise<{ code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string };
  }
  throw new Error("did not reject");
}

Deno.test("loadHost: Deno's host under Deno", async () => {
  assert.equal(await loadHost(), denoHost);
});

for (const [name, host] of HOSTS) {
  Deno.test(`${name} host: a missing file and a directory give the CLI's messages (ENOENT, EISDIR)`, async () => {
    const missing = await rejection(host.readTextFile("/no/such/stubs.yaml"));
    assert.equal(missing.code, "ENOENT");
    assert.equal(describeReadError(missing), "no such file");
    const directory = await rejection(host.readTextFile(ROOT + "tests"));
    assert.equal(directory.code, "EISDIR");
    assert.equal(describeReadError(directory), "is a directory, not a file");
    assert.equal((await rejection(host.writeTextFile("/no/such/dir/report.json", "{}"))).code, "ENOENT");
    assert.equal((await rejection(host.writeTextFile(ROOT + "tests", "{}"))).code, "EISDIR");
  });

  Deno.test(`${name} host: loadConfigFile reading through it reports what the default reader reports`, async () => {
    const read = (path: string) => host.readTextFile(path);
    for (const file of ["/no/such/stubs.yaml", ROOT + "tests", ROOT + "examples/stubs.yaml"]) {
      // Compiled query patterns hold closures: compare what they are made of.
      const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
      assert.deepEqual(plain(await loadConfigFile(file, read)), plain(await loadConfigFile(file)), file);
    }
  });

  Deno.test(`${name} host: text files round-trip as UTF-8; exists and isDirectory`, async () => {
    await using dir = await tempDir();
    const file = `${dir.path}/report.json`;
    assert.equal(host.exists(file), false);
    await host.writeTextFile(file, '{"name": "café ✓"}\n');
    await host.writeTextFile(file, '{"name": "naïve ✓"}\n'); // replaces, does not append
    assert.equal(await host.readTextFile(file), '{"name": "naïve ✓"}\n');
    assert.equal(host.exists(file), true);
    assert.equal(host.isDirectory(file), false);
    assert.equal(host.isDirectory(dir.path), true);
    assert.equal(host.exists(`${dir.path}/nope`), false);
    assert.equal(host.isDirectory(`${dir.path}/nope`), false);
  });

  Deno.test(`${name} host: resolve against the working directory, dirname`, () => {
    const cwd = Deno.cwd();
    assert.equal(host.resolve("out/report.json"), posix.join(cwd, "out/report.json"));
    assert.equal(host.resolve("./a/../b//c/"), posix.join(cwd, "b/c"));
    assert.equal(host.resolve(""), cwd);
    assert.equal(host.resolve("/x/../y"), "/y");
    assert.equal(host.dirname("/work/out/report.json"), "/work/out");
    assert.equal(host.dirname("/report.json"), "/");
    assert.equal(host.dirname("/"), "/");
  });

  Deno.test(`${name} host: args and env are the process's`, () => {
    assert.ok(Array.isArray(host.args));
    assert.equal(host.env().PATH, Deno.env.get("PATH"));
    assert.equal(host.env().STUBTOOL_NO_SUCH_VARIABLE, undefined);
  });

  Deno.test(`${name} host: a SIGTERM listener hears the signal; removing it stops listening`, async () => {
    let heard = 0;
    const listener = () => heard++;
    host.addSignalListener("SIGTERM", listener);
    try {
      Deno.kill(Deno.pid, "SIGTERM");
      for (let i = 0; i < 100 && heard === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(heard, 1);
    } finally {
      host.removeSignalListener("SIGTERM", listener);
    }
  });
}

Deno.test("resolvePath, dirnamePath: as node:path's posix and win32 resolve/dirname", () => {
  const posixCases = ["a", "a/b/../c", "./a/./b/", "../../x", "/abs/./p", "/", "", "..", "a//b"];
  for (const path of posixCases) {
    const resolved = resolvePath(path, "/work/app", false);
    assert.equal(resolved, posix.resolve("/work/app", path), path);
    assert.equal(dirnamePath(resolved, false), posix.dirname(resolved), path);
  }
  const windowsCases = [
    "a",
    "a/b\\..\\c",
    ".\\a\\",
    "..\\..\\..\\x",
    "\\top",
    "D:\\other\\f",
    "C:x",
    "\\\\srv\\share\\f",
  ];
  for (const path of windowsCases) {
    const resolved = resolvePath(path, "C:\\work\\app", true);
    assert.equal(resolved, win32.resolve("C:\\work\\app", path), path);
    assert.equal(dirnamePath(resolved, true), win32.dirname(resolved), path);
  }
  assert.equal(dirnamePath("\\\\srv\\share\\", true), win32.dirname("\\\\srv\\share\\"));
});

Deno.test("nodeStream: a write resolves once the stream confirms it; a destroyed stream loses text without throwing", async () => {
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
  const written = nodeStream(slow).write("line\n").then(() => resolved = true);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(seen, ["line\n"]);
  assert.equal(resolved, false, "not before the stream confirms");
  confirm();
  await written;
  const closed = new Writable({ write: (_chunk, _encoding, done) => done() });
  const stream = nodeStream(closed);
  closed.destroy(new Error("EPIPE"));
  await stream.write("lost\n");
});
