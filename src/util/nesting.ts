/**
 * How deeply a document stubtool reads may nest: a config file, a body sent to an admin API.
 * Every reader of a document walks it recursively (validator, converters, pattern compilers),
 * so a document nested thousands of levels deep ran them out of stack ("Maximum call stack
 * size exceeded", a 500) instead of being refused with its place. One rule, checked once where
 * a document is parsed, without recursion.
 * @module
 */

/** The deepest nesting of objects and arrays a document may have. */
export const MAX_NESTING = 128;

/** What a document nested past {@link MAX_NESTING} is told, after its place. */
export const NESTING_MESSAGE = `nests objects and arrays more than ${MAX_NESTING} levels deep, ` +
  "which stubtool does not read: flatten the document";

/** How many steps of a too-deep place are shown before `…`. */
const SHOWN_STEPS = 8;

/**
 * The place of the first value nested past `max` levels (`routes[0].body[0][0]…`, cut after
 * a few steps), or undefined when the document nests less. Linear in the document's size; a
 * cyclic value (YAML aliases) is too deep, never a loop.
 *
 * @example
 * ```ts
 * import { tooDeep } from "./nesting.ts";
 * console.log(tooDeep({ a: [1] })); // undefined
 * console.log(tooDeep({ a: JSON.parse("[".repeat(200) + "]".repeat(200)) })); // "a[0][0][0][0][0][0][0]…"
 * ```
 */
export function tooDeep(value: unknown, max: number = MAX_NESTING): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  // One frame per open container: its entries still to visit, and the step that led to it.
  const frames: { entries: [string, unknown][]; next: number; array: boolean; step: string }[] = [];
  const open = (container: object, step: string) =>
    frames.push({ entries: Object.entries(container), next: 0, array: Array.isArray(container), step });
  open(value, "");
  while (frames.length) {
    const frame = frames[frames.length - 1];
    if (frame.next === frame.entries.length) {
      frames.pop();
      continue;
    }
    const [key, child] = frame.entries[frame.next++];
    if (typeof child !== "object" || child === null) continue;
    const step = frame.array ? `[${key}]` : frames.length === 1 ? key : `.${key}`;
    if (frames.length >= max) {
      const steps = [...frames.slice(1).map((f) => f.step), step];
      return steps.slice(0, SHOWN_STEPS).join("") + (steps.length > SHOWN_STEPS ? "…" : "");
    }
    open(child, step);
  }
  return undefined;
}
