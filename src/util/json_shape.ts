/**
 * JSON shape checks shared by every floor: one rule for "is this a JSON object".
 * @module
 */

/**
 * Is `value` a JSON object (a YAML mapping): not null, not an array?
 *
 * @example
 * ```ts
 * import { isObject } from "./json_shape.ts";
 * isObject({ a: 1 }); // true
 * isObject([1]); // false
 * ```
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
