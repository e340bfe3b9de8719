/**
 * Quoting request values inside near-miss reasons (`query parameter 'sort' is 'desc', stub
 * wants 'asc'`): short, one line, unambiguous.
 * @module
 */

/** Longest value a near-miss reason quotes; longer ones are cut (the report keeps up to 1,000 reasons ×3). */
export const QUOTE_MAX = 40;

/**
 * `'asc'` for a near-miss reason: cut at {@link QUOTE_MAX} characters, JSON-escaped if it
 * holds a quote or control character.
 *
 * @example
 * ```ts
 * import { quoteValue } from "./quote.ts";
 * console.log(quoteValue("asc"), quoteValue("a'b")); // 'asc' "a'b"
 * ```
 */
export function quoteValue(value: string): string {
  const cut = value.length > QUOTE_MAX ? `${value.slice(0, QUOTE_MAX - 1)}…` : value;
  // deno-lint-ignore no-control-regex -- control characters must not reach a one-line report
  return /['\x00-\x1f\x7f]/.test(cut) ? JSON.stringify(cut) : `'${cut}'`;
}
