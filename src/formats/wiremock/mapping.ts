/**
 * WireMock 3 mappings as stubtool stubs: one mapping file's JSON (one mapping, or
 * `{"mappings": […]}`) becomes config-form stubs, exactly what a user would write in
 * `stubs.yaml`, so the one validator checks them and `stubtool import wiremock` can write
 * them out. A mapping converts only when the stub language says what WireMock means; any
 * other mapping is left out whole with one warning per feature it could not carry (a
 * broader match than its author meant would be a silent wrong answer). docs/wiremock.md
 * lists what converts and why the rest does not.
 * @module
 */

import { PLACEHOLDER_ANYWHERE } from "../../stubs/path.ts";
import { DEFINITE_PATH } from "../../stubs/request.ts";
import { escapeRegex, javaRegexToJs } from "./regex.ts";
import { compileRegex } from "../../util/regex.ts";
import { evaluatePath } from "../../templating/jsonpath.ts";
import { rankPriorities } from "./ranks.ts";
import { escapeSupplementary, javaJsonText, parseKeepingNumbers } from "./java_json.ts";
import { isObject } from "../../util/json_shape.ts";
import { MAX_PATTERN_DEPTH } from "../../stubs/patterns.ts";
import { compileDatePattern, DATE_UNITS, readNowOffset } from "../../stubs/date_pattern.ts";
import { isJsonMediaType } from "../../util/media.ts";
import { equalToXmlCondition, matchesXPathCondition, xPathHelperProblems } from "./xml.ts";

export { rankPriorities };

/** A mapping (or a file) left out: where, which feature, and the line to print. */
export interface WireMockWarning {
  /** `FILE mappings[i]`, or `FILE` for a file that is not a mapping document. */
  place: string;
  /** The WireMock feature, as the message quotes it (`url (exact query)`). */
  feature: string;
  /** `FILE mappings[i]: 'X' is not supported: why`. */
  message: string;
}

/**
 * A body file a converted stub names in `body_file`: either a WireMock `__files` file
 * (`source`, the `bodyFileName` as written, for the folder reader to resolve) or text the
 * converter generated (`bytes`: a template body, which must reach stubtool as a file so
 * that no content type is added).
 */
export interface WireMockBodyFile {
  /** Index of the stub in `routes`. */
  route: number;
  /** The `body_file` value written in the stub: a path relative to the config file. */
  name: string;
  /** The mapping's `bodyFileName`, relative to `__files`. */
  source?: string;
  /** The generated content. */
  bytes?: Uint8Array;
}

/** What one mapping document converts to. */
export interface WireMockConversion {
  /** Config-form stubs, in the document's order. */
  routes: Record<string, unknown>[];
  /** WireMock's priority of each stub (1 highest, default 5), for {@link rankPriorities} across files. */
  wiremockPriorities: number[];
  /** The index of each stub's mapping in the document (its place is `FILE mappings[i]`). */
  indexes: number[];
  /** One per unsupported feature of each mapping left out. */
  warnings: WireMockWarning[];
  /** The `body_file`s the stubs name. */
  bodyFiles: WireMockBodyFile[];
}

/** Options of {@link mappingsToConfig}. */
export interface WireMockOptions {
  /** Render every mapping as a template, as WireMock's `--global-response-templating` does. */
  globalTemplating?: boolean;
  /**
   * The document's text, when the caller has it: WireMock writes a `jsonBody`'s numbers back
   * from the text (`1.0` stays `1.0`, `1e3` becomes `1000`), which the parsed value no longer
   * shows; with the text each `jsonBody` is written as WireMock writes it.
   */
  source?: string;
  /**
   * `hasIntegralDecimal(source)`, when the caller has already scanned the text: without `source`
   * or `kept`, a whole-number `jsonBody` is then refused (the file may have written it `1.0`).
   */
  integralDecimals?: boolean;
  /**
   * One mapping parsed again with its numbers as written (`parseKeepingNumbers`), when the
   * document is that one mapping and the caller has its text (`jsonBody` numbers as WireMock writes them).
   */
  kept?: unknown;
  /** Ids already taken by earlier documents (a duplicate id stops WireMock from starting). */
  takenIds?: Set<string>;
}

/** A refusal: the feature and why. */
type Refusal = [feature: string, why: string];

const REQUEST_KEYS = new Set([
  "method",
  "url",
  "urlPath",
  "urlPattern",
  "urlPathPattern",
  "urlPathTemplate",
  "pathParameters",
  "queryParameters",
  "headers",
  "cookies",
  "basicAuthCredentials",
  "bodyPatterns",
  "formParameters",
  "multipartPatterns",
  "customMatcher",
]);
const METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"]);
/** Mapping fields that do not change an answer. */
const IGNORED = new Set(["metadata", "persistent", "insertionIndex", "name", "id", "uuid"]);
const HAS_PLACEHOLDER = new RegExp(PLACEHOLDER_ANYWHERE.source);

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? text.slice(0, 57) + "..." : text;
}

/**
 * Converts one mapping document. Each mapping that converts becomes one stub; each that
 * does not adds a warning per unsupported feature, placed `FILE mappings[i]`.
 *
 * @example
 * ```ts
 * import { mappingsToConfig } from "./mapping.ts";
 * const doc = { request: { method: "GET", urlPath: "/health" }, response: { status: 200 } };
 * const { routes } = mappingsToConfig(doc, "health.json");
 * console.log(routes); // [{ method: "GET", path: "/health", status: 200 }]
 * ```
 */
export function mappingsToConfig(doc: unknown, file: string, options: WireMockOptions = {}): WireMockConversion {
  const result: WireMockConversion = { routes: [], wiremockPriorities: [], indexes: [], warnings: [], bodyFiles: [] };
  let list: unknown[];
  if (isObject(doc) && Array.isArray(doc.mappings)) list = doc.mappings;
  else if (isObject(doc) && (doc.request !== undefined || doc.response !== undefined)) list = [doc];
  else {
    result.warnings.push({
      place: file,
      feature: "file",
      message:
        `${file}: 'file' is not supported: expected one mapping ({"request", "response"}) or {"mappings": [...]}`,
    });
    return result;
  }
  const decimals = options.integralDecimals ??
    (options.source !== undefined && hasIntegralDecimal(options.source));
  // The document again with each number as written, for jsonBody (WireMock writes `1.0` back as `1.0`).
  const kept = options.source === undefined ? options.kept : parseKeepingNumbers(options.source);
  const keptList = isObject(kept) && Array.isArray(kept.mappings) ? kept.mappings : [kept];
  const stem = file.replace(/^.*[\\/]/, "").replace(/\.json$/i, "").replace(/[^A-Za-z0-9_.-]/g, "_");
  list.forEach((mapping, i) => {
    const place = `${file} mappings[${i}]`;
    const refusals: Refusal[] = [];
    const files: Omit<WireMockBodyFile, "route">[] = [];
    const converted = convertMapping(mapping, {
      refuse: (feature, why) => refusals.push([feature, why]),
      globalTemplating: options.globalTemplating === true,
      decimals,
      kept: keptList[i],
      generatedName: `__generated/${stem}.${i}.body`,
      files,
    });
    if (!converted || refusals.length) {
      for (const [feature, why] of refusals) {
        result.warnings.push({ place, feature, message: `${place}: '${feature}' is not supported: ${why}` });
      }
      return;
    }
    const id = converted.route.id as string | undefined;
    if (id !== undefined && options.takenIds) {
      if (options.takenIds.has(id)) {
        const why = `another mapping already has the id ${shown(id)} (WireMock does not start with a duplicate id)`;
        result.warnings.push({ place, feature: "id", message: `${place}: 'id' is not supported: ${why}` });
        return;
      }
      options.takenIds.add(id);
    }
    const route = result.routes.length;
    result.routes.push(converted.route);
    result.wiremockPriorities.push(converted.priority);
    result.indexes.push(i);
    for (const f of files) result.bodyFiles.push({ route, ...f });
  });
  rankPriorities(result.routes, result.wiremockPriorities);
  return result;
}

interface Context {
  refuse(feature: string, why: string): void;
  globalTemplating: boolean;
  decimals: boolean;
  /** The mapping parsed again with its numbers as written, when the document's text was given. */
  kept?: unknown;
  generatedName: string;
  files: Omit<WireMockBodyFile, "route">[];
}

/** The id stubtool allows: 1–100 of `A-Z a-z 0-9 _ . : -`. */
function sanitizeId(value: string): string | undefined {
  const id = value.replace(/[^A-Za-z0-9_.:-]+/g, "-").slice(0, 100);
  return id.replace(/-/g, "") === "" ? undefined : id;
}

