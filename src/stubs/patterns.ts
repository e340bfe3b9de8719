/**
 * Request conditions' value patterns: what a header value, a query or form
 * value, or a field of a JSON body must be. Compiled once when a stub is registered; a
 * match fills capture values that answers use like path placeholders, and a
 * failure says why in the words of the near-miss explanations.
 * @module
 */

import { quoteValue } from "./quote.ts";
import { compileRegex, escapeRegex, type LinearRegex } from "../util/regex.ts";
import { pointerStep } from "../util/json_pointer.ts";
import { plural } from "../util/plural.ts";
import { compileDatePattern } from "./date_pattern.ts";

/**
 * A value pattern as a config file writes it: text with `{name}` captures, `{regex}`,
 * `{absent: true}`, or one of the operators `{contains}`, `{not_contains}`, `{not_regex}`,
 * `{equals_ignore_case}`.
 */
export type ValuePatternSpec =
  | string
  | { regex: string }
  | { absent: true }
  | { contains: string }
  | { not_contains: string }
  | { not_regex: string }
  | { equals_ignore_case: string }
  | { all: ValuePatternSpec[] }
  | { any: ValuePatternSpec[] }
  | { has_exactly: ValuePatternSpec[] }
  | { includes: ValuePatternSpec[] }
  | { date: { before?: string; after?: string; equals?: string; format?: string } };

/** How messages list the mapping forms. */
const ONE_OF =
  "one of {regex: PATTERN}, {absent: true}, {contains: TEXT}, {not_contains: TEXT}, {not_regex: PATTERN}, {equals_ignore_case: TEXT}, {all: [PATTERNS]}, {any: [PATTERNS]}, {has_exactly: [PATTERNS]}, {includes: [PATTERNS]}, {date: {before|after|equals: DATE}}";

/** The operator keys of a value pattern mapping, in the order messages list them. */
export const PATTERN_KEYS = [
  "regex",
  "absent",
  "contains",
  "not_contains",
  "not_regex",
  "equals_ignore_case",
  "all",
  "any",
  "has_exactly",
  "includes",
  "date",
] as const;

/** `{has_exactly}` / `{includes}`: patterns on all the values of a repeated field at once. */
export interface MultiValue {
  /** `has_exactly`: as many values as patterns; `includes`: any number. Either way each pattern matches a value. */
  readonly exactly: boolean;
  readonly parts: readonly ValuePattern[];
}

/** A compiled value pattern. */
export interface ValuePattern {
  /** The pattern as written, for reports and reasons (`'Bearer {token}'`, `/^v[0-9]+$/`, `absent`). */
  readonly display: string;
  /** Names it captures, in the order {@link ValuePattern.match} returns their values. */
  readonly names: readonly string[];
  /** True for `{absent: true}`: the value must not be there. */
  readonly absent: boolean;
  /** The literal it requires, when it is plain text without captures (the router indexes on it). */
  readonly literal: string | undefined;
  /** True for a whole `"{name}"`: any value, as long as one is present. */
  readonly anyValue: boolean;
  /** True for `{not_contains}` and `{not_regex}`: a missing value matches too (as in WireMock). */
  readonly missingMatches?: boolean;
  /** How a reason shows what it wants, when not the display quoted (`containing 'x'`). */
  readonly wanted?: string;
  /** `{has_exactly}` / `{includes}`: a test of the field's list of values, not of one value (never matches one). */
  readonly multi?: MultiValue;
  /** The captured values when `value` matches (empty for no captures), else undefined. */
  match(value: string): string[] | undefined;
}

/**
 * How many levels of `{all}` / `{any}` (and `{has_exactly}` / `{includes}` around them) one value
 * pattern may nest: deeper is refused with its place (`all[0] any[1] … nests …`), not walked.
 */
export const MAX_PATTERN_DEPTH = 16;

/** `{name}` inside text. */
const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;
const WHOLE_PLACEHOLDER = /^\{([A-Za-z0-9_]+)\}$/;
const NONE: readonly string[] = [];

/**
 * Compiles a value pattern. Returns the pattern, or a problem phrased to follow the field's
 * place (`must …`), for the validator to report.
 */
