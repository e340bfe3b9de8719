// src/cli/files.ts: the report files the CLI writes are replaced whole. The failure
// path (a write that fails half-way) runs through the real CLI in cli_serve_test.ts and
// cli_report_test.ts, under a file size limit.
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkOutputPath, describeWriteError, writeFileAtomic } from "../src/cli/files.ts";
import { tempDir } from "./_cli.ts";

Deno.test("writeFileAtomic: creates, then replaces whole, keeping the permission bits; no temporary file stays", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "report.json");
  await writeFileAtomic(file, "first\n");
  assert.equal(await Deno.readTextFile(file), "first\n");
  await Deno.chmod(file, 0o600);
  await writeFileAtomic(file, "second ✓\n");
  assert.equal(await Deno.readTextFile(file), "second ✓\n");
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(dir.path), (e) => e.name), ["report.json"]);
});

Deno.test("writeFileAtomic: through a symbolic link it replaces the link's target and keeps the link", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "real"));
  const target = join(dir.path, "real", "report.json");
  await Deno.writeTextFile(target, "old");
  const link = join(dir.path, "report.json");
  await Deno.symlink(target, link);
  await writeFileAtomic(link, "new");
  assert.equal((await Deno.lstat(link)).isSymlink, true);
  assert.equal(await Deno.readTextFile(target), "new");
  assert.deepEqual(await Array.fromAsync(Deno.readDir(join(dir.path, "real")), (e) => e.name), ["report.json"]);
});

Deno.test("writeFileAtomic: a directory at the path is refused with EISDIR and left alone", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "inside.txt"), "kept");
  const error = await writeFileAtomic(dir.path, "text").then(() => undefined, (e) => e);
  assert.equal(error?.code, "EISDIR");
  assert.equal(describeWriteError(error), "it is a directory");
  assert.equal(await Deno.readTextFile(join(dir.path, "inside.txt")), "kept");
});

Deno.test("checkOutputPath: the absolute path when the directory exists, else what to do", async () => {
  await using dir = await tempDir();
  assert.deepEqual(checkOutputPath(join(dir.path, "r.json")), { path: join(dir.path, "r.json") });
  assert.deepEqual(checkOutputPath("/no/such/dir/r.json"), {
    problem: "directory /no/such/dir does not exist; create it first",
  });
  assert.deepEqual(checkOutputPath(""), { problem: "must not be empty (the file to write)" });
});

Deno.test("describeWriteError: a few words for the errors a write meets", () => {
  const cases: [string, string][] = [
    ["EACCES", "permission denied"],
    ["EPERM", "permission denied"],
    ["EISDIR", "it is a directory"],
    ["ENOSPC", "no space left on the device"],
    ["EFBIG", "file too large (a file size limit)"],
    ["EROFS", "read-only file system"],
  ];
  for (const [code, words] of cases) assert.equal(describeWriteError(Object.assign(new Error("x"), { code })), words);
  assert.equal(describeWriteError(new Error("something else\nsecond line")), "something else");
});
