/**
 * Checks and compiles what a stub requires of a request beyond method and path: its `id`,
 * `scope` and `priority`, its query parameters and its `request:` conditions (headers,
 * cookies, json, form, body_contains, body). Every capture name must be used once across the path
 * and all conditions.
 * @module
 */

import type { JsonIgnore, JsonPathEquals, MultipartMatch, RequestMatch } from "./model.ts";
import type { Segment } from "./path.ts";
import { unknownField } from "../util/hint.ts";
import { compileJsonPattern, compileJsonPlaceholders, compileValuePattern, type ValuePattern } from "./patterns.ts";
import { evaluatePath } from "../templating/jsonpath.ts";
import { isObject } from "../util/json_shape.ts";
import { STUB_ID } from "../util/ids.ts";
import { MAX_SCOPE_LENGTH } from "../util/scope_name.ts";
import { compileXmlConditions } from "./request_xml.ts";
import { decodeBase64 } from "../util/base64.ts";

export { MAX_SCOPE_LENGTH };

/** A scope travels in a header: no control characters. */
// deno-lint-ignore no-control-regex -- control characters are exactly what must be caught
const CONTROL = /[\x00-\x1f\x7f]/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The keys of `request:`. */
export const REQUEST_FIELDS = [
  "headers",
  "cookies",
  "json",
  "form",
  "body_contains",
  "body",
  "body_base64",
  "query_string",
  "path_regex",
  "url_regex",
  "json_equals",
  "json_ignore",
  "json_placeholders",
  "json_path",
  "path_params",
  "xml_equals",
  "xml_placeholders",
  "xml_ignore",
  "xpath",
  "xpath_namespaces",
  "multipart",
] as const;
/** The keys of a `request.multipart` entry: how many parts must meet it, and a part's own conditions. */
export const MULTIPART_FIELDS = [
  "match",
  "headers",
  "body",
  "body_contains",
  "json",
  "json_equals",
  "json_ignore",
  "json_placeholders",
  "json_path",
] as const;
/** What `json_ignore` may list. */
export const JSON_IGNORES: readonly JsonIgnore[] = ["array_order", "extra_fields", "extra_items"];