export function compileValuePattern(spec: unknown, depth = 0): { pattern?: ValuePattern; problem?: string } {
  if (typeof spec === "number" || typeof spec === "boolean") spec = String(spec);
  if (typeof spec === "string") return compileText(spec);
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    return {
      problem: `must be text (with {name} captures) or ${ONE_OF}, got ${
        spec === null ? "null" : Array.isArray(spec) ? "a list" : typeof spec
      }`,
    };
  }
  const keys = Object.keys(spec);
  if (keys.length !== 1 || !(PATTERN_KEYS as readonly string[]).includes(keys[0])) {
    return {
      problem: `must be text or ${ONE_OF}, got a mapping with ${
        keys.length ? keys.map((k) => `'${k}'`).join(", ") : "no keys"
      }`,
    };
  }
  const key = keys[0] as typeof PATTERN_KEYS[number];
  const value = (spec as Record<string, unknown>)[key];
  if (key === "all" || key === "any" || key === "has_exactly" || key === "includes") {
    if (depth >= MAX_PATTERN_DEPTH) {
      return {
        problem: `nests all, any, has_exactly and includes more than ${MAX_PATTERN_DEPTH} levels deep: flatten it`,
      };
    }
    return compileList(key, value, depth + 1);
  }
  if (key === "date") return compileDatePattern(value);
  if (key === "absent") {
    if (value !== true) return { problem: `absent must be true (leave the condition out to allow any value)` };
    return { pattern: ABSENT };
  }
  if (key !== "regex" && (typeof value === "number" || typeof value === "boolean")) {
    return compileOperator(key, String(value));
  }
  if (typeof value !== "string") {
    return { problem: `${key} must be a string, got ${value === null ? "null" : typeof value}` };
  }
  if (key !== "regex") return compileOperator(key, value);
  const compiled = compileRegex(value);
  if ("problem" in compiled) return { problem: `regex ${JSON.stringify(value)} ${compiled.problem}` };
  const { regex } = compiled;
  const names = regex.names;
  return {
    pattern: {
      display: `/${value}/`,
      names,
      absent: false,
      literal: undefined,
      anyValue: false,
      match(text) {
        if (names.length === 0) return regex.test(text) ? NONE as string[] : undefined;
        const found = regex.match(text);
        return found && names.map((name) => found.named[name] ?? "");
      },
    },
  };
}

const ABSENT: ValuePattern = {
  display: "absent",
  wanted: "no value",
  names: NONE,
  absent: true,
  literal: undefined,
  anyValue: false,
  match: () => undefined,
};

/** Each part of a list operator, or the first problem (`all[1] must …`). */
function compileParts(
  key: string,
  value: unknown,
  multi: boolean,
  depth: number,
): { parts?: ValuePattern[]; problem?: string } {
  if (!Array.isArray(value) || value.length === 0) {
    return { problem: `${key} must be a non-empty list of value patterns, got ${kindOf(value)}` };
  }
  const parts: ValuePattern[] = [];
  for (const [i, item] of value.entries()) {
    const { pattern, problem } = compileValuePattern(item, depth);
    if (!pattern) return { problem: `${key}[${i}] ${problem}` };
    if (pattern.names.length) {
      return { problem: `${key}[${i}] captures nothing: leave out {name} placeholders and named groups` };
    }
    if (pattern.multi) return { problem: `${key}[${i}] cannot be has_exactly or includes (they test a whole field)` };
    if (multi && pattern.absent) return { problem: `${key}[${i}] cannot be absent (a value is there to match)` };
    parts.push(pattern);
  }
  return { parts };
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "a list" : typeof value === "object" ? "a mapping" : typeof value;
}

/**
 * `{all}` / `{any}`: a value that every / some part matches; a missing value is met as each
 * part meets it (`absent`, the negations). `{has_exactly}` / `{includes}` test all the values of
 * a repeated field: each part matches one of them (and, for has_exactly, there are as many
 * values as parts). None captures.
 */
