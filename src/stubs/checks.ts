/**
 * Checks of single values that every part of a stub shares (method, headers, a JSON value),
 * each with the message a user sees; the validator and the part-three fields use them.
 * @module
 */

import { type HeaderMap, type Method, METHODS, type StubMethod } from "./model.ts";
import { isObject } from "../util/json_shape.ts";

const MAX_BODY_DEPTH = 500;

/** What a header name may hold: an HTTP token. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * Characters a header value cannot carry: CR and LF would split or end the header line, and
 * NUL and the other control characters but tab make Deno's HTTP/1 writer panic, which ends
 * the whole process.
 */
// deno-lint-ignore no-control-regex -- control characters are exactly what must be caught
export const HEADER_VALUE_FORBIDDEN = /[\0-\x08\x0a-\x1f\x7f]/;
/** Header values are bytes: `Headers` rejects any character above U+00FF (any code unit from U+0100). */
const HEADER_VALUE_NOT_LATIN1 = /[\u0100-\uffff]/;
/** Headers the server computes itself; a stub that sets them would send a broken response. */
const COMPUTED_HEADERS = new Set(["content-length", "transfer-encoding", "connection"]);
/** Describes a value for an error message: `"2OO"`, `5`, `a list`, `a mapping`. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (typeof value === "bigint") return `${value}n`;
  return String(value);
}

/** What a stub's `method` may be: a method, or `ANY`, listed alphabetically as messages show them. */
export const STUB_METHODS: readonly StubMethod[] = ["ANY", ...METHODS];
const ALLOWED_METHODS = `(allowed: ${STUB_METHODS.join(", ")})`;

/** Checks a method name; returns it upper-cased, or the message that lists the allowed methods. */
export function checkMethod(value: unknown): { method?: StubMethod; error?: string } {
  // Most stubs spell the method as listed: no regex, no new string.
  if ((METHODS as readonly unknown[]).includes(value)) return { method: value as Method };
  const allowed = ALLOWED_METHODS;
  if (value === undefined) return { error: `method is required ${allowed}` };
  if (typeof value !== "string") return { error: `invalid method ${describe(value)} ${allowed}` };
  // ASCII only: toUpperCase() would turn "poſt" (long s) into "POST".
  const upper = /^[A-Za-z]+$/.test(value) ? value.toUpperCase() : value;
  if (!(STUB_METHODS as readonly string[]).includes(upper)) {
    return { error: `invalid method '${value}' ${allowed}` };
  }
  return { method: upper as StubMethod };
}
/** A header value as text: numbers and booleans are accepted as YAML users write them (`x-count: 5`). */
function headerText(item: unknown): string | undefined {
  if (typeof item === "string") return item;
  if (typeof item === "number" || typeof item === "boolean") return String(item);
  return undefined;
}

/**
 * Checks response headers; names must be HTTP tokens, values free of control characters
 * and within Latin-1. A value may be a list, for a header sent several times
 * (`set-cookie: [a=1, b=2]`).
 */
export function checkHeaders(value: unknown, field: string, errors: string[]): HeaderMap | undefined {
  if (!isObject(value)) {
    errors.push(`${field} must be a mapping of names to strings, got ${describe(value)}`);
    return undefined;
  }
  const headers = Object.create(null) as HeaderMap;
  const seen = new Map<string, string>();
  for (const [name, raw] of Object.entries(value)) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) {
      errors.push(`${field}: '${name}' is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only)`);
    } else if (COMPUTED_HEADERS.has(lower)) {
      errors.push(`${field}.${name} is set by the server itself; remove it`);
    } else if (seen.has(lower)) {
      errors.push(`${field}.${name} repeats ${field}.${seen.get(lower)} (header names ignore case); keep one`);
    }
    if (!seen.has(lower)) seen.set(lower, name);
    const list = Array.isArray(raw);
    if (list && raw.length === 0) {
      errors.push(`${field}.${name} is an empty list; give at least one value or remove it`);
      continue;
    }
    const texts: string[] = [];
    (list ? raw : [raw]).forEach((item: unknown, i: number) => {
      const where = list ? `${field}.${name}[${i}]` : `${field}.${name}`;
      const text = headerText(item);
      if (text === undefined) {
        errors.push(`${where} must be a string${list ? "" : " or a list of strings"}, got ${describe(item)}`);
      } else if (HEADER_VALUE_FORBIDDEN.test(text)) {
        errors.push(`${where} must not contain CR, LF, NUL or other control characters`);
      } else if (HEADER_VALUE_NOT_LATIN1.test(text)) {
        errors.push(
          `${where} must hold only characters up to U+00FF (header values are bytes), got ${describe(text)}`,
        );
      } else texts.push(text);
    });
    headers[name] = list ? texts : texts[0];
  }
  return headers;
}

/** Where a walk is inside a value: object keys and list indexes, outermost first. */
export type JsonPath = (string | number)[];

/**
 * The first part of `value` JSON cannot carry, as a message for where it is. With `path`,
 * the path is left pointing at it. Builds nothing unless there is a problem: bodies are
 * walked for every stub at startup, so the path is only tracked on a second walk.
 */
export function nonJson(value: unknown, depth: number, path?: JsonPath): ((where: string) => string) | undefined {
  if (depth > MAX_BODY_DEPTH) return (where) => `${where} is nested deeper than ${MAX_BODY_DEPTH} levels`;
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : (where) => `${where} is ${value}, which JSON cannot hold`;
    case "object": {
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item = value[i];
          if (item === undefined) continue; // JSON.stringify writes null
          path?.push(i);
          const problem = nonJson(item, depth + 1, path);
          if (problem) return problem;
          path?.pop();
        }
        return undefined;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        const name = (value as object).constructor?.name ?? "object";
        return (where) =>
          `${where} is a ${name}, which JSON cannot hold as is; convert it (for a Date, use .toISOString())`;
      }
      for (const key in value) { // for-in with hasOwn: Object.keys without the array
        if (!Object.hasOwn(value, key)) continue;
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue; // JSON.stringify leaves the key out
        path?.push(key);
        const problem = nonJson(item, depth + 1, path);
        if (problem) return problem;
        path?.pop();
      }
      return undefined;
    }
    default:
      return (where) =>
        `${where} is ${typeof value === "undefined" ? "undefined" : `a ${typeof value}`}, which JSON cannot hold`;
  }
}

/** Finds the first part of a value JSON cannot carry faithfully; returns where and why. */
export function checkJsonValue(value: unknown, field: string): string | undefined {
  if (!nonJson(value, 0)) return undefined;
  const path: JsonPath = [];
  const problem = nonJson(value, 0, path);
  if (!problem) return undefined; // only a value that changes between reads (a getter) gets here
  let where = field;
  for (const step of path) where += typeof step === "number" ? `[${step}]` : `.${step}`;
  return problem(where);
}
