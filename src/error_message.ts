/**
 * What a thrown value says, for one-line error messages.
 * @module
 */

/**
 * The message of an `Error`, else the value as text; never throws, even for a value whose
 * conversion to text throws.
 *
 * @example
 * ```ts
 * import { messageOf } from "./error_message.ts";
 * console.log(messageOf(new TypeError("bad"))); // "bad"
 * console.log(messageOf(42)); // "42"
 * ```
 */
export function messageOf(error: unknown): string {
  try {
    return String(error instanceof Error ? error.message : error);
  } catch {
    return "a value that cannot be turned into text";
  }
}
