/**
 * A stub's request conditions as the router checks them: required
 * query parameters, headers, a JSON body pattern, form fields and a body text. Each one
 * says how much it weighs in precedence, whether it reads the body, which literals the
 * router may index on, and why a request fails it.
 * @module
 */

import type { JsonPathEquals, MultipartMatch, RequestMatch } from "../../stubs/model.ts";
import { evaluatePath, JsonPathWorkError } from "../../templating/jsonpath.ts";
import {
  compileValuePattern,
  equalJson,
  jsonKey,
  jsonLeaves,
  jsonLiterals,
  type JsonPattern,
  matchJson,
  matchMulti,
  type ValuePattern,
  wants,
} from "../../stubs/patterns.ts";
import { quoteValue } from "../../stubs/quote.ts";
import { equalXml, equalXmlNode, type XmlEquals } from "../../stubs/xml_equal.ts";
import { evaluateXPath, nodeText, type XPathExpression } from "../../templating/xpath.ts";
import type { XPathCheck } from "../../stubs/model.ts";
import type { XmlNode } from "../../templating/xml.ts";
import type { Condition, Dimension } from "./router.ts";
import { BodyView, MAX_JSON_DEPTH, type QueryParams, RequestView } from "../request_view.ts";
import { formFieldName, type MultipartPart } from "../../util/multipart.ts";

/** A condition with the capture names it fills, in order. */
export interface NamedCondition extends Condition {
  /** The names of the values {@link Condition.test} pushes, in order. */
  readonly names: readonly string[];
}

const dimensions = new Map<string, Dimension>();

/** One shared {@link Dimension} per id, so the router groups stubs on it. */
function dimension(id: string, needsBody: boolean, keys: (view: RequestView) => readonly string[]): Dimension {
  let found = dimensions.get(id);
  if (!found) dimensions.set(id, found = { id, needsBody, keys });
  return found;
}

const NO_KEYS: readonly string[] = [];

function queryDimension(name: string): Dimension {
  return dimension(`q ${name}`, false, (view) => view.query.all(name) ?? NO_KEYS);
}

function headerDimension(name: string): Dimension {
  // A header sent on several lines is looked up by each line (a literal matches one line).
  return dimension(`h ${name}`, false, (view) => {
    const value = view.header(name);
    return value === null ? NO_KEYS : view.repeatedHeader(name) ?? [value];
  });
}

function formDimension(name: string): Dimension {
  return dimension(`f ${name}`, true, (view) => view.body?.form()?.all(name) ?? NO_KEYS);
}

function jsonDimension(pointer: string): Dimension {
  // The pointer split once, not on every request (this runs for each request the index sees).
  const steps = pointer === ""
    ? []
    : pointer.slice(1).split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  return dimension(`j ${pointer}`, true, (view) => {
    const parsed = view.body?.json();
    if (!parsed) return NO_KEYS;
    let leaf = parsed.value;
    for (let i = 0; i < steps.length; i++) {
      if (typeof leaf !== "object" || leaf === null || !Object.hasOwn(leaf, steps[i])) return NO_KEYS;
      leaf = (leaf as Record<string, unknown>)[steps[i]];
    }
    return [jsonKey(leaf)];
  });
}

const NONE: readonly never[] = [];

const queryStringDimension = dimension("qs", false, (view) => [view.rawQuery]);

/**
 * A condition on the values of a name in a list of fields (query parameters, form fields):
 * a literal matches when any value equals it; a pattern takes the first value it matches.
 */