function compileList(
  key: "all" | "any" | "has_exactly" | "includes",
  value: unknown,
  depth: number,
): { pattern?: ValuePattern; problem?: string } {
  const multi = key === "has_exactly" || key === "includes";
  const { parts, problem } = compileParts(key, value, multi, depth);
  if (!parts) return { problem };
  const display = `{${key}: [${parts.map((p) => p.display).join(", ")}]}`;
  const listed = parts.map(wants).join(", ");
  const base = { display, names: NONE, absent: false, literal: undefined, anyValue: false };
  if (multi) {
    return {
      pattern: {
        ...base,
        wanted: key === "has_exactly"
          ? `exactly ${plural(parts.length, "value", "values")} matching ${listed}`
          : `values matching ${listed}`,
        multi: { exactly: key === "has_exactly", parts },
        match: () => undefined,
      },
    };
  }
  const meetsMissing = (p: ValuePattern) => p.absent || p.missingMatches === true;
  const all = key === "all";
  return {
    pattern: {
      ...base,
      wanted: `a value matching ${all ? "all" : "any"} of ${listed}`,
      missingMatches: all ? parts.every(meetsMissing) : parts.some(meetsMissing),
      match: (v) =>
        (all ? parts.every((p) => p.match(v) !== undefined) : parts.some((p) => p.match(v) !== undefined))
          ? NONE as string[]
          : undefined,
    },
  };
}

/** Whether the values of a repeated field meet `{has_exactly}` / `{includes}`. */
export function matchMulti(multi: MultiValue, values: readonly string[]): boolean {
  if (multi.exactly && values.length !== multi.parts.length) return false;
  return multi.parts.every((p) => values.some((v) => p.match(v) !== undefined));
}

/** `{contains}`, `{not_contains}`, `{not_regex}`, `{equals_ignore_case}`: no captures, never indexed. */
function compileOperator(
  key: "contains" | "not_contains" | "not_regex" | "equals_ignore_case",
  value: string,
): { pattern?: ValuePattern; problem?: string } {
  const base = { names: NONE, absent: false, literal: undefined, anyValue: false };
  const yes = (test: (v: string) => boolean) => (v: string) => test(v) ? NONE as string[] : undefined;
  switch (key) {
    case "contains":
      return {
        pattern: {
          ...base,
          display: `{contains: ${value}}`,
          wanted: `text containing ${quoteValue(value)}`,
          match: yes((v) => v.includes(value)),
        },
      };
    case "not_contains":
      return {
        pattern: {
          ...base,
          display: `{not_contains: ${value}}`,
          wanted: `text not containing ${quoteValue(value)}`,
          missingMatches: true,
          match: yes((v) => !v.includes(value)),
        },
      };
    case "equals_ignore_case":
      return {
        pattern: {
          ...base,
          display: `{equals_ignore_case: ${value}}`,
          wanted: `${quoteValue(value)} in any letter case`,
          match: yes((v) => equalsIgnoreCase(v, value)),
        },
      };
    case "not_regex": {
      const compiled = compileRegex(value);
      if ("problem" in compiled) return { problem: `not_regex ${JSON.stringify(value)} ${compiled.problem}` };
      const regex: LinearRegex = compiled.regex;
      return {
        pattern: {
          ...base,
          display: `{not_regex: ${value}}`,
          wanted: `a value not matching /${value}/`,
          missingMatches: true,
          match: yes((v) => !regex.test(v)),
        },
      };
    }
  }
}

/**
 * Java's `String.equalsIgnoreCase`: the same length in UTF-16 units, and per unit (per code
 * point for a surrogate pair) equal, or equal once both are upper-cased, or once both are
 * upper-cased and then lower-cased — with Java's one-character (simple) case mappings, so
 * `ß` does not equal `SS` and `ﬀ` not `FF`.
 */
function equalsIgnoreCase(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length;) {
    const ca = a.codePointAt(i)!, cb = b.codePointAt(i)!;
    const width = ca > 0xffff ? 2 : 1;
    if ((cb > 0xffff ? 2 : 1) !== width && ca !== cb) return false;
    i += width;
    if (ca === cb) continue;
    const ua = simpleUpper(ca), ub = simpleUpper(cb);
    if (ua === ub) continue;
    if (simpleLower(ua) === simpleLower(ub)) continue;
    return false;
  }
  return true;
}