function convertMapping(
  mapping: unknown,
  ctx: Context,
): { route: Record<string, unknown>; priority: number } | undefined {
  if (!isObject(mapping)) {
    ctx.refuse("mapping", `expected an object, got ${shown(mapping)}`);
    return undefined;
  }
  const route: Record<string, unknown> = {};
  // WireMock's id is the mapping's `id` (or `uuid`); its `name` is a display name only.
  for (const key of ["id", "uuid"] as const) {
    const value = mapping[key];
    if (typeof value === "string" && route.id === undefined) {
      const id = sanitizeId(value);
      if (id !== undefined) route.id = id;
    }
  }
  let priority = 5;
  if (mapping.priority !== undefined) {
    // Jackson reads a priority written as text ("1") as the number.
    const value = typeof mapping.priority === "string" && /^-?\d{1,9}$/.test(mapping.priority.trim())
      ? Number(mapping.priority.trim())
      : mapping.priority;
    if (typeof value === "number" && Number.isSafeInteger(value)) priority = value;
    else ctx.refuse("priority", `expected a whole number, got ${shown(mapping.priority)}`);
  }
  const template = ctx.globalTemplating || templated(mapping.response, ctx);
  for (const key of Object.keys(mapping)) {
    if (IGNORED.has(key) || ["request", "response", "priority"].includes(key)) continue;
    if (key === "scenarioName" || key === "requiredScenarioState" || key === "newScenarioState") {
      const value = mapping[key];
      if (typeof value !== "string") ctx.refuse(key, `expected text, got ${shown(value)}`);
      else {route[
          { scenarioName: "scenario", requiredScenarioState: "when_state", newScenarioState: "set_state" }[key]
        ] = value;}
      continue;
    }
    if (key === "serveEventListeners" || key === "postServeActions") {
      const callbacks = convertListeners(key, mapping[key], template, ctx);
      if (callbacks?.length) route.callbacks = [...(route.callbacks as unknown[] ?? []), ...callbacks];
      continue;
    }
    ctx.refuse(key, "stubtool has no equivalent");
  }
  if (route.scenario === undefined && (route.when_state !== undefined || route.set_state !== undefined)) {
    ctx.refuse("requiredScenarioState", "a scenario state needs a scenarioName");
  }
  convertRequest(mapping.request, route, ctx);
  convertResponse(mapping.response, route, template, ctx);
  // Keys in the order a person writes them.
  const ordered: Record<string, unknown> = {};
  for (const key of ["id", "method", "head", "path", "query_params", "request", "priority"]) {
    if (route[key] !== undefined) ordered[key] = route[key];
  }
  return { route: Object.assign(ordered, route), priority };
}

/** Whether the response lists `response-template` among its transformers (others are refused). */
function templated(response: unknown, ctx: Context): boolean {
  if (!isObject(response) || response.transformers === undefined) return false;
  const list = response.transformers;
  if (!Array.isArray(list) || list.some((t) => typeof t !== "string")) {
    ctx.refuse("transformers", `expected a list of names, got ${shown(list)}`);
    return false;
  }
  for (const name of list) {
    if (name !== "response-template") ctx.refuse(`transformers: ${name}`, "only response-template has an equivalent");
  }
  return list.includes("response-template");
}

// ---------------------------------------------------------------- request

function convertRequest(request: unknown, route: Record<string, unknown>, ctx: Context): void {
  if (request === undefined) request = {};
  if (!isObject(request)) {
    ctx.refuse("request", `expected an object, got ${shown(request)}`);
    return;
  }
  for (const key of Object.keys(request)) {
    if (!REQUEST_KEYS.has(key)) ctx.refuse(`request.${key}`, "stubtool has no equivalent");
  }
  convertMethod(request.method ?? "ANY", route, ctx);
  const conditions: Record<string, unknown> = {};
  convertUrl(request, route, conditions, ctx);
  convertFields(request, route, conditions, ctx);
  if (request.basicAuthCredentials !== undefined) basicAuth(request.basicAuthCredentials, conditions, ctx);
  if (request.formParameters !== undefined) {
    // WireMock reads the fields of an x-www-form-urlencoded body (`+` and %-escapes decoded, a
    // repeated field matching when any value does), as stubtool's request.form does.
    const form = fieldPatterns("formParameters", request.formParameters, ctx);
    if (form && Object.keys(form).length) conditions.form = form;
  }
  if (request.bodyPatterns !== undefined) convertBodyPatterns(request.bodyPatterns, conditions, ctx);
  if (request.multipartPatterns !== undefined) convertMultipart(request.multipartPatterns, conditions, ctx);
  const none: Record<string, string> = {
    customMatcher: "a Java extension stubtool cannot run",
  };
  for (const [key, why] of Object.entries(none)) if (request[key] !== undefined) ctx.refuse(key, why);
  if (Object.keys(conditions).length) route.request = conditions;
}

/** `request.method` onto the route (`ANY` included). */
function convertMethod(method: unknown, route: Record<string, unknown>, ctx: Context): void {
  if (typeof method !== "string") ctx.refuse("method", `expected text, got ${shown(method)}`);
  else if (method === "ANY" || METHODS.has(method)) {
    route.method = method;
    // A WireMock GET stub does not answer HEAD (a stubtool one does, unless told not to).
    if (method === "GET") route.head = false;
  } else ctx.refuse(`method ${method}`, "stubtool stubs answer DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT or ANY");
}