function fieldCondition(
  what: (name: string) => string,
  name: string,
  pattern: ValuePattern,
  fields: (view: RequestView) => QueryParams | null,
  dim: Dimension,
  needsBody: boolean,
  missing: (name: string) => string,
): NamedCondition {
  const literals = pattern.literal !== undefined ? [{ dimension: dim, key: pattern.literal }] : NONE;
  return {
    weight: 1,
    needsBody,
    literals,
    names: pattern.names,
    test(view, values, raw) {
      const params = fields(view);
      const given = params?.all(name);
      if (pattern.absent) return given === undefined;
      if (given === undefined) return pattern.missingMatches === true;
      if (pattern.multi) return matchMulti(pattern.multi, given);
      if (pattern.literal !== undefined) return given.includes(pattern.literal);
      for (let i = 0; i < given.length; i++) {
        const found = pattern.match(given[i]);
        if (!found) continue;
        if (pattern.anyValue) {
          values.push(given[i]);
          raw.push(params!.raw(name, i));
        } else {
          for (const value of found) {
            values.push(value);
            raw.push(encodeURIComponent(value));
          }
        }
        return true;
      }
      return false;
    },
    reason(view) {
      const given = fields(view)?.all(name);
      if (pattern.absent) return `${what(name)} must be absent`;
      if (given === undefined) return missing(name);
      if (pattern.multi) {
        return `${what(name)} has ${given.map(quoteValue).join(", ")}, stub wants ${wants(pattern)}`;
      }
      const got = given.length === 1 ? quoteValue(given[0]) : `${quoteValue(given[0])} (and ${given.length - 1} more)`;
      return `${what(name)} is ${got}, stub wants ${wants(pattern)}`;
    },
  };
}

function queryCondition(name: string, pattern: ValuePattern): NamedCondition {
  return fieldCondition(
    (n) => `query parameter '${n}'`,
    name,
    pattern,
    (view) => view.query,
    queryDimension(name),
    false,
    (n) => `missing query parameter '${n}'`,
  );
}

function formCondition(name: string, pattern: ValuePattern): NamedCondition {
  const condition = fieldCondition(
    (n) => `form field '${n}'`,
    name,
    pattern,
    (view) => view.body?.form() ?? null,
    formDimension(name),
    true,
    (n) => `form field '${n}' is missing`,
  );
  return {
    ...condition,
    reason(view) {
      const body = view.body!;
      if (body.form() === null) return `body is not a form (content-type is ${quoteValue(body.contentType ?? "")})`;
      return condition.reason(view);
    },
  };
}

function headerCondition(name: string, pattern: ValuePattern): NamedCondition {
  const literals = pattern.literal !== undefined ? [{ dimension: headerDimension(name), key: pattern.literal }] : NONE;
  return {
    weight: 1,
    needsBody: false,
    readsHeaders: true,
    literals,
    names: pattern.names,
    test(view, values, raw) {
      // has_exactly / includes count the lines of a header sent more than once.
      if (pattern.multi) {
        const lines = view.headerValues(name);
        return lines !== null && matchMulti(pattern.multi, lines);
      }
      const value = view.header(name);
      if (pattern.absent) return value === null;
      if (value === null) return pattern.missingMatches === true;
      // A header sent on several lines matches when one line does (the first one fills the captures).
      const lines = view.repeatedHeader(name);
      if (lines === undefined) return take(pattern.match(value), values, raw);
      for (const line of lines) if (take(pattern.match(line), values, raw)) return true;
      return false;
    },
    reason(view) {
      const value = view.header(name);
      if (pattern.absent) return `header '${name}' must be absent`;
      if (value === null) return `missing header '${name}'`;
      const lines = pattern.multi ? view.headerValues(name) ?? [] : view.repeatedHeader(name);
      if (lines !== undefined) {
        return `header '${name}' has ${lines.map(quoteValue).join(", ")}${
          pattern.multi ? "" : ` (${lines.length} lines)`
        }, stub wants ${wants(pattern)}`;
      }
      return `header '${name}' is ${quoteValue(value)}, stub wants ${wants(pattern)}`;
    },
  };
}

/** Pushes what a match captured (a header's captures are the same as sent and decoded); false for no match. */
function take(found: string[] | undefined, values: string[], raw: string[]): boolean {
  if (!found) return false;
  for (const v of found) {
    values.push(v);
    raw.push(v);
  }
  return true;
}

