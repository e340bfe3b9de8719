/**
 * Seeded pseudo-random numbers (mulberry32): the same seed gives the same sequence on every
 * runtime, so `serve --openapi SPEC --mock --dynamic --seed N` is reproducible. Not for secrets.
 * @module
 */

/**
 * A generator of numbers in [0, 1) from a 32-bit `seed`.
 *
 * @example
 * ```ts
 * import { seededRandom } from "./random.ts";
 * const a = seededRandom(42), b = seededRandom(42);
 * console.log(a() === b()); // true
 * ```
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
