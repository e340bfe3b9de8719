/**
 * Duplicate keys in JSON text. `JSON.parse` silently keeps the last of two equal keys in
 * one object, so a stub with `"path"` twice would lose one; the config loader reports them
 * instead. This is one linear pass over text that `JSON.parse` has already accepted: it
 * trusts the structure and only follows strings, nesting, and which strings are keys.
 * @module
 */

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COMMA = 0x2c; // ,
const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]

/**
 * The offset of the `"` that closes the JSON string opened at `start` (the text's length
 * when it is not closed).
 *
 * @example
 * ```ts
 * import { stringEnd } from "./duplicate_keys.ts";
 * console.log(stringEnd('"a\\"b" x', 0)); // 5
 * ```
 */
export function stringEnd(text: string, start: number): number {
  let end = start;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end === -1) return text.length; // unterminated (not JSON): the string runs to the end
    // A quote preceded by an odd number of backslashes is escaped and does not end the string.
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end;
  }
}

/** A key's decoded value; a bad escape (not JSON) leaves it as written. */
function decodeKey(quoted: string, raw: string): string {
  try {
    return JSON.parse(quoted);
  } catch {
    return raw;
  }
}

/**
 * The 0-based offsets of every key (its opening `"`) that repeats an earlier key of the
 * same object, in text order. Keys compare by their decoded value, so `"a\u0062"` repeats
 * `"ab"`. `text` should be valid JSON: otherwise the result is meaningless, but the scan
 * still ends and does not throw.
 *
 * @example
 * ```ts
 * import { duplicateKeyOffsets } from "./duplicate_keys.ts";
 * console.log(duplicateKeyOffsets('{"a": 1, "b": {"a": 2}, "a": 3}')); // [24]
 * ```
 */
export function duplicateKeyOffsets(text: string): number[] {
  const found: number[] = [];
  // The keys of each enclosing container: a set for an object, null for an array.
  const outer: (Set<string> | null)[] = [];
  let keys: Set<string> | null = null;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    switch (text.charCodeAt(i)) {
      case QUOTE: {
        const end = stringEnd(text, i);
        if (expectKey) {
          const raw = text.slice(i + 1, end);
          // Only a key with an escape needs decoding; most keys are plain text.
          const key: string = raw.includes("\\") ? decodeKey(text.slice(i, end + 1), raw) : raw;
          if (keys!.has(key)) found.push(i);
          else keys!.add(key);
          expectKey = false;
        }
        i = end;
        break;
      }
      case OPEN_OBJECT:
        outer.push(keys);
        keys = new Set();
        expectKey = true;
        break;
      case OPEN_ARRAY:
        outer.push(keys);
        keys = null;
        expectKey = false;
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        keys = outer.pop() ?? null;
        expectKey = false;
        break;
      case COMMA:
        expectKey = keys !== null;
        break;
    }
  }
  return found;
}

/**
 * Could `text` hold a duplicate key? `false` proves it does not, cheaply, so that
 * {@link duplicateKeyOffsets} (a character-by-character scan, ~10 ms for a 500 KB config)
 * runs only when it may find something. `value` is what `JSON.parse(text)` returned.
 *
 * Every key ends in `"` followed by `:`, once whitespace before colons is ruled out; text
 * inside strings can only add to that count. The parsed value holds each key once less for
 * every duplicate. So when the counts agree there is no duplicate.
 */
export function mayHaveDuplicateKeys(text: string, value: unknown): boolean {
  if (SPACE_BEFORE_COLON.test(text)) return true;
  let marks = 0;
  for (let at = text.indexOf('":'); at !== -1; at = text.indexOf('":', at + 2)) marks++;
  return marks !== countKeys(value);
}

/** `"` then whitespace then `:` anywhere (a key written `"a" : 1`, or text inside a string). */
const SPACE_BEFORE_COLON = /"[ \t\n\r]+:/;

/** The number of keys of every object in a parsed JSON value. */
function countKeys(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) count += countKeys(value[i]);
    return count;
  }
  for (const key in value) { // JSON.parse makes own, enumerable keys (even `__proto__`)
    if (Object.hasOwn(value, key)) count += 1 + countKeys((value as Record<string, unknown>)[key]);
  }
  return count;
}