/**
 * The cookies of a request: every `name=value` of its Cookie header(s), as Jetty reads them for
 * WireMock — pairs split on `;` (and on `, `, which joins two Cookie lines), name and value
 * trimmed, a value in double quotes without them, pieces without `=` and `$` attributes skipped.
 */
export function parseCookies(header: string | null): Map<string, string[]> {
  const cookies = new Map<string, string[]>();
  if (header === null) return cookies;
  let i = 0;
  while (i < header.length) {
    let end = i;
    let quoted = false;
    while (end < header.length) {
      const c = header[end];
      if (c === '"') quoted = !quoted;
      else if (!quoted && (c === ";" || (c === "," && header[end + 1] === " "))) break;
      end++;
    }
    const piece = header.slice(i, end);
    i = end + 1;
    const eq = piece.indexOf("=");
    if (eq < 0) continue;
    const name = piece.slice(0, eq).trim();
    let value = piece.slice(eq + 1).trim();
    if (name === "" || name.startsWith("$")) continue;
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    const list = cookies.get(name);
    if (list) list.push(value);
    else cookies.set(name, [value]);
  }
  return cookies;
}

/**
 * A cookie by name (case-sensitive): one of its values must match; a missing cookie meets
 * only `{absent: true}` (as in WireMock, where even the negations need the cookie).
 */
function cookieCondition(name: string, pattern: ValuePattern): NamedCondition {
  return {
    weight: 1,
    needsBody: false,
    readsHeaders: true,
    literals: NONE,
    names: pattern.names,
    test(view, values, raw) {
      const given = parseCookies(view.header("cookie")).get(name);
      if (pattern.absent) return given === undefined;
      if (given === undefined) return false;
      for (const value of given) {
        const found = pattern.match(value);
        if (!found) continue;
        for (const v of found) {
          values.push(v);
          raw.push(v);
        }
        return true;
      }
      return false;
    },
    reason(view) {
      const given = parseCookies(view.header("cookie")).get(name);
      if (pattern.absent) return `cookie '${name}' must be absent`;
      if (given === undefined) return `missing cookie '${name}'`;
      const got = given.length === 1 ? quoteValue(given[0]) : `${quoteValue(given[0])} (and ${given.length - 1} more)`;
      return `cookie '${name}' is ${got}, stub wants ${wants(pattern)}`;
    },
  };
}

function jsonCondition(pattern: JsonPattern, names: readonly string[]): NamedCondition {
  return {
    weight: jsonLeaves(pattern),
    needsBody: true,
    literals: jsonLiterals(pattern).map(([pointer, key]) => ({ dimension: jsonDimension(pointer), key })),
    names,
    test(view, values, raw) {
      const parsed = view.body!.json();
      if (!parsed) return false;
      const kept = values.length;
      if (matchJson(pattern, parsed.value, values) !== undefined) {
        values.length = kept;
        return false;
      }
      for (let i = kept; i < values.length; i++) raw.push(values[i]);
      return true;
    },
    reason(view) {
      const parsed = view.body!.json();
      if (!parsed) {
        return view.body!.tooDeep ? `body is nested deeper than ${MAX_JSON_DEPTH} levels` : "body is not JSON";
      }
      return matchJson(pattern, parsed.value, []) ?? "body does not match";
    },
  };
}

/** A condition on the body, from a check that says why it does not hold (undefined: it holds). */
function bodyCheck(check: (view: RequestView) => string | undefined): NamedCondition {
  return {
    weight: 1,
    needsBody: true,
    literals: NONE,
    names: NONE,
    test: (view) => check(view) === undefined,
    reason: (view) => check(view) ?? "body does not match",
  };
}

function containsCondition(text: string): NamedCondition {
  return {
    weight: 1,
    needsBody: true,
    literals: NONE,
    names: NONE,
    test: (view) => view.body!.text().includes(text),
    reason: () => `body does not contain ${quoteValue(text)}`,
  };
}