/** The one URL matcher of a mapping (`url`, `urlPath`, `urlPattern`, `urlPathPattern`, `urlPathTemplate`). */
function convertUrl(
  request: Record<string, unknown>,
  route: Record<string, unknown>,
  conditions: Record<string, unknown>,
  ctx: Context,
): void {
  if (request.url !== undefined) convertExactUrl(request.url, route, conditions, ctx);
  for (const key of ["urlPathPattern", "urlPattern"] as const) {
    const pattern = request[key];
    if (pattern === undefined) continue;
    if (typeof pattern !== "string") {
      ctx.refuse(key, `expected a regular expression, got ${shown(pattern)}`);
      continue;
    }
    const js = javaRegexToJs(pattern);
    if ("problem" in js) ctx.refuse(key, `the Java pattern ${shown(pattern)} uses ${js.problem}`);
    else regexPath(key, js.source, key === "urlPattern" ? "url_regex" : "path_regex", route, conditions, ctx);
  }
  if (request.urlPath !== undefined) {
    const path = request.urlPath;
    if (typeof path !== "string" || !path.startsWith("/") || /[?#]/.test(path)) {
      ctx.refuse("urlPath", `${shown(path)} is not a path`);
    } else if (plainPath(path, false)) route.path = path;
    // WireMock compares the path as sent; a path stubtool reads differently (braces, %-escapes,
    // empty, dot or trailing segments) is compared the same way, by a regex.
    else regexPath("urlPath", escapeRegex(path), "path_regex", route, conditions, ctx);
  }
  if (request.urlPathTemplate !== undefined) {
    const path = request.urlPathTemplate;
    if (typeof path !== "string" || !plainPath(path, true)) {
      ctx.refuse(
        "urlPathTemplate",
        `${shown(path)} is not a path of plain segments and {name} parameters (letters, digits, _)`,
      );
    } else route.path = path;
  }
  if (request.pathParameters !== undefined) pathParameters(request, conditions, ctx);
  const urls = ["url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate"].filter((k) =>
    request[k] !== undefined
  );
  // A mapping without a URL matcher matches every path, `/` included.
  if (urls.length === 0) route.path = `/{${REGEX_REST}**}`;
  if (urls.length > 1) ctx.refuse(urls.join(" + "), "WireMock uses one URL matcher per mapping");
}

/**
 * `pathParameters` (with `urlPathTemplate`): WireMock tests each parameter's text as sent
 * (`/raw/a%20b` meets `equalTo: "a%20b"`, not `"a b"`), as `request.path_params` does.
 */
function pathParameters(request: Record<string, unknown>, conditions: Record<string, unknown>, ctx: Context): void {
  const template = request.urlPathTemplate;
  if (typeof template !== "string") {
    ctx.refuse("pathParameters", "WireMock reads pathParameters with a urlPathTemplate only");
    return;
  }
  const names = [...template.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
  const spec = fieldPatterns("pathParameters", request.pathParameters, ctx);
  if (!spec) return;
  for (const [name, pattern] of Object.entries(spec)) {
    if (!names.includes(name)) ctx.refuse(`pathParameters.${name}`, `the urlPathTemplate has no {${name}}`);
    else if (JSON.stringify(pattern).includes('"absent":true')) {
      ctx.refuse(
        `pathParameters.${name} absent`,
        "a path parameter is always present; stubtool refuses a stub that can never match",
      );
    }
  }
  if (Object.keys(spec).length) conditions.path_params = spec;
}

/** `request.url`: the path and the query string, both as sent. */
function convertExactUrl(
  url: unknown,
  route: Record<string, unknown>,
  conditions: Record<string, unknown>,
  ctx: Context,
): void {
  const q = typeof url === "string" ? url.indexOf("?") : -1;
  const path = typeof url === "string" ? (q === -1 ? url : url.slice(0, q)) : undefined;
  if (path === undefined || !path.startsWith("/") || url === undefined || /[#\s]/.test(url as string)) {
    ctx.refuse("url", `${shown(url)} is not a path with an optional query`);
    return;
  }
  // WireMock compares the query string as sent: order and encoding count, an empty `?` is none.
  conditions.query_string = q === -1 ? "" : (url as string).slice(q + 1);
  // A path stubtool reads differently (a %-escape, braces) is matched as sent, by a regex.
  if (plainPath(path, false)) route.path = path;
  else regexPath("url", escapeRegex(path), "path_regex", route, conditions, ctx);
}

/** Query parameters, headers (names lower-cased) and cookies. */
function convertFields(
  request: Record<string, unknown>,
  route: Record<string, unknown>,
  conditions: Record<string, unknown>,
  ctx: Context,
): void {
  if (request.queryParameters !== undefined) {
    const query = fieldPatterns("queryParameters", request.queryParameters, ctx);
    if (query) route.query_params = query;
  }
  if (request.headers !== undefined) {
    const headers = fieldPatterns("headers", request.headers, ctx);
    if (headers) {
      const lower: Record<string, unknown> = {};
      for (const [name, pattern] of Object.entries(headers)) {
        if (Object.hasOwn(lower, name.toLowerCase())) {
          ctx.refuse(`headers.${name}`, "the same header is listed twice (names differ only in case)");
        }
        lower[name.toLowerCase()] = pattern;
      }
      conditions.headers = lower;
    }
  }
  if (request.cookies !== undefined) {
    // WireMock's cookie matchers see each value of a cookie on its own, as stubtool's do; a
    // missing cookie meets only absent in both (not the negations, unlike headers).
    const cookies = fieldPatterns("cookies", request.cookies, ctx);
    if (cookies && Object.keys(cookies).length) conditions.cookies = cookies;
  }
}

/**
 * `basicAuthCredentials` as WireMock compares them: the Authorization header equal, ignoring
 * case (Java's equalsIgnoreCase, so `basic` and even the base64 text in any case), to
 * `Basic ` + base64 of `username:password`. Java encodes the text in the platform charset:
 * only ASCII credentials are certain to give the same bytes.
 */
function basicAuth(spec: unknown, conditions: Record<string, unknown>, ctx: Context): void {
  if (!isObject(spec) || typeof spec.username !== "string" || typeof spec.password !== "string") {
    ctx.refuse("basicAuthCredentials", `expected {"username": text, "password": text}, got ${shown(spec)}`);
    return;
  }
  const extra = Object.keys(spec).filter((k) => k !== "username" && k !== "password");
  const text = `${spec.username}:${spec.password}`;
  if (extra.length) ctx.refuse(`basicAuthCredentials ${extra.join(", ")}`, "stubtool has no equivalent");
  // deno-lint-ignore no-control-regex -- ASCII is exactly the test
  else if (!/^[\x00-\x7f]*$/.test(text)) {
    ctx.refuse("basicAuthCredentials", "WireMock encodes non-ASCII credentials in the JVM's charset, which may differ");
  } else {
    const headers = (conditions.headers ??= {}) as Record<string, unknown>;
    if (Object.hasOwn(headers, "authorization")) {
      ctx.refuse("basicAuthCredentials + headers.Authorization", "two conditions on the Authorization header");
    } else headers.authorization = { equals_ignore_case: `Basic ${btoa(text)}` };
  }
}

/** The name of the catch-all a path regex stub sits under (a capture no other condition of a converted stub takes). */
const REGEX_REST = "wiremock_path";

/**
 * A path regex as a stub: the regex's leading literal segments become the stub's `path`,
 * ended by a catch-all (`/api/users/{wiremock_path*}`), so the router looks at the stub only
 * under that prefix; the regex itself (on the path as sent, or path and query) decides.
 * `{name*}` takes one character at least; a regex that also matches the bare prefix (`/.*`
 * matches `/`) gets `{name**}`, which also takes nothing.
 */
function regexPath(
  feature: string,
  source: string,
  field: "path_regex" | "url_regex",
  route: Record<string, unknown>,
  conditions: Record<string, unknown>,
  ctx: Context,
): void {
  let prefix = "/";
  if (source.startsWith("\\/") && !source.includes("|")) {
    const literal = /^(?:\\\/|\\\.|[A-Za-z0-9_~-])(?![?*+{])/;
    let rest = source, text = "";
    for (let m = literal.exec(rest); m; m = literal.exec(rest)) {
      text += m[0].startsWith("\\") ? m[0].slice(1) : m[0];
      rest = rest.slice(m[0].length);
      if (text.endsWith("/")) prefix = text;
    }
  }
  if (prefix.split("/").some((segment, i, all) => (i > 0 && i < all.length - 1) && /^\.\.?$/.test(segment))) {
    prefix = "/";
  }
  // Every path the regex matches starts with the prefix; the catch-all takes what follows.
  const compiled = compileRegex(source);
  if ("problem" in compiled) {
    ctx.refuse(feature, `the pattern ${compiled.problem}`);
    return;
  }
  route.path = `${prefix}{${REGEX_REST}${compiled.regex.test(prefix) ? "**" : "*"}}`;
  conditions[field] = source;
}

/** A path of literal segments (and `{name}` parameters when `template`) that stubtool reads exactly as written. */
function plainPath(path: string, template: boolean): boolean {
  if (!path.startsWith("/") || path.startsWith("/__stubtool__")) return false;
  if (path === "/") return true;
  const segment = template
    ? "(?:\\{[A-Za-z0-9_]+\\}|(?!\\.\\.?(?:/|$))[\\w.~!$&'()*+,;=:@-]+)"
    : "(?!\\.\\.?(?:/|$))[\\w.~!$&'()*+,;=:@-]+";
  return new RegExp(`^(?:/${segment})+$`).test(path);
}

/** `queryParameters` / `headers` / `cookies` / `formParameters`: name → WireMock matcher, as name → stubtool value pattern. */
function fieldPatterns(what: string, spec: unknown, ctx: Context): Record<string, unknown> | undefined {
  if (!isObject(spec)) {
    ctx.refuse(what, `expected an object of name → matcher, got ${shown(spec)}`);
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [name, matcher] of Object.entries(spec)) {
    const pattern = valuePattern(`${what}.${name}`, matcher, ctx, what);
    if (pattern === undefined) continue;
    out[name] = pattern;
  }
  return out;
}

/**
 * One WireMock string matcher as a stubtool value pattern. A literal that would read as a
 * `{name}` capture goes through an escaped regex instead.
 */
function valuePattern(place: string, matcher: unknown, ctx: Context, what = ""): unknown {
  if (!isObject(matcher)) {
    ctx.refuse(place, `expected a matcher object, got ${shown(matcher)}`);
    return undefined;
  }
  const keys = Object.keys(matcher);
  if (keys.length === 1 && ["and", "or", "hasExactly", "includes"].includes(keys[0])) {
    return listPattern(place, keys[0], matcher[keys[0]], ctx, what);
  }
  const dateKind = keys.find((k) => Object.hasOwn(DATE_MATCHERS, k));
  if (dateKind !== undefined) return datePattern(place, dateKind, matcher, ctx);
  const kind = keys.find((k) => k !== "caseInsensitive");
  const extra = keys.filter((k) => k !== kind && k !== "caseInsensitive");
  if (kind === undefined || extra.length) {
    ctx.refuse(`${place} ${keys.join(" + ") || "{}"}`, "expected exactly one matcher");
    return undefined;
  }
  const value = matcher[kind];
  const ci = matcher.caseInsensitive === true;
  if (matcher.caseInsensitive !== undefined && (kind !== "equalTo" || typeof matcher.caseInsensitive !== "boolean")) {
    ctx.refuse(`${place} caseInsensitive`, "only equalTo takes caseInsensitive (true or false)");
    return undefined;
  }
  if (kind === "absent") {
    if (value === true) return { absent: true };
    ctx.refuse(`${place} absent: ${shown(value)}`, "only absent: true has an equivalent");
    return undefined;
  }
  if (typeof value !== "string") {
    ctx.refuse(
      `${place} ${kind}`,
      ["equalTo", "contains", "matches", "doesNotContain", "doesNotMatch"].includes(kind)
        ? `expected text, got ${shown(value)}`
        : "stubtool has no equivalent (it has equalTo, caseInsensitive, contains, doesNotContain, matches, doesNotMatch and absent)",
    );
    return undefined;
  }
  return textPattern(place, kind, value, ci, ctx);
}

/** WireMock's date matchers and the comparison of stubtool's `{date}` pattern each is. */
const DATE_MATCHERS: Record<string, string> = { before: "before", after: "after", equalToDateTime: "equals" };
const DATE_OPTIONS = [
  "actualFormat",
  "truncateExpected",
  "truncateActual",
  "applyTruncationLast",
  "expectedOffset",
  "expectedOffsetUnit",
];

/**
 * `before` / `after` / `equalToDateTime` (+ `actualFormat`, `truncateExpected`, `truncateActual`,
 * `applyTruncationLast`, `expectedOffset` + `expectedOffsetUnit`) as `{date: {…}}`. As in
 * WireMock, the truncation of the expected date and the offset apply to `now` only: a fixed
 * date is compared as written.
 */
function datePattern(place: string, kind: string, matcher: Record<string, unknown>, ctx: Context): unknown {
  const extra = Object.keys(matcher).filter((k) => k !== kind && !DATE_OPTIONS.includes(k));
  if (extra.length) {
    ctx.refuse(`${place} ${kind} + ${extra.join(", ")}`, "expected one date matcher and its options");
    return undefined;
  }
  const spec = matcher[kind];
  if (typeof spec !== "string") {
    ctx.refuse(`${place} ${kind}`, `expected a date-time or now (± an offset) as text, got ${shown(spec)}`);
    return undefined;
  }
  const out: Record<string, unknown> = {};
  const offset = readNowOffset(spec);
  let expected = spec;
  if (offset !== undefined && offset !== "bad") {
    const { expectedOffset: amount, expectedOffsetUnit: unit } = matcher;
    if (amount !== undefined && unit !== undefined) {
      const known = DATE_UNITS.find((u) => typeof unit === "string" && u === unit.toLowerCase());
      if (!Number.isSafeInteger(amount) || known === undefined) {
        ctx.refuse(
          `${place} ${kind} expectedOffset`,
          `expected a whole number and a unit (${DATE_UNITS.join(", ")}), got ${shown(amount)} ${shown(unit)}`,
        );
        return undefined;
      }
      expected = `now ${(amount as number) >= 0 ? "+" : ""}${amount} ${known}`;
    }
  }
  out[DATE_MATCHERS[kind]] = expected;
  if (matcher.actualFormat !== undefined) out.format = matcher.actualFormat;
  for (const [from, to] of [["truncateExpected", "truncate_expected"], ["truncateActual", "truncate_actual"]]) {
    const value = matcher[from];
    if (value === undefined) continue;
    // WireMock ignores the expected truncation of a fixed date.
    if (from === "truncateExpected" && (offset === undefined || offset === "bad")) continue;
    // DateTimeTruncation.fromString: any case, spaces for underscores.
    out[to] = typeof value === "string" ? value.toLowerCase().replaceAll("_", " ") : value;
  }
  if (matcher.applyTruncationLast === true && out.truncate_expected !== undefined) out.truncate_after_offset = true;
  const { problem } = compileDatePattern(out);
  if (problem !== undefined) {
    ctx.refuse(`${place} ${kind}`, problem.replace(/^date\.[a-z_]+:? ?/, "").replace(/^date /, ""));
    return undefined;
  }
  return { date: out };
}

/** A matcher on text (`equalTo`, `contains`, `matches`, …) as a stubtool value pattern. */
function textPattern(place: string, kind: string, value: string, ci: boolean, ctx: Context): unknown {
  switch (kind) {
    case "equalTo":
      // Java's equalsIgnoreCase, which equals_ignore_case reproduces.
      if (ci) return { equals_ignore_case: value };
      return HAS_PLACEHOLDER.test(value) ? { regex: escapeRegex(value) } : value;
    case "contains":
      return { contains: value };
    case "doesNotContain":
      return { not_contains: value };
    case "matches":
    case "doesNotMatch": {
      const js = javaRegexToJs(value);
      if ("problem" in js) {
        ctx.refuse(`${place} ${kind}`, `the Java pattern ${shown(value)} uses ${js.problem}`);
        return undefined;
      }
      return kind === "matches" ? { regex: js.source } : { not_regex: js.source };
    }
    default:
      ctx.refuse(
        `${place} ${kind}`,
        "stubtool has no equivalent (it has equalTo, caseInsensitive, contains, doesNotContain, matches, doesNotMatch and absent)",
      );
      return undefined;
  }
}

/**
 * `and` / `or` (on one value; WireMock needs two parts or more; nested to any depth up to
 * {@link MAX_PATTERN_DEPTH}) as `{all}` / `{any}`; `hasExactly` / `includes` (on all the values
 * of a repeated query parameter, form field, or the lines of a header sent more than once) as
 * `{has_exactly}` / `{includes}`; WireMock does not take them on cookies.
 */
function listPattern(place: string, kind: string, list: unknown, ctx: Context, what: string, depth = 0): unknown {
  const multi = kind === "hasExactly" || kind === "includes";
  if (
    !["headers", "queryParameters", "formParameters", "cookies", "bodyPatterns", "pathParameters", "matchesJsonPath"]
      .includes(what)
  ) {
    ctx.refuse(`${place} ${kind}`, "stubtool converts and, or, hasExactly and includes on request fields only");
    return undefined;
  }
  if (multi && (depth > 0 || (what !== "queryParameters" && what !== "formParameters" && what !== "headers"))) {
    ctx.refuse(
      `${place} ${kind}`,
      depth > 0
        ? "WireMock takes hasExactly and includes on a whole field, not inside and or or"
        : "WireMock takes hasExactly and includes on query parameters, form parameters and headers only",
    );
    return undefined;
  }
  if (depth >= MAX_PATTERN_DEPTH) {
    ctx.refuse(`${place} ${kind}`, `and and or nest more than ${MAX_PATTERN_DEPTH} levels deep: flatten them`);
    return undefined;
  }
  if (!Array.isArray(list) || list.length < (multi ? 1 : 2)) {
    ctx.refuse(
      `${place} ${kind}`,
      `expected a list of ${multi ? "one matcher or more" : "two matchers or more"}, got ${shown(list)}`,
    );
    return undefined;
  }
  const parts: unknown[] = [];
  for (const [i, matcher] of list.entries()) {
    const sub = `${place} ${kind}[${i}]`;
    if (isObject(matcher) && Object.keys(matcher).some((k) => k === "hasExactly" || k === "includes")) {
      ctx.refuse(sub, "WireMock takes hasExactly and includes on a whole field, not inside another matcher");
      return undefined;
    }
    if (multi && isObject(matcher) && matcher.absent !== undefined) {
      ctx.refuse(sub, "absent inside hasExactly or includes has no stubtool equivalent");
      return undefined;
    }
    const nested = isObject(matcher) && Object.keys(matcher).length === 1 &&
      (Object.hasOwn(matcher, "and") || Object.hasOwn(matcher, "or"));
    const pattern = nested
      ? listPattern(
        sub,
        Object.keys(matcher)[0],
        (matcher as Record<string, unknown>)[Object.keys(matcher)[0]],
        ctx,
        what,
        depth + 1,
      )
      : valuePattern(sub, matcher, ctx);
    if (pattern === undefined) return undefined;
    parts.push(pattern);
  }
  const key = { and: "all", or: "any", hasExactly: "has_exactly", includes: "includes" }[kind]!;
  return { [key]: parts };
}

function convertBodyPatterns(
  spec: unknown,
  conditions: Record<string, unknown>,
  ctx: Context,
  inPart = false,
): void {
  if (!Array.isArray(spec)) {
    ctx.refuse("bodyPatterns", `expected a list, got ${shown(spec)}`);
    return;
  }
  spec.forEach((pattern, i) => {
    const place = `bodyPatterns[${i}]`;
    if (!isObject(pattern)) {
      ctx.refuse(place, `expected a matcher object, got ${shown(pattern)}`);
      return;
    }
    convertBodyPattern(place, pattern, conditions, ctx, inPart);
  });
}

/** One matcher of `bodyPatterns` into `conditions` (`inPart`: the body of a multipart part). */
function convertBodyPattern(
  place: string,
  pattern: Record<string, unknown>,
  conditions: Record<string, unknown>,
  ctx: Context,
  inPart: boolean,
): void {
  if (pattern.equalToJson !== undefined) {
    const json = equalToJson(place, pattern, ctx);
    if (json === undefined) return;
    if (conditions.json !== undefined || conditions.json_equals !== undefined) {
      ctx.refuse(`${place} equalToJson`, "stubtool takes one json pattern per stub");
    }
    Object.assign(conditions, json);
    return;
  }
  if (pattern.equalToXml !== undefined || pattern.matchesXPath !== undefined) {
    convertXmlPattern(place, pattern, conditions, ctx);
    return;
  }
  if (pattern.matchesJsonPath !== undefined) {
    convertJsonPathPattern(place, pattern, conditions, ctx);
    return;
  }
  const keys = Object.keys(pattern);
  if (
    keys.length === 1 && keys[0] === "contains" && typeof pattern.contains === "string" &&
    conditions.body_contains === undefined
  ) {
    conditions.body_contains = pattern.contains;
    return;
  }
  if (keys.includes("binaryEqualTo")) {
    convertBinaryEqualTo(place, pattern, conditions, ctx, inPart);
    return;
  }
  // equalTo (+ caseInsensitive), contains, doesNotContain, matches, doesNotMatch, absent, and, or:
  // a value pattern on the whole body text; several patterns must all hold.
  const value = valuePattern(place, pattern, ctx, "bodyPatterns");
  if (value === undefined) return;
  if (conditions.body === undefined) conditions.body = value;
  else {
    const all = isObject(conditions.body) && Array.isArray(conditions.body.all)
      ? conditions.body.all
      : [conditions.body];
    conditions.body = { all: [...all, ...(isObject(value) && Array.isArray(value.all) ? value.all : [value])] };
  }
}

/** `matchesJsonPath` as a `json_path` entry (one condition per expression). */
function convertJsonPathPattern(
  place: string,
  pattern: Record<string, unknown>,
  conditions: Record<string, unknown>,
  ctx: Context,
): void {
  const found = jsonPathCondition(place, pattern, ctx);
  if (found === undefined) return;
  const paths = (conditions.json_path ??= {}) as Record<string, unknown>;
  if (Object.hasOwn(paths, found[0])) {
    ctx.refuse(
      `${place} matchesJsonPath`,
      "the same expression twice: stubtool takes one condition per expression",
    );
  }
  paths[found[0]] = found[1];
}

/** `binaryEqualTo` as `body_base64` (one per stub; not inside a multipart part, read as text). */
function convertBinaryEqualTo(
  place: string,
  pattern: Record<string, unknown>,
  conditions: Record<string, unknown>,
  ctx: Context,
  inPart: boolean,
): void {
  // WireMock decodes it with Java's strict base64 decoder (no white space); the body's bytes must equal it.
  const text = pattern.binaryEqualTo;
  if (inPart) ctx.refuse(`${place} binaryEqualTo`, "stubtool's multipart conditions read a part as text");
  else if (
    Object.keys(pattern).length !== 1 || typeof text !== "string" ||
    !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)
  ) {
    ctx.refuse(`${place} binaryEqualTo`, `expected base64 text alone, got ${shown(pattern)}`);
  } else if (conditions.body_base64 !== undefined) {
    ctx.refuse(`${place} binaryEqualTo`, "two binaryEqualTo: stubtool takes one body_base64 per stub");
  } else conditions.body_base64 = text;
}

/** `equalToXml` as `xml_equals` (one per stub); `matchesXPath` as an `xpath` entry (one namespace map per stub). */
function convertXmlPattern(
  place: string,
  pattern: Record<string, unknown>,
  conditions: Record<string, unknown>,
  ctx: Context,
): void {
  const xml = {
    refuse: ctx.refuse,
    valuePattern: (p: string, m: Record<string, unknown>) => valuePattern(p, m, ctx, "bodyPatterns"),
  };
  if (pattern.equalToXml !== undefined) {
    const found = equalToXmlCondition(`${place} equalToXml`, pattern, xml);
    if (!found) return;
    if (conditions.xml_equals !== undefined) {
      ctx.refuse(`${place} equalToXml`, "stubtool takes one xml_equals per stub");
      return;
    }
    Object.assign(conditions, found);
    return;
  }
  const found = matchesXPathCondition(place, pattern, xml);
  if (!found) return;
  const [expression, check, namespaces] = found;
  const paths = (conditions.xpath ??= {}) as Record<string, unknown>;
  const before = conditions.xpath_namespaces as Record<string, string> | undefined;
  if (Object.keys(paths).length && JSON.stringify(before) !== JSON.stringify(namespaces)) {
    ctx.refuse(
      `${place} matchesXPath xPathNamespaces`,
      "stubtool reads every xpath of a stub with the same namespaces, and another pattern of this mapping has others",
    );
    return;
  }
  if (Object.hasOwn(paths, expression)) {
    ctx.refuse(`${place} matchesXPath`, "the same expression twice: stubtool takes one condition per expression");
    return;
  }
  paths[expression] = check;
  if (namespaces) conditions.xpath_namespaces = namespaces;
}

/**
 * `multipartPatterns` as `request.multipart`: WireMock reads the form fields of any
 * `multipart/*` body (parts with `Content-Disposition: form-data` and a name); `matchingType`
 * ALL needs every one to meet the pattern, ANY (the default) one; the part's `headers` and
 * `bodyPatterns` convert as the request's own (its body read as UTF-8 text). `name` is a label
 * WireMock does not match on.
 */
function convertMultipart(spec: unknown, conditions: Record<string, unknown>, ctx: Context): void {
  if (!Array.isArray(spec) || spec.length === 0) {
    ctx.refuse("multipartPatterns", `expected a list of part patterns, got ${shown(spec)}`);
    return;
  }
  const parts: Record<string, unknown>[] = [];
  spec.forEach((pattern, i) => {
    const place = `multipartPatterns[${i}]`;
    if (!isObject(pattern)) {
      ctx.refuse(place, `expected an object, got ${shown(pattern)}`);
      return;
    }
    const inner: Context = { ...ctx, refuse: (feature, why) => ctx.refuse(`${place}.${feature}`, why) };
    for (const key of Object.keys(pattern)) {
      if (!["name", "matchingType", "headers", "bodyPatterns"].includes(key)) {
        inner.refuse(key, "stubtool has no equivalent");
      }
    }
    const part: Record<string, unknown> = {};
    const type = pattern.matchingType;
    if (type === "ALL") part.match = "all";
    else if (type !== undefined && type !== "ANY") {
      inner.refuse("matchingType", `expected ALL or ANY, got ${shown(type)}`);
    }
    if (pattern.headers !== undefined) {
      const headers = fieldPatterns("headers", pattern.headers, inner);
      if (headers) {
        const lower: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(headers)) {
          if (Object.hasOwn(lower, name.toLowerCase())) {
            inner.refuse(`headers.${name}`, "the same header is listed twice (names differ only in case)");
          }
          lower[name.toLowerCase()] = value;
        }
        if (Object.keys(lower).length) part.headers = lower;
      }
    }
    if (Array.isArray(pattern.bodyPatterns)) {
      // A part always has a body (WireMock tests "" there, not null): its absent never matches.
      pattern.bodyPatterns.forEach((p, j) => {
        const absent = (m: unknown): boolean =>
          isObject(m) && (m.absent !== undefined || [m.and, m.or].some((l) => Array.isArray(l) && l.some(absent)));
        if (absent(p)) {
          inner.refuse(`bodyPatterns[${j}] absent`, "a part always has a body, which absent never matches");
        }
      });
    }
    if (pattern.bodyPatterns !== undefined) convertBodyPatterns(pattern.bodyPatterns, part, inner, true);
    parts.push(part);
  });
  conditions.multipart = parts;
}

/**
 * `matchesJsonPath` as a `json_path` entry: an expression alone (found, not null), or an
 * expression with a value matcher applied to what it finds.
 */
function jsonPathCondition(
  place: string,
  pattern: Record<string, unknown>,
  ctx: Context,
): [string, unknown] | undefined {
  const extra = Object.keys(pattern).filter((k) => k !== "matchesJsonPath");
  if (extra.length) {
    ctx.refuse(`${place} matchesJsonPath + ${extra.join(", ")}`, "expected matchesJsonPath alone");
    return undefined;
  }
  const spec = pattern.matchesJsonPath;
  const expression = typeof spec === "string" ? spec : isObject(spec) ? spec.expression : undefined;
  if (typeof expression !== "string" || !expression.trim().startsWith("$")) {
    ctx.refuse(`${place} matchesJsonPath`, `expected a JSONPath expression starting with $, got ${shown(expression)}`);
    return undefined;
  }
  try {
    evaluatePath({}, expression);
    evaluatePath([{}], expression);
  } catch {
    ctx.refuse(`${place} matchesJsonPath`, `stubtool does not read the expression ${shown(expression)}`);
    return undefined;
  }
  if (typeof spec === "string") return [expression, true];
  const { expression: _, ...matcher } = spec as Record<string, unknown>;
  if (matcher.equalToJson !== undefined) return jsonPathEquals(place, expression, matcher, ctx);
  if (Object.keys(matcher).length === 0) {
    ctx.refuse(
      `${place} matchesJsonPath ${Object.keys(matcher).join(" + ") || "{expression}"}`,
      "stubtool's json_path takes a value pattern (equalTo, contains, matches, absent, …)",
    );
    return undefined;
  }
  const value = valuePattern(`${place} matchesJsonPath`, matcher, ctx, "matchesJsonPath");
  return value === undefined ? undefined : [expression, value];
}

/**
 * `matchesJsonPath` with `equalToJson` (+ its flags and placeholders) as a `json_path` entry
 * `{json_equals, …}`: the one value the expression finds equals the document. An expression
 * that can find several values (a wildcard, filter or `..`) is refused.
 */
function jsonPathEquals(
  place: string,
  expression: string,
  matcher: Record<string, unknown>,
  ctx: Context,
): [string, unknown] | undefined {
  const feature = `${place} matchesJsonPath equalToJson`;
  if (!DEFINITE_PATH.test(expression)) {
    ctx.refuse(feature, `${shown(expression)} can find several values; stubtool compares one ($.a.b, $['a'][0])`);
    return undefined;
  }
  const json = equalToJson(`${place} matchesJsonPath`, matcher, ctx);
  if (json === undefined) return undefined;
  const value = json.json_equals ?? json.json;
  if (!isObject(value) && !Array.isArray(value)) {
    ctx.refuse(feature, "the expected document is not an object or a list (WireMock compares a found scalar as text)");
    return undefined;
  }
  if (json.json_equals !== undefined) return [expression, json];
  // The json pattern form stands for json_equals with WireMock's flags.
  const ignore = [
    ...(matcher.ignoreArrayOrder === true ? ["array_order"] : []),
    ...(matcher.ignoreExtraElements === true ? ["extra_fields", "extra_items"] : []),
  ];
  return [expression, ignore.length ? { json_equals: value, json_ignore: ignore } : { json_equals: value }];
}

/**
 * `equalToJson` as a `json` pattern where stubtool's rule (objects: listed keys, others
 * allowed; arrays: same length, element by element; numbers by value) means the same
 * thing (`ignoreExtraElements` without arrays), else as `json_equals` with `json_ignore`
 * for WireMock's flags (`ignoreExtraElements` also ignores extra array items).
 */
function equalToJson(
  place: string,
  pattern: Record<string, unknown>,
  ctx: Context,
): Record<string, unknown> | undefined {
  for (const key of Object.keys(pattern)) {
    if (!["equalToJson", "ignoreExtraElements", "ignoreArrayOrder"].includes(key)) {
      ctx.refuse(`${place} equalToJson ${key}`, "stubtool has no equivalent");
      return undefined;
    }
  }
  let value = pattern.equalToJson;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      ctx.refuse(`${place} equalToJson`, "the expected document is not valid JSON");
      return undefined;
    }
  }
  const placeholders = jsonUnitPlaceholders(place, value, ctx);
  if (placeholders === undefined) return undefined;
  value = placeholders.value;
  const extra = pattern.ignoreExtraElements === true;
  const order = pattern.ignoreArrayOrder === true;
  // The readable (and indexed) json pattern, where it means the same: no {name} text, no
  // array WireMock would match out of order or with extra items, no object a strict match closes.
  const arrays = contains(value, Array.isArray);
  const placeholder = contains(value, (v) => typeof v === "string" && HAS_PLACEHOLDER.test(v));
  if (placeholders.found) {
    const ignore = [...(order ? ["array_order"] : []), ...(extra ? ["extra_fields", "extra_items"] : [])];
    return { json_equals: value, ...(ignore.length ? { json_ignore: ignore } : {}), json_placeholders: true };
  }
  if (!placeholder && !(order && arrays) && (extra ? !arrays : !contains(value, isObject))) return { json: value };
  const ignore = [...(order ? ["array_order"] : []), ...(extra ? ["extra_fields", "extra_items"] : [])];
  return ignore.length ? { json_equals: value, json_ignore: ignore } : { json_equals: value };
}

