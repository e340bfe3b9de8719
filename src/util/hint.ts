/**
 * "Did you mean" hints for names a user misspelt (`staus` for `status`, `header` for
 * `headers`), shared by every level of a stub that lists its allowed keys.
 * @module
 */

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The closest known name, when one is close enough to be a likely typo.
 *
 * @example
 * ```ts
 * import { didYouMean } from "./hint.ts";
 * console.log(didYouMean("header", ["headers", "json"])); // "headers"
 * ```
 */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase().replaceAll("-", "_");
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * `unknown field 'staus' (did you mean 'status'?)`, or the list of allowed fields.
 *
 * @example
 * ```ts
 * import { unknownField } from "./hint.ts";
 * console.log(unknownField("field", "staus", ["status", "body"]));
 * // "unknown field 'staus' (did you mean 'status'?)"
 * ```
 */
export function unknownField(what: string, name: string, known: readonly string[]): string {
  const hint = didYouMean(name, known);
  return hint
    ? `unknown ${what} '${name}' (did you mean '${hint}'?)`
    : `unknown ${what} '${name}' (allowed: ${known.join(", ")})`;
}