/** `body`: a value pattern on the whole body text; `{absent: true}` holds for an empty body. */
function bodyPatternCondition(pattern: ValuePattern): NamedCondition {
  return bodyCheck((view) => {
    const text = view.body!.text();
    if (pattern.absent) return text === "" ? undefined : "body must be empty";
    if (pattern.match(text) !== undefined) return undefined;
    return `body is ${quoteValue(text.length > 80 ? text.slice(0, 77) + "..." : text)}, stub wants ${wants(pattern)}`;
  });
}

/** `body_base64`: the body's bytes are exactly these (a body cut at the size limit is longer). */
function bodyBytesCondition(expected: Uint8Array): NamedCondition {
  return bodyCheck((view) => {
    const body = view.body!;
    const bytes = body.bytes;
    if (!body.complete || bytes.length !== expected.length) {
      return `body is ${
        body.complete ? "" : "over "
      }${bytes.length} bytes, stub wants exactly ${expected.length} (body_base64)`;
    }
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] !== expected[i]) return `body differs from body_base64 at byte ${i}`;
    }
    return undefined;
  });
}

/** `query_string`: the query as sent, exactly (indexed: many `url` stubs share a path and differ by query). */
function queryStringCondition(text: string): NamedCondition {
  return {
    weight: 1,
    needsBody: false,
    literals: [{ dimension: queryStringDimension, key: text }],
    names: NONE,
    test: (view) => view.rawQuery === text,
    reason(view) {
      if (text === "") return `query must be empty, is ${quoteValue(view.rawQuery)}`;
      if (view.rawQuery === "") return `query is empty, stub wants exactly ${quoteValue(text)}`;
      return `query is ${quoteValue(view.rawQuery)}, stub wants exactly ${quoteValue(text)}`;
    },
  };
}

/** `path_params`: a value pattern on the `segment`-th path segment as sent (the rest of the path for a catch-all). */
function pathParamCondition(segment: number, name: string, rest: boolean, pattern: ValuePattern): NamedCondition {
  const subject = (view: RequestView): string => {
    let start = 1;
    for (let i = 0; i < segment; i++) start = view.pathname.indexOf("/", start) + 1;
    const end = rest ? -1 : view.pathname.indexOf("/", start);
    return end === -1 ? view.pathname.slice(start) : view.pathname.slice(start, end);
  };
  return {
    weight: 1,
    needsBody: false,
    literals: NONE,
    names: NONE,
    test: (view) => pattern.match(subject(view)) !== undefined,
    reason: (view) => `path parameter '${name}' is ${quoteValue(subject(view))}, stub wants ${wants(pattern)}`,
  };
}

/** `path_regex` / `url_regex`: a regex on the path (and query) as sent; its named groups capture. */
function regexCondition(pattern: ValuePattern, withQuery: boolean): NamedCondition {
  const subject = (view: RequestView) =>
    withQuery && view.rawQuery !== "" ? `${view.pathname}?${view.rawQuery}` : view.pathname;
  return {
    weight: 1,
    needsBody: false,
    literals: NONE,
    names: pattern.names,
    test(view, values, raw) {
      const found = pattern.match(subject(view));
      if (!found) return false;
      for (const v of found) {
        values.push(v);
        raw.push(v);
      }
      return true;
    },
    reason: (view) =>
      `${withQuery ? "path and query" : "path"} ${quoteValue(subject(view))} ${
        withQuery ? "do" : "does"
      } not match the regex ${pattern.display.slice(1, -1)}`,
  };
}

function parsedBody(view: RequestView): { value: unknown } | string {
  const parsed = view.body!.json();
  if (parsed) return parsed;
  return view.body!.tooDeep ? `body is nested deeper than ${MAX_JSON_DEPTH} levels` : "body is not JSON";
}