/** The JsonUnit placeholders stubtool's `json_placeholders` reads; `${json-unit.regex}` is followed by a regex. */
const JSON_UNIT = /^\$\{json-unit\.(any-string|any-number|any-boolean|ignore|regex)\}/;

/**
 * `${json-unit.…}` strings in an `equalToJson` document (WireMock reads them as JsonUnit
 * placeholders): the document with each `${json-unit.regex}` Java regex made a JavaScript
 * one, and whether there were any; undefined (refused) for a placeholder stubtool does not read.
 */
function jsonUnitPlaceholders(
  place: string,
  value: unknown,
  ctx: Context,
): { value: unknown; found: boolean } | undefined {
  let found = false, ok = true;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string" && v.includes("${json-unit.")) {
      const m = JSON_UNIT.exec(v);
      if (!m || (m[1] !== "regex" && v !== m[0])) {
        ctx.refuse(
          `${place} equalToJson ${shown(v)}`,
          "stubtool reads the placeholders ${json-unit.any-string}, any-number, any-boolean, ignore and regex",
        );
        ok = false;
        return v;
      }
      found = true;
      if (m[1] !== "regex") return v;
      // JsonUnit compiles the regex without DOTALL.
      const js = javaRegexToJs(v.slice(m[0].length), false);
      if ("problem" in js) {
        ctx.refuse(`${place} equalToJson ${shown(v)}`, `the Java pattern uses ${js.problem}`);
        ok = false;
        return v;
      }
      return m[0] + js.source;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(value);
  return ok ? { value: out, found } : undefined;
}

/** Whether `test` holds for the value or anything nested in it. */
function contains(value: unknown, test: (v: unknown) => boolean): boolean {
  if (test(value)) return true;
  if (Array.isArray(value)) return value.some((v) => contains(v, test));
  if (isObject(value)) return Object.values(value).some((v) => contains(v, test));
  return false;
}

// ---------------------------------------------------------------- response

const RESPONSE_KEYS = new Set([
  "status",
  "headers",
  "body",
  "jsonBody",
  "base64Body",
  "bodyFileName",
  "fixedDelayMilliseconds",
  "delayDistribution",
  "proxyBaseUrl",
  "transformers",
  "statusMessage",
  "fault",
  "chunkedDribbleDelay",
  "transformerParameters",
  // A proxy's options (ignored by WireMock without proxyBaseUrl).
  "proxyUrlPrefixToRemove",
  "additionalProxyRequestHeaders",
  "removeProxyRequestHeaders",
]);

const UTF8 = new TextEncoder();

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function convertResponse(response: unknown, route: Record<string, unknown>, template: boolean, ctx: Context): void {
  if (response === undefined) response = {};
  if (!isObject(response)) {
    ctx.refuse("response", `expected an object, got ${shown(response)}`);
    return;
  }
  refuseResponseKeys(response, ctx);
  if (response.fault !== undefined) {
    // WireMock's fault ignores the mapping's status, headers, body and delays: the stub is the fault alone.
    const fault = typeof response.fault === "string" ? WIREMOCK_FAULTS[response.fault] : undefined;
    if (fault === undefined) ctx.refuse(`fault ${shown(response.fault)}`, "WireMock has no such fault");
    else route.fault = fault;
    return;
  }
  convertStatus(response, route, ctx);
  const headers = convertHeaders(response.headers, template, ctx);
  if (response.proxyBaseUrl !== undefined) convertProxy(response, route, headers, template, ctx);
  else if (headers) route.headers = headers;
  convertBody(response, route, headers, template, ctx);
  // WireMock sends no content type when the mapping sets none; stubtool would add one (JSON,
  // a file's by its extension, application/octet-stream for bytes).
  const body = ["body", "body_file", "body_base64"].some((k) => route[k] !== undefined);
  if (body && route.proxy === undefined && contentTypeOf(headers) === undefined) {
    route.headers = { ...headers, "content-type": null };
    // The body after the headers, as a person writes them.
    for (const key of ["body", "body_file", "body_base64"]) {
      if (route[key] === undefined) continue;
      const value = route[key];
      delete route[key];
      route[key] = value;
    }
  }
  convertDelay(response, route, ctx);
  convertDribble(response.chunkedDribbleDelay, route, ctx);
  if (template) route.template = true;
  if (template && response.transformerParameters !== undefined) convertParameters(response, route, ctx);
  if (template) {
    // WireMock 3's xPath / soapXPath helpers in the body and header values.
    const texts: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === "string") texts.push(value);
      else if (Array.isArray(value)) value.forEach(collect);
      else if (isObject(value)) Object.values(value).forEach(collect);
    };
    collect([response.body, response.jsonBody, response.headers]);
    for (const { feature, problem } of texts.flatMap(xPathHelperProblems)) ctx.refuse(feature, problem);
  }
}