/** Greek letters with ypogegrammeni, whose simple upper case is the title-case letter (JavaScript's is two letters). */
function greekUpper(c: number): number | undefined {
  if ((c >= 0x1f80 && c <= 0x1f87) || (c >= 0x1f90 && c <= 0x1f97) || (c >= 0x1fa0 && c <= 0x1fa7)) return c + 8;
  if (c === 0x1fb3 || c === 0x1fc3 || c === 0x1ff3) return c + 9;
  return undefined;
}

/** Java's `Character.toUpperCase(int)`: a one-character mapping, or the character itself. */
function simpleUpper(c: number): number {
  const greek = greekUpper(c);
  if (greek !== undefined) return greek;
  const upper = String.fromCodePoint(c).toUpperCase();
  const u = upper.codePointAt(0)!;
  return upper.length === (u > 0xffff ? 2 : 1) ? u : c;
}

/** Java's `Character.toLowerCase(int)`: `İ` (U+0130) is `i`; else a one-character mapping or the character. */
function simpleLower(c: number): number {
  if (c === 0x130) return 0x69;
  const lower = String.fromCodePoint(c).toLowerCase();
  const l = lower.codePointAt(0)!;
  return lower.length === (l > 0xffff ? 2 : 1) ? l : c;
}

/** Text with `{name}` captures: each matches one or more characters; a whole `{name}` any value. */
function compileText(text: string): { pattern?: ValuePattern; problem?: string } {
  const whole = WHOLE_PLACEHOLDER.exec(text);
  if (whole) {
    const names = [whole[1]];
    return {
      pattern: { display: text, names, absent: false, literal: undefined, anyValue: true, match: (v) => [v] },
    };
  }
  const names: string[] = [];
  let source = "^";
  let last = 0;
  for (const found of text.matchAll(PLACEHOLDER)) {
    if (found.index === last && names.length > 0) {
      return {
        problem: `has two placeholders side by side in ${
          JSON.stringify(text)
        }; put literal text between them (a capture cannot tell where one ends)`,
      };
    }
    if (names.includes(found[1])) {
      return { problem: `uses placeholder {${found[1]}} twice in ${JSON.stringify(text)}; give each its own name` };
    }
    source += escapeRegex(text.slice(last, found.index)) + "([^]+?)";
    names.push(found[1]);
    last = found.index + found[0].length;
  }
  if (names.length === 0) {
    return {
      pattern: {
        display: text,
        names: NONE,
        absent: false,
        literal: text,
        anyValue: false,
        match: (v) => v === text ? NONE as string[] : undefined,
      },
    };
  }
  // The last capture takes what is left when nothing follows it.
  if (last === text.length) source = source.slice(0, -"?)".length) + ")";
  const compiled = compileRegex(source + escapeRegex(text.slice(last)) + "$");
  if ("problem" in compiled) throw new Error(`cannot compile ${JSON.stringify(text)}: ${compiled.problem}`);
  const { regex } = compiled;
  return {
    pattern: {
      display: text,
      names,
      absent: false,
      literal: undefined,
      anyValue: false,
      match(value) {
        const found = regex.match(value);
        return found ? found.numbered.slice(1) as string[] : undefined;
      },
    },
  };
}

/** `'dev'` or `/v[0-9]+/`: how a reason shows what the stub wants. */
export function wants(pattern: ValuePattern): string {
  if (pattern.wanted !== undefined) return pattern.wanted;
  return pattern.display.startsWith("/") && !pattern.literal ? pattern.display : quoteValue(pattern.display);
}

// ---------------------------------------------------------------- JSON body patterns

/** A compiled `json:` pattern: a tree walked against the parsed body. */
export type JsonPattern =
  | { kind: "object"; entries: [key: string, pattern: JsonPattern][] }
  | { kind: "array"; items: JsonPattern[] }
  | { kind: "number"; value: number }
  | { kind: "literal"; value: boolean | null }
  | { kind: "string"; pattern: ValuePattern };

/**
 * Compiles a `json:` pattern. Problems are phrased with their JSON pointer (`at /amount:
 * …`). Names are collected in walk order: the order {@link matchJson} captures them.
 */
