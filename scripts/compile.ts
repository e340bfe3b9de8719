/**
 * Builds the standalone `stubtool` executables with `deno compile` into `dist/`, one per
 * target, and writes `dist/SHA256SUMS` (`sha256sum -c` format).
 *
 * Usage: `npm run compile` (= `deno run -A scripts/compile.ts`), or
 * `deno run -A scripts/compile.ts [--target TRIPLE]... [--out DIR] [--timeout SECONDS]`.
 *
 * `deno compile` downloads a runtime stub (denort) per target from dl.deno.land. Where that
 * host is unreachable, set `DENORT_BIN` (Deno's own variable) to a local denort of the same
 * Deno version; it fits one target, so it builds the host target unless `--target` names
 * another. Without either, the script fails with one line saying so.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** The targets a release ships. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENTRY = "cli.ts";
/**
 * What the CLI needs and no more: listen and connect (`serve`, `wait`, `report`), read
 * config files, write `--report-file`, read `STUBTOOL_*`, and call glibc's `malloc_trim`
 * after an idle collection (FFI; the only library it opens is `libc.so.6`).
 * tests/compile_test.ts runs the CLI under exactly these flags, so a command that needs
 * another permission fails there first.
 */
export const PERMISSIONS = ["--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-ffi"];
/**
 * V8 flags the binary runs with (npm start and the attack bench use them too): a young
 * generation of 4 MB semi-spaces instead of V8's default 16 MB, and an old generation that
 * grows by half instead of up to four times. Floods of 60 KiB requests otherwise grow both
 * far past what is live (the 64 MB ceiling); S1 throughput does not change measurably.
 */
export const V8_FLAGS = ["--v8-flags=--max-semi-space-size=4,--heap-growing-percent=50"];
/**
 * Files the binary needs beyond the module graph. None today: the adapters are imported
 * with literal specifiers, which deno compile follows, and `yaml` comes from node_modules.
 */
const INCLUDE: string[] = [];

/**
 * With `"nodeModulesDir": "manual"` deno compile embeds all of node_modules, Deno's own
 * binary and TypeScript included (~200 MB). Everything but the runtime `dependencies` of
 * package.json (and theirs) is excluded.
 */
