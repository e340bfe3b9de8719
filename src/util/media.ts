/**
 * Media-type rules shared by every floor, one named function per meaning.
 * @module
 */

const JSON_MEDIA = /^[^;]*(\/json|\+json)\s*(;|$)/i;

/**
 * Is a body under this `content-type` JSON (`*\/json`, `*+json`, any parameters)? What the
 * server serializes a stub's `body` as, and what recording and the WireMock converter keep
 * as JSON.
 *
 * @example
 * ```ts
 * import { isJsonMediaType } from "./media.ts";
 * isJsonMediaType("application/problem+json; charset=utf-8"); // true
 * isJsonMediaType("text/plain"); // false
 * ```
 */
export function isJsonMediaType(contentType: string): boolean {
  return JSON_MEDIA.test(contentType);
}

const EXACT_JSON_MEDIA = /^[^/]+\/(?:[^/]+\+)?json$/;

/**
 * Does this media type name JSON as `type/subtype` exactly (`application/json`,
 * `application/problem+json`; parameters, case and spaces around ignored)? How an OpenAPI
 * `content` key is read: one slash, no wildcards beyond the type.
 *
 * @example
 * ```ts
 * import { isExactJsonMediaType } from "./media.ts";
 * isExactJsonMediaType("Application/JSON; charset=utf-8"); // true
 * isExactJsonMediaType("application/x/json"); // false
 * ```
 */
export function isExactJsonMediaType(type: string): boolean {
  return EXACT_JSON_MEDIA.test(type.split(";")[0].trim().toLowerCase());
}
