/**
 * Writing the files the CLI produces (`serve --report-file`, `report --output`) so that a
 * failure never leaves half a file: the text goes to a temporary file in the same
 * directory, is flushed to disk, and is renamed over the target in one step. A full disk,
 * a permission problem or a crash mid-write leaves the previous file as it was.
 * @module
 */

import { messageOf } from "../error_message.ts";
import { statSync } from "node:fs";
import { open, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/**
 * Checks, before any work, that `file` can be written to later: its directory exists.
 * Returns the absolute path, or what is wrong (`directory /x does not exist; create it first`).
 *
 * @example
 * ```ts
 * import { checkOutputPath } from "./files.ts";
 * console.log(checkOutputPath("/no/such/dir/report.json")); // { problem: "directory /no/such/dir does not exist; create it first" }
 * ```
 */
export function checkOutputPath(file: string): { path: string } | { problem: string } {
  if (file === "") return { problem: "must not be empty (the file to write)" };
  const path = resolve(file);
  const dir = dirname(path);
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    // missing or unreadable: the same answer
  }
  if (!isDirectory) return { problem: `directory ${dir} does not exist; create it first` };
  return { path };
}

/** Why a file could not be written, in a few words: `permission denied`, `no space left on the device`. */
export function describeWriteError(error: unknown): string {
  switch ((error as { code?: string })?.code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "it is a directory";
    case "ENOSPC":
      return "no space left on the device";
    case "EFBIG":
      return "file too large (a file size limit)";
    case "EROFS":
      return "read-only file system";
    case "ENOENT":
      return "its directory no longer exists";
    default:
      return messageOf(error).split("\n")[0];
  }
}

/**
 * Replaces `file` with `text` (a string is written as UTF-8) all at once: writes `.<name>.<random>.tmp` beside it,
 * syncs it, and renames it over `file` (through a symbolic link, the link's target is
 * replaced). An existing file's permission bits are kept. On failure the temporary file is
 * removed, the previous `file` is untouched, and the error (with its `code`, see
 * {@link describeWriteError}) is thrown.
 *
 * @example
 * ```ts
 * import { readFile } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { writeFileAtomic } from "./files.ts";
 * const file = join(tmpdir(), `stubtool-example-${Date.now()}.json`);
 * await writeFileAtomic(file, '{"ok": true}\n');
 * console.log(await readFile(file, "utf8")); // '{"ok": true}\n'
 * ```
 */
export async function writeFileAtomic(file: string, text: string | Uint8Array): Promise<void> {
  const target = await realpath(file).catch(() => resolve(file));
  const previous = await stat(target).catch(() => undefined);
  if (previous?.isDirectory()) throw Object.assign(new Error(`${target} is a directory`), { code: "EISDIR" });
  const temp = join(dirname(target), `.${basename(target).slice(0, 100)}.${crypto.randomUUID()}.tmp`);
  let created = false;
  try {
    const handle = await open(temp, "wx", previous ? previous.mode & 0o777 : 0o666);
    created = true;
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    if (created) await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}
