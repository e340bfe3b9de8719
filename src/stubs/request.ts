/**
 * Checks and compiles what a stub requires of a request beyond method and path (P9.1,
 * P9.5, P10.1–P10.7): its `id`, `scope` and `priority`, its query parameters and its
 * `request:` conditions (headers, json, form, body_contains). Every capture name must be
 * used once across the path and all conditions.
 * @module
 */

import type { RequestMatch } from "./model.ts";
import type { Segment } from "./path.ts";
import { unknownField } from "./hint.ts";
import { compileJsonPattern, compileValuePattern, type ValuePattern } from "./patterns.ts";

/** Longest scope name (the same bound as `x-stubtool-scope` values the recorder takes). */
export const MAX_SCOPE_LENGTH = 200;
/** A scope travels in a header: no control characters. */
// deno-lint-ignore no-control-regex -- control characters are exactly what must be caught
const CONTROL = /[\x00-\x1f\x7f]/;
/** What a stub id may hold (P9.1). */
export const ID = /^[A-Za-z0-9_.:-]{1,100}$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The keys of `request:`. */
export const REQUEST_FIELDS = ["headers", "json", "form", "body_contains"] as const;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function shown(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** `id`: 1–100 characters of `A-Z a-z 0-9 _ . : -`; a problem, or undefined. */
export function checkId(value: unknown): string | undefined {
  if (typeof value === "string" && ID.test(value)) return undefined;
  return `id must be 1 to 100 characters of A-Z a-z 0-9 _ . : - (no spaces), got ${shown(value)}`;
}

/** `scope`: a name of 1–200 characters without control characters; a problem, or undefined. */
export function checkScope(value: unknown): string | undefined {
  if (
    typeof value === "string" && value.length >= 1 && value.length <= MAX_SCOPE_LENGTH && !CONTROL.test(value)
  ) {
    return undefined;
  }
  return `scope must be a name of 1 to ${MAX_SCOPE_LENGTH} characters (the x-stubtool-scope value of the requests it answers), got ${
    shown(value)
  }`;
}

/** `priority`: a whole number (higher wins, default 0); a problem, or undefined. */
export function checkPriority(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value)) return undefined;
  return `priority must be a whole number (higher wins over more specific paths; default 0), got ${shown(value)}`;
}

/** Compiled conditions and where each capture name was first taken (for duplicate names). */
export interface CompiledRequest {
  match: RequestMatch;
  /** `request:` as written, normalized (header names lower-cased), when there is one. */
  request?: Record<string, unknown>;
}

/**
 * Compiles a stub's query requirements and `request:` conditions. `query` is the merged
 * query map (from `?query` in the path and `query_params`). Problems are pushed as
 * messages relative to the stub (`request.headers.authorization must …`).
 */
export function compileRequest(
  segments: readonly Segment[],
  query: Readonly<Record<string, unknown>> | undefined,
  request: unknown,
  errors: string[],
): CompiledRequest | undefined {
  const match: RequestMatch = {};
  const owners = new Map<string, string>();
  for (const segment of segments) if (segment.param) owners.set(segment.name, "the path");
  const claim = (names: readonly string[], where: string) => {
    for (const name of names) {
      const owner = owners.get(name);
      if (owner !== undefined) {
        errors.push(`placeholder {${name}} is captured twice (${owner} and ${where}); give each capture its own name`);
      } else owners.set(name, where);
    }
  };
  const patterns = (map: Readonly<Record<string, unknown>>, field: string, lower: boolean) => {
    const out: [string, ValuePattern][] = [];
    for (const [key, spec] of Object.entries(map)) {
      const { pattern, problem } = compileValuePattern(spec);
      if (!pattern) {
        errors.push(`${field}.${key} ${problem}`);
        continue;
      }
      claim(pattern.names, `${field}.${key}`);
      out.push([lower ? key.toLowerCase() : key, pattern]);
    }
    return out;
  };

  if (query && Object.keys(query).length) match.query = patterns(query, "query_params", false);

  let written: Record<string, unknown> | undefined;
  if (request !== undefined) {
    if (!isMapping(request)) {
      errors.push(`request must be a mapping of conditions (${REQUEST_FIELDS.join(", ")}), got ${shown(request)}`);
      return undefined;
    }
    written = {};
    for (const key of Object.keys(request)) {
      if (!(REQUEST_FIELDS as readonly string[]).includes(key)) {
        errors.push(`request: ${unknownField("condition", key, REQUEST_FIELDS)}`);
      }
    }
    const { headers, json, form, body_contains: contains } = request;
    if (headers !== undefined) {
      if (!isMapping(headers)) {
        errors.push(`request.headers must be a mapping of header names to patterns, got ${shown(headers)}`);
      } else {
        const seen = new Map<string, string>();
        for (const name of Object.keys(headers)) {
          if (!HEADER_NAME.test(name)) errors.push(`request.headers: '${name}' is not a valid header name`);
          const lower = name.toLowerCase();
          if (seen.has(lower)) {
            errors.push(
              `request.headers.${name} repeats request.headers.${seen.get(lower)} (header names ignore case)`,
            );
          }
          seen.set(lower, name);
        }
        match.headers = patterns(headers, "request.headers", true);
        written.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
      }
    }
    if (json !== undefined) {
      const names: string[] = [];
      const problems: string[] = [];
      const pattern = compileJsonPattern(json, names, problems);
      for (const problem of problems) errors.push(`request.json ${problem}`);
      claim(names, "request.json");
      match.json = pattern;
      match.jsonNames = names;
      written.json = json;
    }
    if (form !== undefined) {
      if (!isMapping(form)) {
        errors.push(`request.form must be a mapping of field names to patterns, got ${shown(form)}`);
      } else {
        match.form = patterns(form, "request.form", false);
        written.form = form;
      }
    }
    if (contains !== undefined) {
      if (typeof contains !== "string" || contains === "") {
        errors.push(`request.body_contains must be non-empty text, got ${shown(contains)}`);
      } else {
        match.bodyContains = contains;
        written.body_contains = contains;
      }
    }
  }
  if (!match.query && !match.headers && !match.json && !match.form && match.bodyContains === undefined) {
    return { match: {}, request: written };
  }
  return { match, request: written };
}
