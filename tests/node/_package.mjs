// Builds the npm package (scripts/build_npm.ts), packs it, installs the tarball into a
// temporary project the way a user would (`npm install stubtool-X.Y.Z.tgz`) and loads it.
// Every test file of this suite shares one install per process.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The repository's own tools (deno, tsc), installed by `npm ci`. */
export const TOOLS = join(ROOT, "node_modules", ".bin");

/** Runs a command to completion; throws with its output when it fails. */
export function run(command, args, cwd, options = {}) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 180_000, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0 && !options.allowFailure) {
    throw new Error(`${command} ${args.join(" ")} exited with ${result.status}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

let installing;

/**
 * The installed package: `{ dir, tarball, packedFiles, manifest, api }`, where `dir` is the
 * consumer project and `api` the module `import "stubtool"` yields there.
 */
export function installedPackage() {
  return installing ??= install();
}

async function install() {
  const dir = mkdtempSync(join(tmpdir(), "stubtool-npm-"));
  if (!process.env.STUBTOOL_KEEP_TMP) process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

  run(join(TOOLS, "deno"), ["run", "-A", "scripts/build_npm.ts"], ROOT);
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", dir], join(ROOT, "npm")).stdout)[0];
  const tarball = join(dir, packed.filename);

  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "stubtool-consumer", private: true, type: "module" }),
  );
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], dir);

  const manifest = JSON.parse(readFileSync(join(dir, "node_modules", "stubtool", "package.json"), "utf8"));
  // Resolve "stubtool" from the consumer project, through the package's `exports`.
  const entry = createRequire(join(dir, "package.json")).resolve("stubtool");
  const api = await import(pathToFileURL(entry).href);
  return { dir, tarball, packedFiles: packed.files.map((f) => f.path), manifest, api };
}

/** Starts a command in the background; resolves with its exit code and output when it ends. */
export function start(command, args, cwd, options = {}) {
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], ...options });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => stdout += chunk);
  child.stderr.setEncoding("utf8").on("data", (chunk) => stderr += chunk);
  const exited = new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, exited, output: () => ({ stdout, stderr }) };
}
