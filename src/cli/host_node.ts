/**
 * The CLI's host on Node (the npm bin, and any runtime without a `Deno` global): `node:*`
 * built-ins only, no `Deno.*`.
 * @module
 */

import { existsSync, statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import process from "node:process";
import type { Writable } from "node:stream";
import type { Host, HostStream } from "./host.ts";

/**
 * A writable stream as a {@link HostStream}: each write resolves when the stream's callback
 * says the data went out (after the stream's own buffering, so a stdout nobody reads
 * keeps the write pending and the CLI's log batching holds back).
 *
 * @example
 * ```ts
 * import { Writable } from "node:stream";
 * import { nodeStream } from "./host_node.ts";
 * const seen: string[] = [];
 * const sink = new Writable({ write: (chunk, _encoding, done) => (seen.push(String(chunk)), done()) });
 * await nodeStream(sink).write("hello\n");
 * console.log(seen); // ["hello\n"]
 * ```
 */
export function nodeStream(stream: Writable): HostStream {
  // A closed pipe (`stubtool report | head -1`) must not crash the process.
  stream.on("error", () => {});
  return {
    write: (text) =>
      new Promise<void>((resolve) => {
        try {
          // After an error the callback still comes, with the error: the text is lost either way.
          stream.write(text, () => resolve());
        } catch {
          resolve();
        }
      }),
  };
}

/**
 * The host of `stubtool` under Node.
 *
 * @example
 * ```ts
 * import { nodeHost } from "./host_node.ts";
 * console.log(nodeHost.isDirectory(nodeHost.dirname(nodeHost.resolve("x")))); // true
 * ```
 */
export const nodeHost: Host = {
  args: process.argv.slice(2),
  env: () => process.env,
  exit: (code) => process.exit(code),
  stdout: nodeStream(process.stdout),
  stderr: nodeStream(process.stderr),
  readTextFile: (path) => readFile(path, "utf8"),
  writeTextFile: (path, text) => writeFile(path, text),
  exists: (path) => existsSync(path),
  isDirectory(path) {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  },
  resolve: (path) => resolve(path),
  dirname: (path) => dirname(path),
  addSignalListener: (signal, listener) => void process.on(signal, listener),
  removeSignalListener: (signal, listener) => void process.off(signal, listener),
};