/**
 * `transformerParameters` (read by WireMock's templates as `parameters.NAME`) as
 * `template_parameters`. Numbers must print as Java prints them (Jackson reads them as Integer,
 * Long or Double): whole numbers written without a fraction, and short decimals.
 */
function convertParameters(response: Record<string, unknown>, route: Record<string, unknown>, ctx: Context): void {
  const parameters = response.transformerParameters;
  if (!isObject(parameters)) {
    ctx.refuse("transformerParameters", `expected an object, got ${shown(parameters)}`);
    return;
  }
  if (contains(parameters, javaPrintsOtherwise) || (ctx.decimals && contains(parameters, Number.isInteger))) {
    ctx.refuse(
      "transformerParameters (numbers)",
      "Java prints this number differently from JavaScript (a large whole number, a decimal in E notation, or 1.0)",
    );
    return;
  }
  route.template_parameters = parameters;
}

/** Response keys stubtool has no equivalent for, each refused with the reason. */
function refuseResponseKeys(response: Record<string, unknown>, ctx: Context): void {
  for (const key of Object.keys(response)) {
    if (RESPONSE_KEYS.has(key)) continue;
    ctx.refuse(`response.${key}`, "stubtool has no equivalent");
  }
}

/** `status` (a whole number, or one written as text) and `statusMessage` (the reason phrase). */
function convertStatus(response: Record<string, unknown>, route: Record<string, unknown>, ctx: Context): void {
  if (response.statusMessage !== undefined) {
    if (typeof response.statusMessage !== "string") {
      ctx.refuse("statusMessage", `expected text, got ${shown(response.statusMessage)}`);
    } else route.status_message = response.statusMessage;
  }
  if (response.status === undefined) return;
  const status = typeof response.status === "string" && /^\d+$/.test(response.status)
    ? Number(response.status)
    : response.status;
  if (typeof status !== "number" || !Number.isInteger(status)) {
    ctx.refuse("status", `expected a whole number, got ${shown(response.status)}`);
  } else route.status = status;
}