function shown(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** `id`: 1–100 characters of `A-Z a-z 0-9 _ . : -`; a problem, or undefined. */
export function checkId(value: unknown): string | undefined {
  if (typeof value === "string" && STUB_ID.test(value)) return undefined;
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

/** What the compiler of each condition shares: the outputs, the problems, and the capture names taken so far. */
interface Compiling {
  match: RequestMatch;
  /** `request:` as written, normalized. */
  written: Record<string, unknown>;
  errors: string[];
  /** Takes capture names for `where`; a name taken before is a problem. */
  claim: (names: readonly string[], where: string) => void;
  /** Compiles a mapping of names to value patterns (`single`: why a multi-value pattern is refused there). */
  patterns: (
    map: Readonly<Record<string, unknown>>,
    field: string,
    lower: boolean,
    single?: string,
  ) => [string, ValuePattern][];
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
  const claim = captureClaimer(segments, errors);
  const patterns = patternCompiler(claim, errors);
  if (query && Object.keys(query).length) match.query = patterns(query, "query_params", false);

  let written: Record<string, unknown> | undefined;
  if (request !== undefined) {
    if (!isObject(request)) {
      errors.push(`request must be a mapping of conditions (${REQUEST_FIELDS.join(", ")}), got ${shown(request)}`);
      return undefined;
    }
    written = {};
    for (const key of Object.keys(request)) {
      if (!(REQUEST_FIELDS as readonly string[]).includes(key)) {
        errors.push(`request: ${unknownField("condition", key, REQUEST_FIELDS)}`);
      }
    }
    // One order, so captures are claimed (and a name taken twice reported) the same way each time.
    const c: Compiling = { match, written, errors, claim, patterns };
    compileQueryString(request.query_string, c);
    compilePathParams(request.path_params, segments, c);
    compileRegexes(request.path_regex, request.url_regex, c);
    compileJsonEquals(request.json_equals, request.json_ignore, request.json_placeholders, c);
    compileJsonPath(request.json_path, c);
    compileHeaders(request.headers, c);
    compileCookies(request.cookies, c);
    compileJson(request.json, c);
    compileForm(request.form, c);
    compileBodyContains(request.body_contains, c);
    compileBody(request.body, c);
    compileBodyBase64(request.body_base64, c);
    compileXmlConditions(request, match, written, errors);
    compileMultipart(request.multipart, c);
  }
  return { match: hasConditions(match) ? match : {}, request: written };
}

/** Does a compiled match hold any condition? */
function hasConditions(match: RequestMatch): boolean {
  return !!(match.query || match.headers || match.cookies || match.json || match.form ||
    match.bodyContains !== undefined || match.body || match.bodyBytes || match.queryString !== undefined ||
    match.pathRegex ||
    match.urlRegex ||
    match.jsonEquals || match.jsonPath || match.pathParams || match.xmlEquals || match.xpath || match.multipart);
}

/** The claim of {@link Compiling}: the path's placeholders are taken first. */
function captureClaimer(segments: readonly Segment[], errors: string[]): Compiling["claim"] {
  const owners = new Map<string, string>();
  for (const segment of segments) if (segment.param) owners.set(segment.name, "the path");
  return (names, where) => {
    for (const name of names) {
      const owner = owners.get(name);
      if (owner !== undefined) {
        errors.push(`placeholder {${name}} is captured twice (${owner} and ${where}); give each capture its own name`);
      } else owners.set(name, where);
    }
  };
}

/** The patterns of {@link Compiling}: each value compiled, its captures claimed, bad ones reported and left out. */
function patternCompiler(claim: Compiling["claim"], errors: string[]): Compiling["patterns"] {
  return (map, field, lower, single) => {
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
}

/** `request.headers`: valid names, each once whatever its case; written with lower-case names. */
function compileHeaders(headers: unknown, { match, written, errors, patterns }: Compiling): void {
  if (headers === undefined) return;
  if (!isObject(headers)) {
    errors.push(`request.headers must be a mapping of header names to patterns, got ${shown(headers)}`);
    return;
  }
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
  // has_exactly / includes count a header's lines; other patterns read its lines joined by ', '.
  match.headers = patterns(headers, "request.headers", true);
  written.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** `request.cookies`: valid cookie names to single-value patterns. */
function compileCookies(cookies: unknown, { match, written, errors, patterns }: Compiling): void {
  if (cookies === undefined) return;
  if (!isObject(cookies)) {
    errors.push(`request.cookies must be a mapping of cookie names to patterns, got ${shown(cookies)}`);
    return;
  }
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

/** `request.json`: a partial JSON document whose leaves may be patterns and captures. */
function compileJson(json: unknown, { match, written, errors, claim }: Compiling): void {
  if (json === undefined) return;
  const names: string[] = [];
  const problems: string[] = [];
  const pattern = compileJsonPattern(json, names, problems);
  for (const problem of problems) errors.push(`request.json ${problem}`);
  claim(names, "request.json");
  match.json = pattern;
  match.jsonNames = names;
  written.json = json;
}

/** `request.form`: form field names to patterns. */
function compileForm(form: unknown, { match, written, errors, patterns }: Compiling): void {
  if (form === undefined) return;
  if (!isObject(form)) {
    errors.push(`request.form must be a mapping of field names to patterns, got ${shown(form)}`);
    return;
  }
  match.form = patterns(form, "request.form", false);
  written.form = form;
}

/** `request.body_contains`: non-empty text. */
function compileBodyContains(contains: unknown, { match, written, errors }: Compiling): void {
  if (contains === undefined) return;
  if (typeof contains !== "string" || contains === "") {
    errors.push(`request.body_contains must be non-empty text, got ${shown(contains)}`);
    return;
  }
  match.bodyContains = contains;
  written.body_contains = contains;
}

/** `request.body_base64`: the body's exact bytes, as base64 (`""`: an empty body). */
function compileBodyBase64(text: unknown, { match, written, errors }: Compiling): void {
  if (text === undefined) return;
  const bytes = typeof text === "string" ? decodeBase64(text) : undefined;
  if (!bytes) {
    errors.push(
      `request.body_base64 must be base64 text (A-Z a-z 0-9 + /, = padding; the exact body bytes), got ${shown(text)}`,
    );
    return;
  }
  match.bodyBytes = bytes;
  written.body_base64 = text;
}

/** `request.body`: a value pattern on the whole body as text, capturing nothing. */
function compileBody(body: unknown, { match, written, errors }: Compiling): void {
  if (body === undefined) return;
  const { pattern, problem } = compileValuePattern(body);
  if (!pattern) errors.push(`request.body ${problem}`);
  else if (pattern.names.length) {
    errors.push("request.body captures nothing: leave out {name} placeholders and named groups");
  } else if (pattern.multi) errors.push("request.body cannot use has_exactly or includes: a body is one value");
  else {
    match.body = pattern;
    written.body = body;
  }
}

/**
 * `request.multipart`: a list of part patterns, each `{match?: any | all, headers?, body?,
 * body_contains?, json?, json_equals?, json_ignore?, json_placeholders?, json_path?}`, compiled
 * as the conditions of a request of their own (problems placed `request.multipart[i].…`); they
 * capture nothing.
 */
function compileMultipart(multipart: unknown, { match, written, errors }: Compiling): void {
  if (multipart === undefined) return;
  if (!Array.isArray(multipart) || multipart.length === 0) {
    errors.push(
      `request.multipart must be a non-empty list of part patterns ({match: any or all, headers, body, …}), got ${
        shown(multipart)
      }`,
    );
    return;
  }
  const list: MultipartMatch[] = [];
  const out: Record<string, unknown>[] = [];
  multipart.forEach((spec, i) => {
    const place = `request.multipart[${i}]`;
    if (!isObject(spec)) {
      errors.push(`${place} must be a mapping of part conditions (${MULTIPART_FIELDS.join(", ")}), got ${shown(spec)}`);
      return;
    }
    const before = errors.length;
    for (const key of Object.keys(spec)) {
      if (!(MULTIPART_FIELDS as readonly string[]).includes(key)) {
        errors.push(`${place}: ${unknownField("part condition", key, MULTIPART_FIELDS)}`);
      }
    }
    if (spec.match !== undefined && spec.match !== "any" && spec.match !== "all") {
      errors.push(
        `${place}.match must be any (at least one part meets it, the default) or all (every part does), got ${
          shown(spec.match)
        }`,
      );
    }
    const { match: every, ...conditions } = spec;
    const problems: string[] = [];
    const compiled = compileRequest([], undefined, conditions, problems);
    for (const problem of problems) errors.push(problem.replaceAll("request.", `${place}.`));
    const captures = (compiled?.match.headers ?? []).some(([, p]) => p.names.length) ||
      (compiled?.match.jsonNames?.length ?? 0) > 0;
    if (captures) errors.push(`${place} captures nothing: leave out {name} placeholders and named groups`);
    if (errors.length > before || !compiled) return;
    list.push({ every: every === "all", match: compiled.match });
    out.push({ ...compiled.request, ...every === undefined ? {} : { match: every } });
  });
  match.multipart = list;
  written.multipart = out;
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

/**
 * `request.path_params`: a capture-free value pattern per `{name}` (or `{name*}`) of the path,
 * tested against the segment as sent (percent-escapes kept, as `path_regex` sees the path).
 */
function compilePathParams(
  pathParams: unknown,
  segments: readonly Segment[],
  { match, written, errors }: Compiling,
): void {
  if (pathParams === undefined) return;
  const names = segments.flatMap((s) => s.param ? [s.name] : []);
  if (!isObject(pathParams) || Object.keys(pathParams).length === 0) {
    errors.push(
      `request.path_params must be a mapping of the path's placeholder names to value patterns, got ${
        shown(pathParams)
      }`,
    );
    return;
  }
  const list: NonNullable<RequestMatch["pathParams"]> = [];
  for (const [name, spec] of Object.entries(pathParams)) {
    const place = `request.path_params.${name}`;
    const at = segments.findIndex((s) => s.param && s.name === name);
    if (at === -1) {
      errors.push(
        `${place}: the path has no {${name}} (${
          names.length ? `its placeholders are ${names.map((n) => `{${n}}`).join(", ")}` : "it has no placeholder"
        })`,
      );
      continue;
    }
    const { pattern, problem } = compileValuePattern(spec);
    if (!pattern) errors.push(`${place} ${problem}`);
    else if (pattern.names.length) {
      errors.push(`${place} captures nothing (the path captures {${name}}): leave out placeholders and named groups`);
    } else if (pattern.multi) errors.push(`${place} cannot use has_exactly or includes: a path segment is one value`);
    else if (pattern.absent) errors.push(`${place} cannot be absent: the path always has {${name}}`);
    else list.push([at, name, (segments[at] as { rest?: boolean }).rest === true, pattern]);
  }
  match.pathParams = list;
  written.path_params = pathParams;
}

/** `request.query_string`: the whole query as sent, without `?`. */
function compileQueryString(queryString: unknown, { match, written, errors }: Compiling): void {
  if (queryString === undefined) return;
  if (typeof queryString !== "string" || queryString.startsWith("?") || /[\s#]/.test(queryString)) {
    errors.push(
      `request.query_string must be the query as sent, without '?' ("a=1&b=2"; "" for no query), got ${
        shown(queryString)
      }`,
    );
    return;
  }
  match.queryString = queryString;
  written.query_string = queryString;
}

/** `request.path_regex` and `request.url_regex`: a regular expression each, whose named groups capture. */
function compileRegexes(pathRegex: unknown, urlRegex: unknown, { match, written, errors, claim }: Compiling): void {
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
}

/**
 * `request.json_equals`, the `json_ignore` list that relaxes it, and `json_placeholders`
 * (its `${json-unit.…}` strings are placeholders).
 */
function compileJsonEquals(
  jsonEquals: unknown,
  jsonIgnore: unknown,
  placeholders: unknown,
  { match, written, errors }: Pick<Compiling, "match" | "written" | "errors">,
): void {
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
  let value = jsonEquals;
  if (placeholders !== undefined) {
    if (typeof placeholders !== "boolean") {
      errors.push(`request.json_placeholders must be true or false, got ${shown(placeholders)}`);
    } else if (jsonEquals === undefined) {
      errors.push("request.json_placeholders applies to request.json_equals; add json_equals or remove it");
    } else {
      written.json_placeholders = placeholders;
      if (placeholders && written.json_equals !== undefined) {
        const problems: string[] = [];
        value = compileJsonPlaceholders(jsonEquals, problems);
        for (const problem of problems) errors.push(`request.json_equals ${problem}`);
      }
    }
  }
  if (written.json_equals !== undefined) match.jsonEquals = { value, ignore };
}

/** `request.json_path`: JSONPath expressions to `true` (found, not null) or a capture-free single-value pattern. */
function compileJsonPath(jsonPath: unknown, { match, written, errors }: Compiling): void {
  if (jsonPath === undefined) return;
  if (!isObject(jsonPath) || Object.keys(jsonPath).length === 0) {
    errors.push(
      `request.json_path must be a mapping of JSONPath expressions to true (found, not null) or value patterns, got ${
        shown(jsonPath)
      }`,
    );
    return;
  }
  const list: [string, ValuePattern | "present" | JsonPathEquals][] = [];
  for (const [path, spec] of Object.entries(jsonPath)) {
    const condition = jsonPathCondition(path, spec, errors);
    if (condition) list.push([path, condition]);
  }
  match.jsonPath = list;
  written.json_path = jsonPath;
}

/** A JSONPath that names one place (`$.a.b`, `$['a'][0]`): no wildcard, filter, slice, union or deep scan. */
export const DEFINITE_PATH = /^\$(?:\.[A-Za-z_$][\w$-]*|\[(?:\d+|'[^'\\]*')\])*$/;

/** `{json_equals, json_ignore?, json_placeholders?}` on the one value a definite path finds. */
function jsonPathEquals(
  place: string,
  path: string,
  spec: Record<string, unknown>,
  errors: string[],
): JsonPathEquals | undefined {
  const extra = Object.keys(spec).filter((k) => !["json_equals", "json_ignore", "json_placeholders"].includes(k));
  if (extra.length) {
    errors.push(`${place}: json_equals takes json_ignore and json_placeholders only, got ${extra.join(", ")}`);
    return undefined;
  }
  if (!DEFINITE_PATH.test(path)) {
    errors.push(`${place}: json_equals needs a path to one value ($.a.b, $['a'][0]): no wildcard, filter or ..`);
    return undefined;
  }
  const c = { match: {} as RequestMatch, written: {} as Record<string, unknown>, errors: [] as string[] };
  compileJsonEquals(spec.json_equals, spec.json_ignore, spec.json_placeholders, c);
  for (const problem of c.errors) errors.push(`${place}: ${problem.replace(/^request\./, "")}`);
  return c.errors.length || !c.match.jsonEquals ? undefined : { jsonEquals: c.match.jsonEquals };
}

/** One `json_path` entry: `"present"`, its pattern, or undefined with the problem pushed. */
function jsonPathCondition(
  path: string,
  spec: unknown,
  errors: string[],
): ValuePattern | "present" | JsonPathEquals | undefined {
  const place = `request.json_path.${path}`;
  if (!path.startsWith("$")) {
    errors.push(`${place}: a JSONPath expression starts with $ ("$.user.id")`);
    return undefined;
  }
  try {
    evaluatePath({}, path);
    evaluatePath([{}], path);
  } catch (error) {
    errors.push(`${place} is not a JSONPath expression stubtool reads: ${(error as Error).message}`);
    return undefined;
  }
  if (spec === true) return "present";
  if (isObject(spec) && Object.hasOwn(spec, "json_equals")) return jsonPathEquals(place, path, spec, errors);
  const { pattern, problem } = compileValuePattern(spec);
  if (!pattern) {
    errors.push(`${place} must be true (found, not null) or a value pattern: ${problem}`);
    return undefined;
  }
  if (pattern.names.length) {
    errors.push(`${place} captures nothing: leave out {name} placeholders and named groups`);
    return undefined;
  }
  if (pattern.multi) {
    errors.push(`${place} cannot use has_exactly or includes: any one of several results may match; use any`);
    return undefined;
  }
  return pattern;
}
