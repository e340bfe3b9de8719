/**
 * What the CLI needs from the process it runs in: arguments, environment, exit, stdout and
 * stderr, text files, paths and signals. Two hosts implement it: src/cli/host_deno.ts
 * with `Deno.*` only, because every Node built-in Deno loads costs startup time, and
 * src/cli/host_node.ts with `node:*` for the npm bin. {@link loadHost} picks one.
 * @module
 */

import type { Env } from "./context.ts";

/** A signal `serve` stops on. */
export type StopSignal = "SIGINT" | "SIGTERM";

/** stdout or stderr, as the CLI writes to it. */
export interface HostStream {
  /**
   * Writes `text` and resolves once the OS has taken all of it. Never rejects: text for a
   * closed pipe (`stubtool report | head -1`) is lost, and the process carries on.
   */
  write(text: string): Promise<void>;
}

/** The process the CLI runs in. */
export interface Host {
  /** The command-line arguments after the program (and script) name. */
  readonly args: readonly string[];
  /** The environment variables. */
  env(): Env;
  /** Ends the process with `code`. */
  exit(code: number): never;
  /** Standard output. */
  readonly stdout: HostStream;
  /** Standard error. */
  readonly stderr: HostStream;
  /**
   * Reads a UTF-8 text file. Rejects with an error whose `code` is the Node-style name of
   * the OS error where there is one (`ENOENT`, `EACCES`, `EISDIR`): see `describeReadError`.
   */
  readTextFile(path: string): Promise<string>;
  /** Writes a UTF-8 text file, replacing it; rejects like {@link Host.readTextFile}. */
  writeTextFile(path: string, text: string): Promise<void>;
  /** Does anything exist at `path`? */
  exists(path: string): boolean;
  /** Is `path` a directory (following symbolic links)? */
  isDirectory(path: string): boolean;
  /** `path` made absolute against the working directory, normalized. */
  resolve(path: string): string;
  /** The directory part of an absolute `path` (the root stays the root). */
  dirname(path: string): string;
  /** Calls `listener` on each `signal`; throws when the platform cannot deliver it (SIGTERM on Windows). */
  addSignalListener(signal: StopSignal, listener: () => void): void;
  /** Undoes {@link Host.addSignalListener}. */
  removeSignalListener(signal: StopSignal, listener: () => void): void;
}

/**
 * The host of the running runtime: Deno's when `Deno` is a global, else Node's. Loaded
 * with a dynamic import so a process loads only its own.
 *
 * @example
 * ```ts
 * import { loadHost } from "./host.ts";
 * const host = await loadHost();
 * console.log(host.resolve(".") !== ""); // true
 * ```
 */
export function loadHost(): Promise<Host> {
  return "Deno" in globalThis
    ? import("./host_deno.ts").then((m) => m.denoHost)
    : import("./host_node.ts").then((m) => m.nodeHost);
}