export function nodeModulesExcludes(root: string): string[] {
  const modules = join(root, "node_modules");
  if (!existsSync(modules)) return [];
  const keep = new Set<string>();
  const visit = (name: string) => {
    if (keep.has(name)) return;
    keep.add(name);
    const manifest = join(modules, name, "package.json");
    if (!existsSync(manifest)) return;
    const { dependencies = {}, optionalDependencies = {} } = JSON.parse(readFileSync(manifest, "utf8"));
    for (const dep of Object.keys({ ...dependencies, ...optionalDependencies })) visit(dep);
  };
  const devManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  for (const dep of Object.keys(devManifest.dependencies ?? {})) visit(dep);
  const entries = readdirSync(modules).flatMap((name) =>
    name.startsWith("@") ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`) : [name]
  );
  return entries.filter((name) => !keep.has(name)).map((name) => `node_modules/${name}`);
}

/** The executable's file name for a target: `stubtool-<target>`, `.exe` on Windows. */
export function binaryName(target: string): string {
  return `stubtool-${target}${target.includes("windows") ? ".exe" : ""}`;
}

/**
 * When deno compile's error output says the runtime stub could not be fetched, the one line
 * to print instead: what is missing, why, and how to fix it. Otherwise undefined.
 */
export function denortProblem(stderr: string, target: string, denoVersion: string): string | undefined {
  if (!/Setting up base binary|denort/i.test(stderr)) return undefined;
  const url = stderr.match(/https?:\/\/\S+denort\S+?\.zip/)?.[0] ?? `denort-${target}.zip of Deno ${denoVersion}`;
  const chain = stderr.split(/Caused by:/)[1]?.split(/Stack backtrace:/)[0] ?? "";
  const causes = [...chain.matchAll(/^\s*\d+: (.+)$/gm)].map((m) => m[1].trim());
  const reason = causes.at(-1) ?? stderr.trim().split("\n").at(-1) ?? "unknown error";
  return `[compile] error: cannot obtain the Deno runtime stub (denort) for ${target}: downloading ${url} failed ` +
    `(${reason}). Fix: run where dl.deno.land is reachable, or unzip that file and set DENORT_BIN=/path/to/denort ` +
    `(Deno ${denoVersion}, built for ${target}) with --target ${target}.`;
}

async function sha256(path: string): Promise<string> {
  return createHash("sha256").update(await Deno.readFile(path)).digest("hex");
}

function fail(line: string): never {
  console.error(line);
  process.exit(1);
}

async function compile(target: string, output: string, timeoutS: number): Promise<void> {
  const args = [
    "compile",
    ...PERMISSIONS,
    ...V8_FLAGS,
    ...INCLUDE.flatMap((file) => ["--include", file]),
    ...nodeModulesExcludes(ROOT).flatMap((path) => ["--exclude", path]),
    "--target",
    target,
    "--output",
    output,
    ENTRY,
  ];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "inherit",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutS * 1000),
  }).spawn();
  const { code, stderr, signal } = await child.output();
  const text = new TextDecoder().decode(stderr);
  if (code === 0) return;
  if (signal) {
    fail(
      `[compile] error: deno compile for ${target} did not finish within ${timeoutS} s (a stalled download of ` +
        `the runtime stub?). Fix: set DENORT_BIN to a local denort for ${target}, or raise --timeout.`,
    );
  }
  const problem = denortProblem(text, target, Deno.version.deno);
  if (problem) fail(problem);
  console.error(text.trimEnd());
  fail(`[compile] error: deno compile for ${target} exited with ${code} (see above)`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      target: { type: "string", multiple: true },
      out: { type: "string", default: "dist" },
      timeout: { type: "string", default: "600" },
    },
  });
  // An empty DENORT_BIN (e.g. an unset Docker build ARG) means "not set"; deno would try to open "".
  if (Deno.env.get("DENORT_BIN") === "") Deno.env.delete("DENORT_BIN");
  const denortBin = Deno.env.get("DENORT_BIN");
  const requested = values.target ?? (denortBin ? [Deno.build.target] : [...TARGETS]);
  for (const target of requested) {
    if (!(TARGETS as readonly string[]).includes(target)) {
      fail(`[compile] error: unknown target '${target}' (known: ${TARGETS.join(", ")})`);
    }
  }
  if (denortBin && requested.length > 1) {
    fail(
      `[compile] error: DENORT_BIN names one runtime stub, which fits one target: pass the one it was built ` +
        `for with --target (one of ${TARGETS.join(", ")})`,
    );
  }
  if (denortBin && !existsSync(denortBin)) fail(`[compile] error: DENORT_BIN=${denortBin} does not exist`);
  const timeoutS = Number(values.timeout);
  if (!(timeoutS > 0)) fail(`[compile] error: --timeout must be a positive number of seconds`);

  const version = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")).version;
  const outDir = resolve(ROOT, values.out);
  mkdirSync(outDir, { recursive: true });
  const sums: string[] = [];
  for (const target of requested) {
    const output = join(outDir, binaryName(target));
    console.log(`[compile] stubtool ${version} for ${target}${denortBin ? ` (DENORT_BIN=${denortBin})` : ""}`);
    await compile(target, output, timeoutS);
    sums.push(`${await sha256(output)}  ${basename(output)}`);
  }
  writeFileSync(join(outDir, "SHA256SUMS"), sums.join("\n") + "\n");
  console.log(`[compile] ${sums.length} executable(s) and SHA256SUMS in ${outDir}`);
}

if (import.meta.main) await main();
