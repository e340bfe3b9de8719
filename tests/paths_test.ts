/**
 * The one rule of P23.6: is a path inside a root, symbolic links followed (src/util/paths.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isInside, resolveInside } from "../src/util/paths.ts";
import { tempDir } from "./_cli.ts";

Deno.test("isInside: the folder itself and paths below it; '..' and siblings that share a prefix are not", () => {
  assert.equal(isInside("/srv/files", "/srv/files"), true);
  assert.equal(isInside("/srv/files/a/b.json", "/srv/files"), true);
  assert.equal(isInside("/srv/files/..hidden", "/srv/files"), true, "a name that starts with '..' stays inside");
  assert.equal(isInside("/srv/files/../secret", "/srv/files"), false);
  assert.equal(isInside("/srv/files-other/a", "/srv/files"), false);
  assert.equal(isInside("/srv", "/srv/files"), false);
  assert.equal(isInside("/etc/passwd", "/srv/files"), false);
});

Deno.test("resolveInside: files inside (relative, absolute, links that stay) resolve to their real path; '..', absolute paths and links that leave are 'outside'", async () => {
  await using dir = await tempDir();
  const top = await Deno.realPath(dir.path);
  const root = join(top, "root");
  await Deno.mkdir(join(root, "sub"), { recursive: true });
  await Deno.writeTextFile(join(root, "sub", "a.json"), "{}");
  await Deno.writeTextFile(join(top, "secret.txt"), "secret");
  await Deno.symlink(join(root, "sub", "a.json"), join(root, "in.json"));
  await Deno.symlink(join(top, "secret.txt"), join(root, "out.txt"));
  await Deno.symlink(top, join(root, "up"));
  await Deno.symlink(join(top, "gone.txt"), join(root, "dangling.txt"));
  const a = join(root, "sub", "a.json");
  assert.deepEqual(resolveInside(root, "sub/a.json"), { path: a });
  assert.deepEqual(resolveInside(root, a), { path: a });
  assert.deepEqual(resolveInside(root, "in.json"), { path: a });
  assert.deepEqual(resolveInside(root, "sub/../sub/a.json"), { path: a });
  assert.deepEqual(resolveInside(root, "../secret.txt"), { problem: "outside" });
  assert.deepEqual(
    resolveInside(root, "../no-such.txt"),
    { problem: "outside" },
    "not told apart from one that exists",
  );
  assert.deepEqual(resolveInside(root, join(top, "secret.txt")), { problem: "outside" });
  assert.deepEqual(resolveInside(root, "/etc/passwd"), { problem: "outside" });
  assert.deepEqual(resolveInside(root, "out.txt"), { problem: "outside" });
  assert.deepEqual(resolveInside(root, "up/secret.txt"), { problem: "outside" });
  assert.deepEqual(resolveInside(root, "missing.json"), { problem: "missing" });
  assert.deepEqual(resolveInside(root, "dangling.txt"), { problem: "missing" });
  assert.deepEqual(resolveInside(root, "sub"), { problem: "not a file" });
  assert.deepEqual(resolveInside(join(top, "none"), "a.json"), { problem: "missing" });
});

Deno.test("resolveInside: a root reached through a symbolic link confines to its real folder", async () => {
  await using dir = await tempDir();
  const top = await Deno.realPath(dir.path);
  await Deno.mkdir(join(top, "real"));
  await Deno.writeTextFile(join(top, "real", "a.txt"), "a");
  await Deno.writeTextFile(join(top, "b.txt"), "b");
  await Deno.symlink(join(top, "real"), join(top, "link"));
  assert.deepEqual(resolveInside(join(top, "link"), "a.txt"), { path: join(top, "real", "a.txt") });
  assert.deepEqual(resolveInside(join(top, "link"), join(top, "real", "a.txt")), { path: join(top, "real", "a.txt") });
  assert.deepEqual(resolveInside(join(top, "link"), "../b.txt"), { problem: "outside" });
});
