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

/**
 * The type of `offered` (in the server's order of preference) an `Accept` header asks for:
 * its ranges by `q` (highest first, ties in the header's order; `q=0` refuses), `*\/*`,
 * `type/*` and exact types (parameters ignored). Undefined when none fits; a missing or empty
 * header takes the first.
 *
 * @example
 * ```ts
 * import { acceptedType } from "./media.ts";
 * acceptedType("text/*;q=0.5, application/xml", ["application/json", "application/xml", "text/plain"]); // "application/xml"
 * acceptedType("image/png", ["application/json"]); // undefined
 * ```
 */
export function acceptedType(accept: string | null, offered: readonly string[]): string | undefined {
  if (accept === null || accept.trim() === "") return offered[0];
  const ranges = accept.split(",").map((part, order) => {
    const [range, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const q = params.find((p) => /^q\s*=/.test(p));
    const weight = q === undefined ? 1 : Number(q.replace(/^q\s*=\s*/, ""));
    return { range, weight: Number.isFinite(weight) ? weight : 0, order };
  }).filter((r) => r.range !== "" && r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.order - b.order);
  for (const { range } of ranges) {
    const [type, subtype] = range.split("/");
    const found = offered.find((candidate) => {
      const [t, s] = candidate.split(";")[0].trim().toLowerCase().split("/");
      return (type === "*" && subtype === "*") || (type === t && (subtype === "*" || subtype === s));
    });
    if (found !== undefined) return found;
  }
  return undefined;
}