/**
 * `proxyBaseUrl` (+ `proxyUrlPrefixToRemove`, `additionalProxyRequestHeaders`,
 * `removeProxyRequestHeaders`): a stubtool proxy with `proxy_request`; the mapping's `headers`
 * are added to the upstream's answer and its `status` ignored, as WireMock does.
 */
function convertProxy(
  response: Record<string, unknown>,
  route: Record<string, unknown>,
  headers: Record<string, string | string[]> | undefined,
  template: boolean,
  ctx: Context,
): void {
  if (typeof response.proxyBaseUrl !== "string") {
    ctx.refuse("proxyBaseUrl", `expected a URL, got ${shown(response.proxyBaseUrl)}`);
  } else route.proxy = response.proxyBaseUrl;
  const beside = ["body", "jsonBody", "base64Body", "bodyFileName"].filter((k) => response[k] !== undefined);
  if (beside.length) {
    ctx.refuse(`proxyBaseUrl + ${beside.join(", ")}`, "a stubtool proxy passes the upstream's body on unchanged");
  }
  if (template) ctx.refuse("proxyBaseUrl (template)", "a stubtool proxy stub is not a template");
  delete route.status;
  delete route.status_message;
  if (headers && Object.keys(headers).length) route.headers = headers;
  const request: Record<string, unknown> = {};
  const prefix = response.proxyUrlPrefixToRemove;
  if (prefix !== undefined) {
    if (typeof prefix !== "string" || !prefix.startsWith("/")) {
      ctx.refuse("proxyUrlPrefixToRemove", `expected a path starting with /, got ${shown(prefix)}`);
    } else request.strip_prefix = prefix;
  }
  const added = response.additionalProxyRequestHeaders;
  if (added !== undefined) {
    if (!isObject(added) || Object.values(added).some((v) => typeof v !== "string")) {
      ctx.refuse("additionalProxyRequestHeaders", `expected name → text, got ${shown(added)}`);
    } else if (Object.keys(added).length) request.add_headers = added;
  }
  const removed = response.removeProxyRequestHeaders;
  if (removed !== undefined) {
    if (!Array.isArray(removed) || removed.some((v) => typeof v !== "string")) {
      ctx.refuse("removeProxyRequestHeaders", `expected a list of header names, got ${shown(removed)}`);
    } else {
      // WireMock compares the listed names with the request's names lower-cased: a name written
      // with a capital letter removes nothing.
      const lower = removed.filter((name) => name === name.toLowerCase());
      if (lower.length) request.remove_headers = lower;
    }
  }
  if (Object.keys(request).length) route.proxy_request = request;
}

