/**
 * JSON pointers (RFC 6901): writing one step at a time, and reading the value one points at.
 * @module
 */

/**
 * A key as a JSON pointer token: `~` → `~0`, `/` → `~1`.
 *
 * @example
 * ```ts
 * import { pointerToken } from "./json_pointer.ts";
 * pointerToken("/users/{id}"); // "~1users~1{id}"
 * ```
 */
export function pointerToken(key: string | number): string {
  return String(key).replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * `/items/0/sku`: one step of a JSON pointer, the token after a `/`.
 *
 * @example
 * ```ts
 * import { pointerStep } from "./json_pointer.ts";
 * pointerStep("items") + pointerStep(0); // "/items/0"
 * ```
 */
export function pointerStep(key: string | number): string {
  return "/" + pointerToken(key);
}

/**
 * The value `pointer` points at in `value` (`""` is the whole), or undefined when a step is
 * missing. Only own fields and items count: `/constructor` is never found.
 *
 * @example
 * ```ts
 * import { atPointer } from "./json_pointer.ts";
 * atPointer({ "a/b": [1, 2] }, "/a~1b/1"); // 2
 * ```
 */
export function atPointer(value: unknown, pointer: string): unknown {
  if (pointer === "") return value;
  let current = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
