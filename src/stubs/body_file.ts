/**
 * The stub language's one file read: a response's `body_file`, read when the stub is
 * validated (fail at load time), relative to the config file's folder.
 * @module
 */

import { readFileSync } from "node:fs";
import { isAbsolute, resolve as resolvePath } from "node:path";
import { cwd } from "node:process";

/** Where `body_file` paths start and how the file is read. */
export interface BodyFileOptions {
  /** Where relative `body_file` paths start: the config file's folder (default: the working directory). */
  baseDir?: string;
  /** Reads a `body_file` (default `node:fs` `readFileSync`); tests pass their own. */
  readFile?: (path: string) => Uint8Array<ArrayBuffer>;
}

/** `path` against `base` (or the working directory) unless it is absolute. */
export function absolutePath(path: string, base: string | undefined): string {
  return isAbsolute(path) ? path : resolvePath(base ?? cwd(), path);
}

/**
 * Reads `file` (relative to `options.baseDir`): its bytes and absolute path, or a problem
 * (`<prefix>body_file "x" cannot be read: no such file (looked for /abs/x)`) pushed to `errors`.
 */
export function readBodyFile(
  file: string,
  prefix: string,
  errors: string[],
  options?: BodyFileOptions,
): { bytes: Uint8Array<ArrayBuffer>; filePath: string } | undefined {
  const read = options?.readFile ?? readFileBytes;
  const filePath = absolutePath(file, options?.baseDir);
  try {
    return { bytes: read(filePath), filePath };
  } catch (error) {
    errors.push(
      `${prefix}body_file ${JSON.stringify(file)} cannot be read: ${whyUnreadable(error)} (looked for ${filePath})`,
    );
    return undefined;
  }
}

/** Why a body file could not be read, in a few words. */
function whyUnreadable(error: unknown): string {
  const code = (error as { code?: string }).code;
  return code === "ENOENT"
    ? "no such file"
    : code === "EISDIR"
    ? "it is a directory"
    : code === "EACCES"
    ? "permission denied"
    : error instanceof Error
    ? error.message
    : String(error);
}

/** Reads a whole file (node:fs: the stub language runs on Deno and Node alike). */
function readFileBytes(path: string): Uint8Array<ArrayBuffer> {
  const buffer = readFileSync(path);
  return new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer);
}