/** `json_equals` (+ `json_ignore`): the body is this JSON document. */
function jsonEqualsCondition(spec: NonNullable<RequestMatch["jsonEquals"]>): NamedCondition {
  const relax = {
    extraFields: spec.ignore.includes("extra_fields"),
    extraItems: spec.ignore.includes("extra_items"),
    arrayOrder: spec.ignore.includes("array_order"),
  };
  const check = (view: RequestView) => {
    const parsed = parsedBody(view);
    return typeof parsed === "string" ? parsed : equalJson(spec.value, parsed.value, relax);
  };
  return bodyCheck(check);
}

/**
 * The JSONPath work one condition may do on one request body (as a template's budget): a deep scan (`..`) of a large,
 * deeply nested body is refused before it runs instead of holding the server.
 */
const CONDITION_JSONPATH_WORK = 1_000_000;

/**
 * What a JSONPath result offers a value pattern: strings as they are, other values as JSON text; null is nothing.
 * A path that would work past {@link CONDITION_JSONPATH_WORK} on this body gives the reason instead.
 */
function pathTexts(document: unknown, path: string): string[] | { tooMuch: string } {
  let result;
  try {
    result = evaluatePath(document, path, CONDITION_JSONPATH_WORK);
  } catch (error) {
    if (error instanceof JsonPathWorkError) {
      return { tooMuch: `body is too large to search with ${path}: ${error.message}` };
    }
    return [];
  }
  const values = result.kind === "none" ? [] : result.kind === "value" ? [result.value] : result.values;
  const out: string[] = [];
  for (const value of values) {
    if (value === null || value === undefined) continue;
    out.push(typeof value === "string" ? value : JSON.stringify(value));
  }
  return out;
}

/** A `json_path` entry's `json_equals`: the one value a definite path finds (not null) equals the document. */
function pathEquals(document: unknown, path: string, { jsonEquals }: JsonPathEquals): string | undefined {
  let result;
  try {
    result = evaluatePath(document, path, CONDITION_JSONPATH_WORK);
  } catch (error) {
    if (error instanceof JsonPathWorkError) return `body is too large to search with ${path}: ${error.message}`;
    return `body has nothing at ${path}`;
  }
  const value = result.kind === "value"
    ? result.value
    : result.kind === "list" && result.values.length === 1
    ? result.values[0]
    : undefined;
  if (value === null || value === undefined) return `body has nothing at ${path}`;
  const relax = {
    extraFields: jsonEquals.ignore.includes("extra_fields"),
    extraItems: jsonEquals.ignore.includes("extra_items"),
    arrayOrder: jsonEquals.ignore.includes("array_order"),
  };
  const reason = equalJson(jsonEquals.value, value, relax);
  return reason === undefined ? undefined : `at ${path}: ${reason}`;
}

/** One `json_path` entry: something found (not null), or a found value that matches the pattern. */
function jsonPathCondition(path: string, pattern: ValuePattern | "present" | JsonPathEquals): NamedCondition {
  const check = (view: RequestView): string | undefined => {
    const parsed = parsedBody(view);
    if (typeof parsed === "string") return parsed;
    if (typeof pattern === "object" && "jsonEquals" in pattern) return pathEquals(parsed.value, path, pattern);
    const texts = pathTexts(parsed.value, path);
    if (!Array.isArray(texts)) return texts.tooMuch;
    if (pattern === "present") return texts.length ? undefined : `body has nothing at ${path}`;
    if (pattern.absent) return texts.length ? `body has a value at ${path}, stub wants none` : undefined;
    if (texts.length === 0) return pattern.missingMatches ? undefined : `body has nothing at ${path}`;
    if (texts.some((t) => pattern.match(t) !== undefined)) return undefined;
    return `body at ${path} is ${quoteValue(texts[0])}${
      texts.length > 1 ? ` (and ${texts.length - 1} more)` : ""
    }, stub wants ${wants(pattern)}`;
  };
  return bodyCheck(check);
}

/** The body as XML, or the reason it is not (`body is not XML: …`). */
function xmlBody(view: RequestView): XmlNode | string {
  const parsed = view.body!.xml();
  return "doc" in parsed ? parsed.doc : `body ${parsed.problem}`;
}

