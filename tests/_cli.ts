/**
 * Runs the `stubtool` CLI as a subprocess for tests: `deno run -A cli.ts ...`, or the
 * compiled binary named by `STUBTOOL_BIN` when set (so the same tests check a release).
 * The child gets the test's environment minus every `STUBTOOL_*` variable, plus what the
 * test passes, so the developer's shell cannot change results.
 * @module
 */

import { fileURLToPath as fromFileUrl } from "node:url";

/** The repository root. */
export const ROOT = fromFileUrl(new URL("../", import.meta.url));
/** A fixture file's path. */
export const fixture = (name: string): string => fromFileUrl(new URL(`./fixtures/${name}`, import.meta.url));

/** What a finished CLI run produced. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit. */
  ms: number;
}

/** Options for a CLI run. */
export interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
  /**
   * Runs the CLI with a file size limit of one block (`ulimit -f 1`: 512 bytes, 1 KiB under
   * bash) and SIGXFSZ ignored, so writing a regular file past it fails with EFBIG, as on a
   * full disk. Standard output and error (pipes) are not limited.
   */
  limitFileSize?: boolean;
}

function command(args: string[], options: CliOptions): Deno.Command {
  const bin = Deno.env.get("STUBTOOL_BIN");
  const env = Deno.env.toObject();
  for (const name of Object.keys(env)) if (name.startsWith("STUBTOOL_")) delete env[name];
  Object.assign(env, { NO_COLOR: "1" }, options.env);
  let program = bin ?? Deno.execPath();
  let programArgs = bin ? args : ["run", "-A", "--quiet", `${ROOT}cli.ts`, ...args];
  if (options.limitFileSize) {
    programArgs = ["-c", `trap '' XFSZ; ulimit -f 1; exec "$@"`, "sh", program, ...programArgs];
    program = "/bin/sh";
  }
  return new Deno.Command(program, {
    args: programArgs,
    cwd: options.cwd ?? ROOT,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/** Starts the CLI with stdout and stderr piped and nothing reading them: the caller reads them, or not. */
export function spawnCli(args: string[], options: CliOptions = {}): Deno.ChildProcess {
  return command(args, options).spawn();
}

/** Runs the CLI to completion. */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const start = performance.now();
  const { code, stdout, stderr } = await command(args, options).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr), ms: performance.now() - start };
}

/** Splits output into lines, without the trailing empty one. */
export function lines(text: string): string[] {
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}

/** A CLI process that keeps running (serve, a slow wait): read its output as it comes, signal it, await it. */
export class CliProcess implements AsyncDisposable {
  readonly child: Deno.ChildProcess;
  readonly started = performance.now();
  stdout = "";
  stderr = "";
  #waiters: (() => void)[] = [];
  #status: Promise<Deno.CommandStatus>;
  #pumps: Promise<void>[];

  constructor(args: string[], options: CliOptions = {}) {
    this.child = command(args, options).spawn();
    this.#status = this.child.status;
    this.#pumps = [
      this.#pump(this.child.stdout, (text) => this.stdout += text),
      this.#pump(this.child.stderr, (text) => this.stderr += text),
    ];
  }

  async #pump(stream: ReadableStream<Uint8Array>, append: (text: string) => void): Promise<void> {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      append(text);
      for (const wake of this.#waiters.splice(0)) wake();
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves with the first match of `pattern` in stdout; rejects after `timeoutMs` or when the process ends first. */
  async waitForStdout(pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
    const deadline = performance.now() + timeoutMs;
    let ended = false;
    this.#status.then(() => ended = true);
    for (;;) {
      const match = this.stdout.match(pattern);
      if (match) return match;
      if (ended || performance.now() > deadline) {
        throw new Error(
          `no ${pattern} in stdout ${ended ? "before the process ended" : "in time"}.\n` +
            `stdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Sends a signal (if the process still runs). */
  kill(signal: Deno.Signal = "SIGTERM"): void {
    try {
      this.child.kill(signal);
    } catch {
      // already gone
    }
  }

  /** Waits for the process to end and returns what it printed. */
  async result(): Promise<CliResult> {
    const { code } = await this.#status;
    await Promise.all(this.#pumps);
    return { code, stdout: this.stdout, stderr: this.stderr, ms: performance.now() - this.started };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.kill("SIGKILL");
    await this.result();
  }
}

/** A running `stubtool serve` and the URL its banner printed. */
export interface Served {
  process: CliProcess;
  url: string;
  port: number;
}

/** The banner's first line, which carries the URL. */
export const BANNER = /^stubtool \S+ listening on (https?:\/\/(?:\[[^\]]+\]|[^\s:/]+):(\d+))(?: |$)/m;

/** Starts `stubtool serve ...args` and waits for its banner. Dispose the process when done. */
export async function startServe(args: string[], options: CliOptions = {}): Promise<Served> {
  const process = new CliProcess(["serve", ...args], options);
  try {
    const match = await process.waitForStdout(BANNER);
    // The banner's last line: everything before it has been printed.
    await process.waitForStdout(/^report: /m);
    return { process, url: match[1], port: Number(match[2]) };
  } catch (error) {
    await process[Symbol.asyncDispose]();
    throw error;
  }
}

/** A TCP port that was free a moment ago (bound, then released). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A fresh temporary directory, removed when disposed. */
export async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "stubtool-cli-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/**
 * The URL of every module a real `deno run cli.ts serve …` evaluated before it said it was
 * ready, read from the V8 coverage Deno writes for each module it ran (`DENO_COVERAGE_DIR`).
 */
export async function evaluatedBeforeReady(args: string[]): Promise<string[]> {
  await using dir = await tempDir();
  const coverage = `${dir.path}/coverage`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${ROOT}cli.ts`, "serve", "--port", "0", "--quiet", ...args],
    cwd: ROOT,
    env: { DENO_COVERAGE_DIR: coverage, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/listening on http/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve ended before it was ready: ${out}`);
    out += value;
  }
  child.kill("SIGTERM");
  await reader.cancel();
  await child.status;
  const urls: string[] = [];
  for await (const entry of Deno.readDir(coverage)) {
    urls.push(JSON.parse(await Deno.readTextFile(`${coverage}/${entry.name}`)).url);
  }
  return urls;
}

/** GETs a URL and returns status and body text (the body is always consumed). */
export async function get(url: string, init?: RequestInit): Promise<{ status: number; text: string }> {
  const response = await fetch(url, init);
  return { status: response.status, text: await response.text() };
}
