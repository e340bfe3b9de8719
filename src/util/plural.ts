/**
 * Counting words in messages and reports.
 * @module
 */

/**
 * `1 stub`, `3 stubs`: a count with its noun.
 *
 * @example
 * ```ts
 * import { plural } from "./plural.ts";
 * plural(2, "unused stub is", "unused stubs are"); // "2 unused stubs are"
 * ```
 */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
