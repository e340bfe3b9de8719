// scripts/provision.mjs: what `npm test` uses for Chromium and wrk, and the one line it
// answers when it has none. (Installing through apt or npm is exercised by a run of
// `npm test` on a machine without them, not here: it changes the machine.)
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  aptCommand,
  CHROMIUM_HINT,
  ensureChromium,
  ensureRedis,
  ensureWrk,
  systemChromium,
  which,
} from "../scripts/provision.mjs";

/** A folder of executables named `names`, for a PATH of its own. */
async function bin(names: string[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "stubtool-provision-" });
  for (const name of names) {
    await Deno.writeTextFile(join(dir, name), "#!/bin/sh\nexit 0\n");
    await Deno.chmod(join(dir, name), 0o755);
  }
  return dir;
}

Deno.test("provision: CHROMIUM_PATH wins over every browser on PATH", async () => {
  const dir = await bin(["chromium", "mine"]);
  try {
    const got = ensureChromium({ env: { CHROMIUM_PATH: join(dir, "mine"), PATH: dir }, log: () => {} });
    assert.deepEqual(got, { path: join(dir, "mine") });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("provision: a CHROMIUM_PATH that names no executable is one line saying what to do", () => {
  const got = ensureChromium({ env: { CHROMIUM_PATH: "/nonexistent/chrome", PATH: "" }, log: () => {} });
  assert.deepEqual(got, { error: `CHROMIUM_PATH=/nonexistent/chrome is not an executable file: ${CHROMIUM_HINT}` });
});

Deno.test("provision: the system browser is found by name on PATH, chromium first", async () => {
  const dir = await bin(["google-chrome", "chromium-browser"]);
  try {
    assert.equal(systemChromium({ PATH: dir }), join(dir, "chromium-browser"));
    assert.equal(which("google-chrome", `/nonexistent:${dir}`), join(dir, "google-chrome"));
    assert.equal(which("chromium", dir), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("provision: wrk on PATH is used as it is", async () => {
  const dir = await bin(["wrk"]);
  try {
    assert.deepEqual(ensureWrk({ env: { PATH: dir }, log: () => {} }), { path: join(dir, "wrk") });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("provision: packages come from apt-get when running as root on Linux; elsewhere (not CI) nothing is installed", async () => {
  // Only which command would run is checked: running it would change this machine.
  const dir = await bin(["apt-get"]);
  try {
    assert.deepEqual(aptCommand({ PATH: dir }), Deno.uid() === 0 ? ["apt-get"] : undefined);
    assert.equal(aptCommand({ PATH: "/nonexistent" }), undefined, "no apt-get, no installing");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("provision: without wrk and without a way to install it, one line says what to install", () => {
  assert.deepEqual(ensureWrk({ env: { PATH: "/nonexistent" }, log: () => {} }), {
    error:
      "wrk not found (needed by the bench smoke): install wrk (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk)",
  });
});

Deno.test("provision: redis-server on PATH is used as it is", async () => {
  const dir = await bin(["redis-server"]);
  try {
    assert.deepEqual(ensureRedis({ env: { PATH: dir }, log: () => {} }), { path: join(dir, "redis-server") });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("provision: without redis-server and without a way to install it, one line says what to install", () => {
  assert.deepEqual(ensureRedis({ env: { PATH: "/nonexistent" }, log: () => {} }), {
    error: "redis-server not found (needed by tests/state_test.ts): install Redis 7 (Debian/Ubuntu: apt-get install " +
      "redis-server; macOS: brew install redis) or Valkey's redis-server",
  });
});