/** WireMock's faults and the stubtool fault that sends the same bytes. */
const WIREMOCK_FAULTS: Record<string, string> = {
  CONNECTION_RESET_BY_PEER: "reset",
  EMPTY_RESPONSE: "empty",
  MALFORMED_RESPONSE_CHUNK: "malformed_chunk",
  RANDOM_DATA_THEN_CLOSE: "random_then_close",
};

/** `chunkedDribbleDelay: {numberOfChunks, totalDuration}` as `dribble: {chunks, ms}`. */
function convertDribble(spec: unknown, route: Record<string, unknown>, ctx: Context): void {
  if (spec === undefined) return;
  const whole = (v: unknown, min: number) => typeof v === "number" && Number.isInteger(v) && v >= min;
  if (!isObject(spec) || !whole(spec.numberOfChunks, 1) || !whole(spec.totalDuration, 0)) {
    ctx.refuse("chunkedDribbleDelay", `expected {numberOfChunks, totalDuration} as whole numbers, got ${shown(spec)}`);
    return;
  }
  route.dribble = { chunks: spec.numberOfChunks, ms: spec.totalDuration };
}

/** Response headers: multi-valued ones as lists; values that stubtool would change are refused. */
function convertHeaders(spec: unknown, template: boolean, ctx: Context): Record<string, string | string[]> | undefined {
  if (spec === undefined) return undefined;
  if (!isObject(spec)) {
    ctx.refuse("response.headers", `expected an object, got ${shown(spec)}`);
    return undefined;
  }
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(spec)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v !== "string")) {
      ctx.refuse(`response.headers.${name}`, `expected text or a list of text, got ${shown(value)}`);
      continue;
    }
    const lower = name.toLowerCase();
    if (["content-length", "transfer-encoding", "connection"].includes(lower)) {
      ctx.refuse(`response.headers.${name}`, "stubtool's server sets this header itself");
      continue;
    }
    if (lower === "content-type" && values.length !== 1) {
      ctx.refuse(`response.headers.${name}`, "stubtool sends one content type");
      continue;
    }
    if (!template && values.some((v) => HAS_PLACEHOLDER.test(v as string))) {
      ctx.refuse(`response.headers.${name}`, "the value holds {name}, which stubtool fills with a capture");
      continue;
    }
    out[name] = Array.isArray(value) ? value as string[] : value as string;
  }
  return out;
}

function contentTypeOf(headers: Record<string, string | string[]> | undefined): string | undefined {
  for (const name in headers) {
    if (name.toLowerCase() === "content-type") return headers[name] as string;
  }
  return undefined;
}

function convertBody(
  response: Record<string, unknown>,
  route: Record<string, unknown>,
  headers: Record<string, string | string[]> | undefined,
  template: boolean,
  ctx: Context,
): void {
  const kinds = ["body", "jsonBody", "base64Body", "bodyFileName"].filter((k) => response[k] !== undefined);
  if (kinds.length > 1) {
    ctx.refuse(kinds.join(" + "), "a mapping with more than one body is not reproduced");
    return;
  }
  const kind = kinds[0];
  if (kind === undefined) return;
  const value = response[kind];
  const contentType = contentTypeOf(headers);
  if (kind === "bodyFileName") return convertBodyFile(value, route, ctx);
  if (kind === "base64Body") {
    if (typeof value !== "string") ctx.refuse("base64Body", `expected base64 text, got ${shown(value)}`);
    else if (template) ctx.refuse("base64Body (template)", "a binary body is not rendered as a template by stubtool");
    else if (value !== "") route.body_base64 = value;
    return;
  }
  let text: string;
  if (kind === "body") {
    if (typeof value !== "string") {
      ctx.refuse("body", `expected text, got ${shown(value)}`);
      return;
    }
    text = value;
  } else {
    const kept = isObject(ctx.kept) && isObject(ctx.kept.response) ? ctx.kept.response.jsonBody : undefined;
    const json = kept === undefined ? jacksonJson(value, ctx.decimals) : keptJson(kept);
    if ("problem" in json) {
      ctx.refuse(`jsonBody (${json.feature})`, json.problem);
      return;
    }
    // stubtool writes a JSON body compactly too: keep it readable when the bytes agree.
    if (
      !template && contentType !== undefined && isJsonMediaType(contentType) &&
      json.text === JSON.stringify(value) && !contains(value, (v) => typeof v === "string" && HAS_PLACEHOLDER.test(v))
    ) {
      route.body = value;
      return;
    }
    text = json.text;
  }
  textBody(text, contentType, route, template, ctx);
}