/** `xml_equals`: the body is this XML document (WireMock's `equalToXml`). */
function xmlEqualsCondition(spec: XmlEquals): NamedCondition {
  return bodyCheck((view) => {
    const doc = xmlBody(view);
    return typeof doc === "string" ? doc : equalXml(spec, doc);
  });
}

/** One `xpath` entry: something found; or one value found that matches the pattern or equals the document. */
function xpathCondition(expression: XPathExpression, check: XPathCheck): NamedCondition {
  const { expression: text } = expression;
  return bodyCheck((view) => {
    const doc = xmlBody(view);
    if (typeof doc === "string") return doc;
    const found = evaluateXPath(expression, doc);
    if ("problem" in found) return `body ${found.problem}`;
    if ("value" in found) {
      if (check === "present") return undefined; // a number, text or boolean is always a result (as WireMock)
      if (typeof check === "object" && "xmlEquals" in check) {
        return `body at ${text} is ${quoteValue(found.value)}, stub wants an element`;
      }
      if (check.absent) return `body has a value at ${text}, stub wants none`;
      return check.match(found.value) !== undefined
        ? undefined
        : `body at ${text} is ${quoteValue(found.value)}, stub wants ${wants(check)}`;
    }
    const { nodes } = found;
    if (check !== "present" && "absent" in check && check.absent) {
      return nodes.length ? `body has a value at ${text}, stub wants none` : undefined;
    }
    if (nodes.length === 0) return `body has nothing at ${text}`;
    if (check === "present") return undefined;
    if ("xmlEquals" in check) {
      let first: string | undefined;
      for (const node of nodes) {
        const reason = equalXmlNode(check.xmlEquals, node);
        if (reason === undefined) return undefined;
        first ??= reason;
      }
      return `at ${text}: ${first}`;
    }
    const texts = nodes.map(nodeText);
    if (texts.some((t) => check.match(t) !== undefined)) return undefined;
    return `body at ${text} is ${quoteValue(texts[0])}${
      texts.length > 1 ? ` (and ${texts.length - 1} more)` : ""
    }, stub wants ${wants(check)}`;
  });
}

/** Each form field of a multipart body as a request of its own (its headers, its body), made once per part. */
const partViews = new WeakMap<MultipartPart, RequestView>();

function partView(part: MultipartPart): RequestView {
  let view = partViews.get(part);
  if (view) return view;
  const header = (name: string): string | null => {
    const values = part.headers.filter(([n]) => n === name).map(([, v]) => v);
    return values.length ? values.join(", ") : null;
  };
  const lines = part.headers.flatMap(([n, v]) => [n, v]);
  view = new RequestView({ header, headerLines: () => lines }, "POST", "/", "");
  view.body = new BodyView(part.body, true, header("content-type"));
  partViews.set(part, view);
  return view;
}

/**
 * The form fields of a multipart body (parts with `Content-Disposition: form-data` and a
 * name: the parts WireMock reads), or why there are none to test.
 */
function formParts(view: RequestView): MultipartPart[] | string {
  const parsed = view.body!.multipart();
  if (parsed === null) {
    return `body is not multipart (content-type is ${quoteValue(view.body!.contentType ?? "")})`;
  }
  if ("problem" in parsed) return `multipart body is not well formed: ${parsed.problem}`;
  const fields = parsed.parts.filter((part) =>
    formFieldName(part.headers.find(([name]) => name === "content-disposition")?.[1]) !== undefined
  );
  return fields.length ? fields : "multipart body has no form-data part with a name";
}

/**
 * `multipart`: each entry met by at least one form field of the body (`any`) or by every one
 * (`all`), a field meeting an entry when it meets all of the entry's conditions.
 */