export function compileJsonPattern(
  spec: unknown,
  names: string[] = [],
  problems: string[] = [],
  pointer = "",
  depth = 0,
): JsonPattern {
  if (depth > 100) {
    problems.push(`is nested deeper than 100 levels at ${pointer}`);
    return { kind: "literal", value: null };
  }
  if (typeof spec === "string") {
    const { pattern, problem } = compileValuePattern(spec);
    if (!pattern) {
      problems.push(`at ${pointer || "/"} ${problem}`);
      return { kind: "literal", value: null };
    }
    names.push(...pattern.names);
    return { kind: "string", pattern };
  }
  if (typeof spec === "number") {
    if (!Number.isFinite(spec)) problems.push(`at ${pointer || "/"} must be a finite number`);
    return { kind: "number", value: spec };
  }
  if (typeof spec === "boolean" || spec === null) return { kind: "literal", value: spec };
  if (Array.isArray(spec)) {
    return {
      kind: "array",
      items: spec.map((item, i) => compileJsonPattern(item, names, problems, pointer + pointerStep(i), depth + 1)),
    };
  }
  if (typeof spec === "object") {
    const entries: [string, JsonPattern][] = [];
    for (const key of Object.keys(spec)) {
      entries.push([
        key,
        compileJsonPattern(
          (spec as Record<string, unknown>)[key],
          names,
          problems,
          pointer + pointerStep(key),
          depth + 1,
        ),
      ]);
    }
    return { kind: "object", entries };
  }
  problems.push(`at ${pointer || "/"} must be a JSON value, got ${typeof spec}`);
  return { kind: "literal", value: null };
}

/** How many leaves a JSON pattern has: each counts as one condition. */
export function jsonLeaves(pattern: JsonPattern): number {
  switch (pattern.kind) {
    case "object":
      return pattern.entries.reduce((n, [, p]) => n + jsonLeaves(p), 0);
    case "array":
      return pattern.items.reduce((n, p) => n + jsonLeaves(p), 0);
    default:
      return 1;
  }
}

/** A JSON value as a reason quotes it: `41`, `'EUR'`, `an object`. */
function shown(value: unknown): string {
  if (typeof value === "string") return quoteValue(value);
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "a list" : "an object";
}

/** What a pattern wants, for a reason: `42`, `'EUR'`, `an object`, `a list of 2`. */
function wanted(pattern: JsonPattern): string {
  switch (pattern.kind) {
    case "object":
      return "an object";
    case "array":
      return `a list of ${pattern.items.length}`;
    case "number":
      return String(pattern.value);
    case "literal":
      return String(pattern.value);
    case "string":
      return pattern.pattern.anyValue ? "a string, number or boolean" : wants(pattern.pattern);
  }
}

/**
 * Matches a parsed JSON body against a pattern: objects need each listed key (others are
 * allowed), arrays the same length element by element, numbers the same value, strings
 * their text pattern (a whole `"{name}"` takes any string, number or boolean). Pushes
 * captures to `captured`; returns undefined when it matches, else the reason.
 */
export function matchJson(pattern: JsonPattern, value: unknown, captured: string[], pointer = ""): string | undefined {
  const at = pointer || "/";
  switch (pattern.kind) {
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return `body field ${at} is ${shown(value)}, stub wants an object`;
      }
      for (const [key, sub] of pattern.entries) {
        if (!Object.hasOwn(value, key)) return `body has no field ${pointer + pointerStep(key)}`;
        const reason = matchJson(sub, (value as Record<string, unknown>)[key], captured, pointer + pointerStep(key));
        if (reason) return reason;
      }
      return undefined;
    }
    case "array": {
      if (!Array.isArray(value) || value.length !== pattern.items.length) {
        return `body field ${at} is ${Array.isArray(value) ? `a list of ${value.length}` : shown(value)}, stub wants ${
          wanted(pattern)
        }`;
      }
      for (let i = 0; i < pattern.items.length; i++) {
        const reason = matchJson(pattern.items[i], value[i], captured, pointer + pointerStep(i));
        if (reason) return reason;
      }
      return undefined;
    }
    case "number":
    case "literal":
      return value === pattern.value ? undefined : `body field ${at} is ${shown(value)}, stub wants ${wanted(pattern)}`;
    case "string": {
      const { pattern: text } = pattern;
      let given: string | undefined;
      if (typeof value === "string") given = value;
      else if (text.anyValue && (typeof value === "number" || typeof value === "boolean")) given = String(value);
      const found = given === undefined ? undefined : text.match(given);
      if (!found) return `body field ${at} is ${shown(value)}, stub wants ${wanted(pattern)}`;
      for (const v of found) captured.push(v);
      return undefined;
    }
  }
}

