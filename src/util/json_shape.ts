/**
 * Shape checks for parsed JSON and YAML documents: one home for the rule, so every reader
 * of a document asks the same question the same way.
 * @module
 */

/**
 * Is `value` a JSON object (a mapping): not `null`, not an array?
 *
 * @example
 * ```ts
 * import { isObject } from "./json_shape.ts";
 * console.log(isObject({ a: 1 }), isObject([1]), isObject(null)); // true false false
 * ```
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
