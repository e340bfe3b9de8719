/**
 * A stub's request conditions (P3.4, P10.1–P10.4) as the router checks them: required
 * query parameters, headers, a JSON body pattern, form fields and a body text. Each one
 * says how much it weighs in precedence, whether it reads the body, which literals the
 * router may index on, and why a request fails it (P10.8).
 * @module
 */

import type { RequestMatch } from "../stubs/model.ts";
import {
  compileValuePattern,
  jsonKey,
  jsonLeaves,
  jsonLiterals,
  type JsonPattern,
  matchJson,
  type ValuePattern,
  wants,
} from "../stubs/patterns.ts";
import { quoteValue } from "../stubs/quote.ts";
import type { Condition, Dimension } from "./router.ts";
import { MAX_JSON_DEPTH, type QueryParams, type RequestView } from "./request_view.ts";

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
  return dimension(`h ${name}`, false, (view) => {
    const value = view.header(name);
    return value === null ? NO_KEYS : [value];
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
      if (given === undefined) return false;
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
    literals,
    names: pattern.names,
    test(view, values, raw) {
      const value = view.header(name);
      if (pattern.absent) return value === null;
      if (value === null) return false;
      const found = pattern.match(value);
      if (!found) return false;
      for (const v of found) {
        values.push(v);
        raw.push(v);
      }
      return true;
    },
    reason(view) {
      const value = view.header(name);
      if (pattern.absent) return `header '${name}' must be absent`;
      if (value === null) return `missing header '${name}'`;
      return `header '${name}' is ${quoteValue(value)}, stub wants ${wants(pattern)}`;
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

/**
 * The conditions of a stub, in capture order (query, headers, JSON, form, body text).
 * `query` may be given as written (name → literal or `{name}`), for stubs whose query was
 * not compiled by the validator.
 */
export function buildConditions(
  match: RequestMatch | undefined,
  query?: Readonly<Record<string, unknown>>,
): NamedCondition[] {
  const conditions: NamedCondition[] = [];
  if (match?.query) { for (const [name, pattern] of match.query) conditions.push(queryCondition(name, pattern)); }
  else if (query) {
    for (const name in query) {
      const { pattern } = compileValuePattern(query[name]);
      if (pattern) conditions.push(queryCondition(name, pattern));
    }
  }
  if (match?.headers) { for (const [name, pattern] of match.headers) conditions.push(headerCondition(name, pattern)); }
  if (match?.json) conditions.push(jsonCondition(match.json, match.jsonNames ?? NONE));
  if (match?.form) { for (const [name, pattern] of match.form) conditions.push(formCondition(name, pattern)); }
  if (match?.bodyContains !== undefined) conditions.push(containsCondition(match.bodyContains));
  return conditions;
}