/** The literal leaves of a JSON pattern as `[pointer, key]` pairs, for the router's index (see {@link jsonKey}). */
export function jsonLiterals(pattern: JsonPattern, pointer = "", out: [string, string][] = []): [string, string][] {
  switch (pattern.kind) {
    case "object":
      for (const [key, sub] of pattern.entries) jsonLiterals(sub, pointer + pointerStep(key), out);
      break;
    case "number":
    case "literal":
      out.push([pointer, jsonKey(pattern.value)]);
      break;
    case "string":
      if (pattern.pattern.literal !== undefined) out.push([pointer, jsonKey(pattern.pattern.literal)]);
      break;
      // Array elements are not indexed: a list must match as a whole (same length), rarely a key.
  }
  return out;
}

/** A JSON leaf as an index key: type and value, so `42` and `"42"` differ and `1.0` equals `1`. */
export function jsonKey(value: unknown): string {
  if (typeof value === "string") return "s" + value;
  if (typeof value === "number") return "n" + String(value);
  if (typeof value === "boolean" || value === null) return "l" + String(value);
  return "o"; // an object or list never equals a literal leaf
}

// ---------------------------------------------------------------- whole-document JSON equality

/** What {@link equalJson} may relax: other object keys, more array items, array order. */
export interface JsonRelax {
  extraFields: boolean;
  extraItems: boolean;
  arrayOrder: boolean;
}

/**
 * A leaf of a `json_equals` document written as a placeholder (`json_placeholders: true`):
 * JsonUnit's `${json-unit.any-string}`, `any-number`, `any-boolean`, `ignore` (any value,
 * null too; the field must be there) and `${json-unit.regex}RE` (a string the regex matches whole).
 */
export class JsonPlaceholder {
  constructor(
    /** As written, for reasons. */
    readonly text: string,
    readonly kind: "any-string" | "any-number" | "any-boolean" | "ignore" | "regex",
    readonly regex?: ValuePattern,
  ) {}

  /** Does this value meet the placeholder? */
  test(value: unknown): boolean {
    switch (this.kind) {
      case "any-string":
        return typeof value === "string";
      case "any-number":
        return typeof value === "number";
      case "any-boolean":
        return typeof value === "boolean";
      case "ignore":
        return true;
      case "regex":
        return typeof value === "string" && this.regex!.match(value) !== undefined;
    }
  }
}

/** The JsonUnit placeholders {@link JsonPlaceholder} reads (`${json-unit.regex}` is followed by its regex). */
export const JSON_PLACEHOLDERS = ["any-string", "any-number", "any-boolean", "ignore", "regex"] as const;

/**
 * A `json_equals` document with each `${json-unit.…}` string made a {@link JsonPlaceholder}.
 * Problems (an unknown placeholder, a bad regex) are pushed with their JSON pointer.
 */
export function compileJsonPlaceholders(value: unknown, problems: string[], pointer = ""): unknown {
  if (typeof value === "string") {
    if (!value.startsWith("${json-unit.")) return value;
    const kind = JSON_PLACEHOLDERS.find((k) =>
      k === "regex" ? value.startsWith("${json-unit.regex}") : value === `\${json-unit.${k}}`
    );
    if (kind === undefined) {
      problems.push(
        `at ${pointer || "/"} ${shown(value)} is not a placeholder stubtool reads (${
          JSON_PLACEHOLDERS.map((k) => `\${json-unit.${k}}`).join(", ")
        }RE)`,
      );
      return value;
    }
    if (kind !== "regex") return new JsonPlaceholder(value, kind);
    const { pattern, problem } = compileValuePattern({ regex: value.slice("${json-unit.regex}".length) });
    if (!pattern) {
      problems.push(`at ${pointer || "/"} ${problem}`);
      return value;
    }
    return new JsonPlaceholder(value, kind, pattern);
  }
  if (Array.isArray(value)) return value.map((v, i) => compileJsonPlaceholders(v, problems, pointer + pointerStep(i)));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      out[key] = compileJsonPlaceholders(v, problems, pointer + pointerStep(key));
    }
    return out;
  }
  return value;
}