/** `bodyFileName`: a file under `__files/`, listed in `ctx.files`. */
function convertBodyFile(value: unknown, route: Record<string, unknown>, ctx: Context): void {
  if (typeof value !== "string" || value === "") {
    ctx.refuse("bodyFileName", `expected a file name, got ${shown(value)}`);
  } else if (value.includes("{{")) {
    ctx.refuse("bodyFileName (template)", "stubtool's body_file is a fixed path");
  } else {
    const name = `__files/${value.replace(/\\/g, "/").replace(/^\/+/, "")}`;
    route.body_file = name;
    ctx.files.push({ name, source: value });
  }
}

/** A text body (from `body` or `jsonBody`) as stubtool sends the same bytes: as text, through a file, or as base64. */
function textBody(
  text: string,
  contentType: string | undefined,
  route: Record<string, unknown>,
  template: boolean,
  ctx: Context,
): void {
  if (text === "") return;
  const asText = contentType === undefined || !isJsonMediaType(contentType);
  if (template) {
    // A template renders a string body as text unless the content type is JSON (it would be
    // rendered as one JSON string): that body goes through a file, whose text is the template.
    if (asText) route.body = text;
    else {
      route.body_file = ctx.generatedName;
      ctx.files.push({ name: ctx.generatedName, bytes: UTF8.encode(text) });
    }
    return;
  }
  // Text is sent as written under a non-JSON content type or none (`content-type: null`);
  // anything else goes as its bytes.
  if (asText && !HAS_PLACEHOLDER.test(text)) route.body = text;
  else route.body_base64 = base64(UTF8.encode(text));
}

/**
 * The bytes WireMock (Jackson) writes for a `jsonBody`: compact, characters outside the
 * Basic Multilingual Plane as `\uXXXX\uXXXX`. Numbers agree with JavaScript's only when
 * written as whole numbers within 2^53 or as short decimals of moderate size.
 */
function jacksonJson(
  value: unknown,
  decimals: boolean,
): { text: string } | { feature: string; problem: string } {
  if (contains(value, javaPrintsOtherwise)) {
    return {
      feature: "numbers",
      problem: "Java writes this number differently from JavaScript (a large whole number, or a decimal in E notation)",
    };
  }
  if (decimals && contains(value, (v) => typeof v === "number" && Number.isInteger(v))) {
    return {
      feature: "numbers",
      problem: "the file writes a whole number as a decimal (1.0, 1e3), which WireMock sends back as 1.0",
    };
  }
  return { text: escapeSupplementary(JSON.stringify(value)) };
}

/** Whether Java (Jackson, `Double.toString`) writes this number otherwise than JavaScript. */
function javaPrintsOtherwise(v: unknown): boolean {
  return typeof v === "number" &&
    (Number.isInteger(v)
      ? !Number.isSafeInteger(v)
      : Math.abs(v) < 1e-3 || Math.abs(v) >= 1e7 || String(v).replace(/^-?0?\.?|\.|e.*$/g, "").length > 15);
}

/** A `jsonBody` parsed again with its numbers as written, in WireMock's bytes. */
function keptJson(kept: unknown): { text: string } | { feature: string; problem: string } {
  const text = javaJsonText(kept);
  if (text !== undefined) return { text };
  return {
    feature: "numbers",
    problem: "a number's plain form is over 1,000 digits, or a zero with an exponent (0e3)",
  };
}

/** Whether a JSON text writes an integral number with a fraction or an exponent (`1.0`, `1e3`). */
export function hasIntegralDecimal(text: string): boolean {
  // Strings cannot hide a number from this scan: they are skipped whole.
  for (const m of text.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    const token = m[0];
    if (token.startsWith('"') || !/[.eE]/.test(token)) continue;
    if (Number.isInteger(Number(token))) return true;
  }
  return false;
}

/**
 * `fixedDelayMilliseconds` and `delayDistribution` as one `delay`. WireMock adds the two: a
 * uniform range moves by the fixed delay, a lognormal gets it as `plus`. A lognormal's
 * `maxValue` (WireMock 3: a draw above it is drawn again, ten times at most, then capped) is `max`.
 */
function convertDelay(response: Record<string, unknown>, route: Record<string, unknown>, ctx: Context): void {
  const fixed = response.fixedDelayMilliseconds;
  const distribution = response.delayDistribution;
  let plus = 0;
  if (fixed !== undefined) {
    if (typeof fixed !== "number" || !Number.isInteger(fixed) || fixed < 0) {
      ctx.refuse("fixedDelayMilliseconds", `expected a whole number of milliseconds, got ${shown(fixed)}`);
      return;
    }
    plus = fixed;
    if (distribution === undefined && fixed > 0) route.delay = fixed;
  }
  if (distribution === undefined) return;
  if (
    isObject(distribution) && distribution.type === "uniform" && Number.isInteger(distribution.lower) &&
    Number.isInteger(distribution.upper) && (distribution.lower as number) >= 0 &&
    (distribution.upper as number) >= (distribution.lower as number)
  ) {
    route.delay = { min: (distribution.lower as number) + plus, max: (distribution.upper as number) + plus };
  } else if (
    isObject(distribution) && distribution.type === "lognormal" && typeof distribution.median === "number" &&
    distribution.median >= 0 && typeof distribution.sigma === "number" && distribution.sigma >= 0 &&
    (distribution.maxValue === undefined ||
      (typeof distribution.maxValue === "number" && distribution.maxValue >= distribution.median))
  ) {
    const delay: Record<string, number> = { median: distribution.median, sigma: distribution.sigma };
    if (distribution.maxValue !== undefined) delay.max = distribution.maxValue as number;
    if (plus > 0) delay.plus = plus;
    route.delay = delay;
  } else {
    const type = isObject(distribution) ? String(distribution.type) : shown(distribution);
    ctx.refuse(
      `delayDistribution ${type}`,
      isObject(distribution) && distribution.maxValue !== undefined
        ? "a maxValue must be a number not below the median (WireMock refuses the mapping too)"
        : "stubtool draws a delay uniformly between min and max, or lognormal from median and sigma",
    );
  }
}

// ---------------------------------------------------------------- webhooks

/** `serveEventListeners` / `postServeActions` webhooks as stubtool `callbacks`. */
function convertListeners(key: string, spec: unknown, template: boolean, ctx: Context): unknown[] | undefined {
  if (!Array.isArray(spec)) {
    ctx.refuse(key, `expected a list, got ${shown(spec)}`);
    return undefined;
  }
  const out: unknown[] = [];
  spec.forEach((listener, i) => {
    const place = `${key}[${i}]`;
    if (!isObject(listener) || listener.name !== "webhook" || !isObject(listener.parameters)) {
      ctx.refuse(`${place} ${isObject(listener) ? String(listener.name) : shown(listener)}`, "only webhooks convert");
      return;
    }
    const extra = Object.keys(listener).filter((k) => k !== "name" && k !== "parameters");
    if (extra.length) ctx.refuse(`${place} ${extra.join(", ")}`, "stubtool callbacks run after every answer");
    const p = listener.parameters;
    const callback: Record<string, unknown> = {};
    for (const k of Object.keys(p)) {
      if (!["method", "url", "headers", "body", "delay"].includes(k)) {
        ctx.refuse(`${place} ${k}`, "stubtool callbacks have no equivalent");
      }
    }
    if (typeof p.method !== "string" || typeof p.url !== "string") {
      ctx.refuse(`${place} method/url`, "a webhook needs a method and a url as text");
      return;
    }
    callback.method = p.method.toUpperCase();
    callback.url = p.url;
    if (p.headers !== undefined) {
      if (!isObject(p.headers) || Object.values(p.headers).some((v) => typeof v !== "string")) {
        ctx.refuse(`${place} headers`, "expected name → text");
      } else callback.headers = p.headers;
    }
    if (p.body !== undefined) {
      if (typeof p.body !== "string") ctx.refuse(`${place} body`, "expected text");
      else callback.body = p.body;
    }
    if (p.delay !== undefined) {
      const d = p.delay;
      if (isObject(d) && d.type === "fixed" && Number.isInteger(d.milliseconds) && (d.milliseconds as number) >= 0) {
        callback.delay_ms = d.milliseconds;
      } else ctx.refuse(`${place} delay`, "only a fixed webhook delay converts");
    }
    // WireMock always renders webhook fields as templates; stubtool does so in template stubs only,
    // and elsewhere fills {name} captures.
    const strings = [callback.url, callback.body, ...Object.values(callback.headers ?? {})].filter((s) =>
      typeof s === "string"
    ) as string[];
    if (!template && strings.some((s) => s.includes("{{") || HAS_PLACEHOLDER.test(s))) {
      ctx.refuse(
        `${place} (template)`,
        "WireMock renders webhook fields as templates; add the response-template transformer to the mapping",
      );
      return;
    }
    out.push(callback);
  });
  return out;
}
