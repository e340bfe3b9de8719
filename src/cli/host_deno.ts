/**
 * The CLI's host on Deno: `Deno.*` only. Not one `node:` import, because each Node built-in
 * Deno loads adds milliseconds to every `stubtool` start (the Node compatibility layer
 * initialises on first use), and `serve`'s startup time is part of what it promises.
 * @module
 */

import type { Host, HostStream } from "./host.ts";

/** Node-style codes for the errors `describeReadError` names, should a Deno error lack its `code`. */
const CODES: Record<string, string> = { NotFound: "ENOENT", PermissionDenied: "EACCES", IsADirectory: "EISDIR" };

/** Gives a file error the Node-style `code` the CLI's messages are keyed on. */
function withCode(error: unknown): unknown {
  const e = error as { name?: string; code?: string } | null;
  if (e && typeof e === "object" && e.code === undefined && e.name && CODES[e.name]) {
    Object.assign(e, { code: CODES[e.name] });
  }
  return error;
}

/** A Deno stdio resource as a {@link HostStream}: writes every byte, shrugs off a closed pipe. */
function denoStream(file: { write(bytes: Uint8Array): Promise<number> }): HostStream {
  const encoder = new TextEncoder();
  return {
    async write(text) {
      let bytes = encoder.encode(text);
      try {
        // write() may take only part of the bytes (a pipe that is nearly full).
        while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
      } catch {
        // The reader went away (`stubtool report | head -1`): nothing more can be shown.
      }
    },
  };
}

/** The root of an absolute Windows path: `C:\`, `\\server\share\`, or "" when there is none. */
function windowsRoot(path: string): string {
  const drive = /^[A-Za-z]:\\/.exec(path);
  if (drive) return drive[0];
  const unc = /^\\\\[^\\]+\\[^\\]+(\\|$)/.exec(path);
  return unc ? (unc[0].endsWith("\\") ? unc[0] : unc[0] + "\\") : "";
}

/** Drops `.` and empty segments and applies `..` (never above the root). */
function normalSegments(segments: string[]): string[] {
  const kept: string[] = [];
  for (const segment of segments) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") kept.pop();
    else kept.push(segment);
  }
  return kept;
}

/**
 * `path` made absolute against `cwd` and normalized, as `node:path` `resolve` does: on
 * Windows `/` counts as `\`, and `\x` is on the drive of `cwd`.
 *
 * @example
 * ```ts
 * import { resolvePath } from "./host_deno.ts";
 * console.log(resolvePath("../out/report.json", "/work/app", false)); // "/work/out/report.json"
 * console.log(resolvePath("out\\r.json", "C:\\work", true)); // "C:\\work\\out\\r.json"
 * ```
 */
export function resolvePath(path: string, cwd: string, windows: boolean): string {
  if (!windows) {
    const full = path.startsWith("/") ? path : `${cwd}/${path}`;
    return "/" + normalSegments(full.split("/")).join("/");
  }
  const target = path.replaceAll("/", "\\");
  const base = cwd.replaceAll("/", "\\");
  let full: string;
  if (windowsRoot(target)) full = target;
  else if (target.startsWith("\\")) full = windowsRoot(base) + target.slice(1);
  else if (/^[A-Za-z]:/.test(target)) {
    // `D:x` is relative to the working directory of drive D; only the current drive's is known.
    const sameDrive = target[0].toUpperCase() === base[0]?.toUpperCase();
    full = sameDrive ? `${base}\\${target.slice(2)}` : `${target.slice(0, 2)}\\${target.slice(2)}`;
  } else full = `${base}\\${target}`;
  const root = windowsRoot(full);
  return root + normalSegments(full.slice(root.length).split("\\")).join("\\");
}

/**
 * The directory part of an absolute, normalized path (what {@link resolvePath} returns);
 * the root's directory is the root.
 *
 * @example
 * ```ts
 * import { dirnamePath } from "./host_deno.ts";
 * console.log(dirnamePath("/work/out/report.json", false)); // "/work/out"
 * console.log(dirnamePath("C:\\report.json", true)); // "C:\\"
 * ```
 */
export function dirnamePath(path: string, windows: boolean): string {
  const root = windows ? windowsRoot(path) : "/";
  const cut = windows ? Math.max(path.lastIndexOf("\\"), path.lastIndexOf("/")) : path.lastIndexOf("/");
  return cut < root.length ? root : path.slice(0, cut);
}

const WINDOWS = Deno.build.os === "windows";

/**
 * The environment, each variable read when asked for (as Node's `process.env` is under
 * Deno): without `--allow-env`, `--version` still works and a command that needs a variable
 * fails with Deno's "Requires env access to ..." as one `[ERROR]` line.
 */
const ENV: Record<string, string | undefined> = new Proxy({}, {
  get: (_target, name) => typeof name === "string" ? Deno.env.get(name) : undefined,
});

/**
 * The host of `stubtool` under Deno.
 *
 * @example
 * ```ts
 * import { denoHost } from "./host_deno.ts";
 * console.log(denoHost.isDirectory(denoHost.dirname(denoHost.resolve("x")))); // true
 * ```
 */
export const denoHost: Host = {
  args: Deno.args,
  env: () => ENV,
  exit: (code) => Deno.exit(code),
  stdout: denoStream(Deno.stdout),
  stderr: denoStream(Deno.stderr),
  readTextFile: (path) => Deno.readTextFile(path).catch((error) => Promise.reject(withCode(error))),
  writeTextFile: (path, text) => Deno.writeTextFile(path, text).catch((error) => Promise.reject(withCode(error))),
  exists(path) {
    try {
      Deno.statSync(path);
      return true;
    } catch {
      return false;
    }
  },
  isDirectory(path) {
    try {
      return Deno.statSync(path).isDirectory;
    } catch {
      return false;
    }
  },
  resolve: (path) => resolvePath(path, Deno.cwd(), WINDOWS),
  dirname: (path) => dirnamePath(path, WINDOWS),
  addSignalListener: (signal, listener) => Deno.addSignalListener(signal, listener),
  removeSignalListener: (signal, listener) => Deno.removeSignalListener(signal, listener),
};