/**
 * Compares a parsed body with a JSON document (`json_equals`): objects with exactly the
 * listed keys (any order), arrays the same length in order, numbers by value (`1.0` is `1`),
 * types strict (`"1"` is not `1`); `relax` allows other keys, more items, or any order
 * (each listed item then matches a different item of the body). Returns undefined when it
 * matches, else the reason.
 */
export function equalJson(expected: unknown, actual: unknown, relax: JsonRelax, pointer = ""): string | undefined {
  const at = pointer || "/";
  if (expected instanceof JsonPlaceholder) {
    return expected.test(actual) ? undefined : `body field ${at} is ${shown(actual)}, stub wants ${expected.text}`;
  }
  if (Array.isArray(expected)) return equalJsonList(expected, actual, relax, pointer);
  if (typeof expected === "object" && expected !== null) {
    return equalJsonObject(expected as Record<string, unknown>, actual, relax, pointer);
  }
  return actual === expected ? undefined : `body field ${at} is ${shown(actual)}, stub wants ${shown(expected)}`;
}

/** {@link equalJson} for a list: the same length (or more items), in order or, relaxed, in any. */
function equalJsonList(expected: unknown[], actual: unknown, relax: JsonRelax, pointer: string): string | undefined {
  const at = pointer || "/";
  if (!Array.isArray(actual)) return `body field ${at} is ${shown(actual)}, stub wants a list`;
  if (actual.length < expected.length || (!relax.extraItems && actual.length !== expected.length)) {
    return `body field ${at} is a list of ${actual.length}, stub wants ${
      relax.extraItems ? "at least " : ""
    }${expected.length}`;
  }
  if (!relax.arrayOrder) {
    for (let i = 0; i < expected.length; i++) {
      const reason = equalJson(expected[i], actual[i], relax, pointer + pointerStep(i));
      if (reason) return reason;
    }
    return undefined;
  }
  const missing = unmatchedItem(expected, actual, relax);
  return missing === undefined
    ? undefined
    : `body field ${at} has no item for ${pointer + pointerStep(missing)} of the stub's list (in any order)`;
}

/**
 * Any order: each listed item takes a different item of the body (augmenting paths). The
 * index of the first listed item left without one, or undefined when every one has its own.
 */
function unmatchedItem(expected: unknown[], actual: unknown[], relax: JsonRelax): number | undefined {
  const owner: number[] = new Array(actual.length).fill(-1);
  const fits = expected.map((e) => actual.map((a) => equalJson(e, a, relax) === undefined));
  const place = (i: number, seen: boolean[]): boolean => {
    for (let j = 0; j < actual.length; j++) {
      if (!fits[i][j] || seen[j]) continue;
      seen[j] = true;
      if (owner[j] === -1 || place(owner[j], seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < expected.length; i++) {
    if (!place(i, new Array(actual.length).fill(false))) return i;
  }
  return undefined;
}

/** {@link equalJson} for an object: every listed key, each value equal; other keys only when relaxed. */
function equalJsonObject(
  expected: Record<string, unknown>,
  actual: unknown,
  relax: JsonRelax,
  pointer: string,
): string | undefined {
  if (typeof actual !== "object" || actual === null || Array.isArray(actual)) {
    return `body field ${pointer || "/"} is ${shown(actual)}, stub wants an object`;
  }
  for (const key of Object.keys(expected)) {
    if (!Object.hasOwn(actual, key)) return `body has no field ${pointer + pointerStep(key)}`;
    const reason = equalJson(
      expected[key],
      (actual as Record<string, unknown>)[key],
      relax,
      pointer + pointerStep(key),
    );
    if (reason) return reason;
  }
  if (!relax.extraFields) {
    for (const key of Object.keys(actual)) {
      if (!Object.hasOwn(expected, key)) {
        return `body has a field the stub does not list: ${pointer + pointerStep(key)}`;
      }
    }
  }
  return undefined;
}
