/**
 * Checks and compiles what a stub requires of a request beyond method and path (*): its `id`, `scope` and `priority`, its query parameters and its
 * `request:` conditions (headers, cookies, json, form, body_contains, body). Every capture name must be
 * used once across the path and all conditions.
 * @module
 */

import type { JsonIgnore, RequestMatch } from "./model.ts";
import type { Segment } from "./path.ts";
import { unknownField } from "./hint.ts";
import { compileJsonPattern, compileValuePattern, type ValuePattern } from "./patterns.ts";
import { evaluatePath } from "../templating/jsonpath.ts";

/** Longest scope name (the same bound as `x-stubtool-scope` values the recorder takes). */
export const MAX_SCOPE_LENGTH = 200;
/** A scope travels in a header: no control characters. */
// deno-lint-ignore no-control-regex -- control characters are exactly what must be caught
const CONTROL = /[\x00-\x1f\x7f]/;
/** What a stub id may hold. */
export const ID = /^[A-Za-z0-9_.:-]{1,100}$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The keys of `request:`. */
export const REQUEST_FIELDS = [
  "headers",
  "cookies",
  "json",
  "form",
  "body_contains",
  "body",
  "query_string",
  "path_regex",
  "url_regex",
  "json_equals",
  "json_ignore",
  "json_path",
] as const;
/** What `json_ignore` may list. */
export const JSON_IGNORES: readonly JsonIgnore[] = ["array_order", "extra_fields", "extra_items"];

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
  const patterns = (map: Readonly<Record<string, unknown>>, field: string, lower: boolean, single?: string) => {
    const out: [string, ValuePattern][] = [];
    for (const [key, spec] of Object.entries(map)) {
      const { pattern, problem } = compileValuePattern(spec);
      if (!pattern) {
        errors.push(`${field}.${key} ${problem}`);
        continue;
      }
      if (pattern.multi && single) {
        errors.push(`${field}.${key} cannot use has_exactly or includes: ${single}`);
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
    const { headers, cookies, json, form, body_contains: contains } = request;
    compileMore(request, match, written, claim, errors);
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
        match.headers = patterns(
          headers,
          "request.headers",
          true,
          "a header sent twice arrives as one joined value (a, b); use all, any or contains",
        );
        written.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
      }
    }
    if (cookies !== undefined) {
      if (!isMapping(cookies)) {
        errors.push(`request.cookies must be a mapping of cookie names to patterns, got ${shown(cookies)}`);
      } else {
        for (const name of Object.keys(cookies)) {
          if (!HEADER_NAME.test(name)) errors.push(`request.cookies: '${name}' is not a valid cookie name`);
        }
        match.cookies = patterns(
          cookies,
          "request.cookies",
          false,
          "a cookie condition tests each value of the cookie on its own",
        );
        written.cookies = cookies;
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
    if (request.body !== undefined) {
      const { pattern, problem } = compileValuePattern(request.body);
      if (!pattern) errors.push(`request.body ${problem}`);
      else if (pattern.names.length) {
        errors.push("request.body captures nothing: leave out {name} placeholders and named groups");
      } else if (pattern.multi) errors.push("request.body cannot use has_exactly or includes: a body is one value");
      else {
        match.body = pattern;
        written.body = request.body;
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
  if (
    !match.query && !match.headers && !match.cookies && !match.json && !match.form &&
    match.bodyContains === undefined && !match.body &&
    match.queryString === undefined && !match.pathRegex && !match.urlRegex && !match.jsonEquals && !match.jsonPath
  ) {
    return { match: {}, request: written };
  }
  return { match, request: written };
}

/** A JSON body as `json_equals` takes it: plain JSON values only. */
function plainJson(value: unknown, depth = 0): boolean {
  if (depth > 100) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => plainJson(v, depth + 1));
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).every((v) => plainJson(v, depth + 1));
  }
  return false;
}

/** `query_string`, `path_regex`, `url_regex`, `json_equals` (+ `json_ignore`) and `json_path`. */
function compileMore(
  request: Record<string, unknown>,
  match: RequestMatch,
  written: Record<string, unknown>,
  claim: (names: readonly string[], where: string) => void,
  errors: string[],
): void {
  const {
    query_string: queryString,
    path_regex: pathRegex,
    url_regex: urlRegex,
    json_equals: jsonEquals,
    json_ignore: jsonIgnore,
    json_path: jsonPath,
  } = request;
  if (queryString !== undefined) {
    if (typeof queryString !== "string" || queryString.startsWith("?") || /[\s#]/.test(queryString)) {
      errors.push(
        `request.query_string must be the query as sent, without '?' ("a=1&b=2"; "" for no query), got ${
          shown(queryString)
        }`,
      );
    } else {
      match.queryString = queryString;
      written.query_string = queryString;
    }
  }
  for (const [field, value] of [["path_regex", pathRegex], ["url_regex", urlRegex]] as const) {
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "") {
      errors.push(`request.${field} must be a regular expression (text), got ${shown(value)}`);
      continue;
    }
    const { pattern, problem } = compileValuePattern({ regex: value });
    if (!pattern) {
      errors.push(`request.${field} ${problem!.replace(/^regex /, "")}`);
      continue;
    }
    claim(pattern.names, `request.${field}`);
    if (field === "path_regex") match.pathRegex = pattern;
    else match.urlRegex = pattern;
    written[field] = value;
  }
  if (jsonEquals !== undefined) {
    if (!plainJson(jsonEquals)) {
      errors.push("request.json_equals must be a JSON value (at most 100 levels deep)");
    } else written.json_equals = jsonEquals;
  }
  let ignore: JsonIgnore[] = [];
  if (jsonIgnore !== undefined) {
    if (
      !Array.isArray(jsonIgnore) || jsonIgnore.some((v) => !(JSON_IGNORES as readonly unknown[]).includes(v))
    ) {
      errors.push(`request.json_ignore must be a list of ${JSON_IGNORES.join(", ")}, got ${shown(jsonIgnore)}`);
    } else if (jsonEquals === undefined) {
      errors.push("request.json_ignore relaxes request.json_equals; add json_equals or remove json_ignore");
    } else {
      ignore = [...new Set(jsonIgnore as JsonIgnore[])];
      written.json_ignore = jsonIgnore;
    }
  }
  if (written.json_equals !== undefined) match.jsonEquals = { value: jsonEquals, ignore };
  if (jsonPath !== undefined) {
    if (!isMapping(jsonPath) || Object.keys(jsonPath).length === 0) {
      errors.push(
        `request.json_path must be a mapping of JSONPath expressions to true (found, not null) or value patterns, got ${
          shown(jsonPath)
        }`,
      );
      return;
    }
    const list: [string, ValuePattern | "present"][] = [];
    for (const [path, spec] of Object.entries(jsonPath)) {
      const place = `request.json_path.${path}`;
      if (!path.startsWith("$")) {
        errors.push(`${place}: a JSONPath expression starts with $ ("$.user.id")`);
        continue;
      }
      try {
        evaluatePath({}, path);
        evaluatePath([{}], path);
      } catch (error) {
        errors.push(`${place} is not a JSONPath expression stubtool reads: ${(error as Error).message}`);
        continue;
      }
      if (spec === true) {
        list.push([path, "present"]);
        continue;
      }
      const { pattern, problem } = compileValuePattern(spec);
      if (!pattern) {
        errors.push(`${place} must be true (found, not null) or a value pattern: ${problem}`);
        continue;
      }
      if (pattern.names.length) {
        errors.push(`${place} captures nothing: leave out {name} placeholders and named groups`);
        continue;
      }
      if (pattern.multi) {
        errors.push(`${place} cannot use has_exactly or includes: any one of several results may match; use any`);
        continue;
      }
      list.push([path, pattern]);
    }
    match.jsonPath = list;
    written.json_path = jsonPath;
  }
}