function multipartCondition(patterns: readonly MultipartMatch[]): NamedCondition {
  const compiled = patterns.map((p) => ({ every: p.every, conditions: buildConditions(p.match) }));
  const meets = (part: MultipartPart, conditions: readonly NamedCondition[]) => {
    const view = partView(part);
    return conditions.every((c) => c.test(view, [], []));
  };
  const check = (view: RequestView): string | undefined => {
    const parts = formParts(view);
    if (typeof parts === "string") return parts;
    for (const [i, { every, conditions }] of compiled.entries()) {
      if (every) {
        const failing = parts.find((part) => !meets(part, conditions));
        if (failing !== undefined) {
          const failed = conditions.find((c) => !c.test(partView(failing), [], []))!;
          return `multipart[${i}] wants every part: part ${quoteValue(fieldName(failing))}: ${
            failed.reason(partView(failing))
          }`;
        }
      } else if (!parts.some((part) => meets(part, conditions))) {
        const reasons = parts.map((part) => {
          const failed = conditions.find((c) => !c.test(partView(part), [], []))!;
          return `${quoteValue(fieldName(part))}: ${failed.reason(partView(part))}`;
        });
        return `multipart[${i}] wants some part: none matches (${reasons.slice(0, 3).join("; ")}${
          reasons.length > 3 ? `; and ${reasons.length - 3} more` : ""
        })`;
      }
    }
    return undefined;
  };
  return { ...bodyCheck(check), weight: patterns.length };
}

function fieldName(part: MultipartPart): string {
  return formFieldName(part.headers.find(([name]) => name === "content-disposition")?.[1]) ?? "";
}

/**
 * The conditions of a stub, in capture order (exact query, path and URL regexes, query
 * parameters, headers, cookies, JSON, form, body text, JSON equality, JSONPath).
 * `query` may be given as written (name → literal or `{name}`), for stubs whose query was
 * not compiled by the validator.
 */
export function buildConditions(
  match: RequestMatch | undefined,
  query?: Readonly<Record<string, unknown>>,
): NamedCondition[] {
  const conditions: NamedCondition[] = [];
  // The cheap checks on the request line first.
  if (match?.queryString !== undefined) conditions.push(queryStringCondition(match.queryString));
  if (match?.pathRegex) conditions.push(regexCondition(match.pathRegex, false));
  if (match?.urlRegex) conditions.push(regexCondition(match.urlRegex, true));
  for (const [segment, name, rest, pattern] of match?.pathParams ?? []) {
    conditions.push(pathParamCondition(segment, name, rest, pattern));
  }
  if (match?.query) { for (const [name, pattern] of match.query) conditions.push(queryCondition(name, pattern)); }
  else if (query) {
    for (const name in query) {
      const { pattern } = compileValuePattern(query[name]);
      if (pattern) conditions.push(queryCondition(name, pattern));
    }
  }
  if (match?.headers) { for (const [name, pattern] of match.headers) conditions.push(headerCondition(name, pattern)); }
  for (const [name, pattern] of match?.cookies ?? []) conditions.push(cookieCondition(name, pattern));
  if (match?.json) conditions.push(jsonCondition(match.json, match.jsonNames ?? NONE));
  if (match?.form) { for (const [name, pattern] of match.form) conditions.push(formCondition(name, pattern)); }
  if (match?.bodyContains !== undefined) conditions.push(containsCondition(match.bodyContains));
  if (match?.body) conditions.push(bodyPatternCondition(match.body));
  if (match?.bodyBytes) conditions.push(bodyBytesCondition(match.bodyBytes));
  if (match?.jsonEquals) conditions.push(jsonEqualsCondition(match.jsonEquals));
  for (const [path, pattern] of match?.jsonPath ?? []) conditions.push(jsonPathCondition(path, pattern));
  if (match?.xmlEquals) conditions.push(xmlEqualsCondition(match.xmlEquals));
  for (const [expression, check] of match?.xpath ?? []) conditions.push(xpathCondition(expression, check));
  if (match?.multipart) conditions.push(multipartCondition(match.multipart));
  return conditions;
}
