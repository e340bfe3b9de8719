/**
 * The one home of user regular expressions: every pattern that comes from a config, an admin
 * call or an imported file (WireMock, OpenAPI, JSONPath filters) is compiled here and runs on
 * RE2 (`re2js`), whose matching time is linear in the input, so no pattern can freeze the
 * server (`(a+)+$` on `aaaa…!` answers at once). Users write JavaScript syntax; it is
 * translated to RE2's with the same meaning (`\s`, `.`, `\u{…}`, `\p{Script=…}`), and what RE2
 * cannot run in linear time — backreferences, lookahead and lookbehind, atomic groups and
 * possessive quantifiers — is refused with a reason, for the caller to report at load.
 * @module
 */

import { RE2JS } from "re2js";

/** How a pattern is read: JavaScript's `s`, `i` and `m` flags. */
export interface RegexOptions {
  /** `.` matches line terminators too (`s`; WireMock's `DOTALL`). */
  readonly dotAll?: boolean;
  /** Letter case is ignored (`i`). */
  readonly ignoreCase?: boolean;
  /** `^` and `$` match at line ends (`m`). */
  readonly multiline?: boolean;
}

/** A compiled user pattern: linear-time matching of a whole value or a part of it. */
export interface LinearRegex {
  /** The pattern as written. */
  readonly source: string;
  /** The named groups, in the order they open. */
  readonly names: readonly string[];
  /** Whether the whole value matches. */
  test(value: string): boolean;
  /** Whether some part of the value matches. */
  find(value: string): boolean;
  /**
   * The groups when the whole value matches: `numbered[0]` is the value, `numbered[i]` group
   * `i` (undefined when it took no part), `named` by name; undefined when it does not match.
   */
  match(value: string): RegexMatch | undefined;
}

/** The groups of a whole-value match. */
export interface RegexMatch {
  readonly numbered: readonly (string | undefined)[];
  readonly named: Readonly<Record<string, string | undefined>>;
}

/** What JavaScript's `\s` matches (RE2's is ASCII only), as class items. */
const JS_SPACE =
  "\\t\\n\\v\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
/** Everything else (`\S`), as class items, for use inside a class. */
const JS_NON_SPACE =
  "\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}" +
  "\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}";
/** JavaScript's `.` without `s`: anything but a line terminator (RE2's excludes only `\n`). */
const JS_DOT = "[^\\n\\r\\x{2028}\\x{2029}]";

/** `\p{Script=Greek}` and the like: RE2 takes the bare value. */
const PROPERTY_PREFIX = /^(?:Script|sc|General_Category|gc)=/;

/** What RE2 cannot run, found at `i` (outside a class), as a refusal. */
function unsupportedGroup(src: string, i: number): string | undefined {
  const head = src.slice(i, i + 4);
  if (head.startsWith("(?=") || head.startsWith("(?!")) {
    return `a lookahead ${head.slice(0, 3)}…) at offset ${i}`;
  }
  if (head.startsWith("(?<=") || head.startsWith("(?<!")) return `a lookbehind ${head}…) at offset ${i}`;
  if (head.startsWith("(?>")) return `an atomic group (?>…) at offset ${i}`;
  return undefined;
}

function hex(code: number): string {
  return `\\x{${code.toString(16)}}`;
}

/** The escape at `i` (a backslash) in RE2 syntax with JavaScript's meaning, and where the next piece starts. */
function re2Escape(src: string, i: number, inClass: boolean): { out: string; next: number } | { problem: string } {
  const d = src[i + 1];
  if (d === undefined) return { problem: "it ends with a lone backslash" };
  if (/[1-9]/.test(d) || (d === "k" && src[i + 2] === "<")) {
    return { problem: `a backreference \\${d}${d === "k" ? "<…>" : ""} at offset ${i}` };
  }
  let m: RegExpExecArray | null;
  if (d === "s") return { out: inClass ? JS_SPACE : `[${JS_SPACE}]`, next: i + 2 };
  if (d === "S") return { out: inClass ? JS_NON_SPACE : `[^${JS_SPACE}]`, next: i + 2 };
  if (d === "b" && inClass) return { out: hex(8), next: i + 2 };
  if (d === "0" && !/[0-9]/.test(src[i + 2] ?? "")) return { out: hex(0), next: i + 2 };
  if (d === "c" && /[A-Za-z]/.test(src[i + 2] ?? "")) return { out: hex(src.charCodeAt(i + 2) % 32), next: i + 3 };
  if ((m = /^\\u\{([0-9A-Fa-f]+)\}/.exec(src.slice(i, i + 12)))) {
    return { out: hex(parseInt(m[1], 16)), next: i + m[0].length };
  }
  if ((m = /^\\u([0-9A-Fa-f]{4})(?:\\u([0-9A-Fa-f]{4}))?/.exec(src.slice(i, i + 12)))) {
    const high = parseInt(m[1], 16), low = m[2] === undefined ? -1 : parseInt(m[2], 16);
    if (high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
      return { out: hex((high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000), next: i + 12 };
    }
    return { out: hex(high), next: i + 6 };
  }
  if ((d === "p" || d === "P") && (m = /^\{([^}]*)\}/.exec(src.slice(i + 2)))) {
    return { out: `\\${d}{${m[1].replace(PROPERTY_PREFIX, "")}}`, next: i + 2 + m[0].length };
  }
  const char = String.fromCodePoint(src.codePointAt(i + 1)!);
  return { out: "\\" + char, next: i + 1 + char.length };
}

/** A `[` at `i` outside a class: `[^]` and `[]` stand alone; any other opens a class. */
function classOpening(src: string, i: number): { out: string; next: number; inClass: boolean } {
  if (src.startsWith("[^]", i)) return { out: "(?s:.)", next: i + 3, inClass: false };
  if (src.startsWith("[]", i)) return { out: "[^\\x{0}-\\x{10ffff}]", next: i + 2, inClass: false };
  return src[i + 1] === "^" ? { out: "[^", next: i + 2, inClass: true } : { out: "[", next: i + 1, inClass: true };
}

/**
 * Translates a JavaScript (`u`-mode) pattern into RE2 syntax with the same meaning, or names
 * the construct RE2 cannot run.
 */
function toRe2(src: string, dotAll: boolean): { source: string } | { problem: string } {
  let out = "";
  let i = 0;
  let inClass = false;
  while (i < src.length) {
    const c = src[i];
    if (c === "\\") {
      const e = re2Escape(src, i, inClass);
      if ("problem" in e) return e;
      out += e.out;
      i = e.next;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c === "[" ? "\\[" : c;
      i++;
      continue;
    }
    if (c === "[") {
      const open = classOpening(src, i);
      out += open.out;
      i = open.next;
      inClass = open.inClass;
      continue;
    }
    if (c === "(") {
      const problem = unsupportedGroup(src, i);
      if (problem) return { problem };
    }
    if ((c === "+" || c === "*" || c === "?" || c === "}") && src[i + 1] === "+") {
      return { problem: `a possessive quantifier ${c}+ at offset ${i}` };
    }
    if (c === ".") {
      out += dotAll ? "(?s:.)" : JS_DOT;
      i++;
      continue;
    }
    out += c;
    i++;
  }
  return { source: out };
}

/** The refusal's tail: why, and what to do instead. */
const LINEAR = "which stubtool's linear-time engine (RE2) cannot run; rewrite the pattern without it";

/**
 * Compiles a user pattern written in JavaScript syntax for linear-time matching, or says why
 * it cannot (a sentence to follow `regex "…" `: `is not a valid JavaScript regular expression: …`,
 * `uses a lookahead (?=…) at offset 3, which …`).
 *
 * @example
 * ```ts
 * import { compileRegex } from "./regex.ts";
 * const r = compileRegex("(?<id>\\d+)-(a+)+");
 * if ("regex" in r) r.regex.match("12-aaa")?.named.id; // "12"
 * ```
 */
export function compileRegex(source: string, options: RegexOptions = {}): { regex: LinearRegex } | { problem: string } {
  if (source.length > KEPT_LENGTH) return compileFresh(source, options);
  const key = `${options.dotAll ? "s" : ""}${options.ignoreCase ? "i" : ""}${options.multiline ? "m" : ""}/${source}`;
  const known = compiled.get(key);
  if (known) return known;
  const result = compileFresh(source, options);
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, result);
  return result;
}

/**
 * Patterns compiled lately, by flags and source, oldest first: a mapping set repeats a few
 * patterns (a bearer token's, a list's) hundreds of times. A compiled pattern holds no state
 * between matches, so stubs share it. Only short patterns are kept, and at most
 * {@link COMPILED_MAX} of them, so what the cache holds stays small whatever stubs come and go.
 */
const compiled = new Map<string, { regex: LinearRegex } | { problem: string }>();
const COMPILED_MAX = 1024;
const KEPT_LENGTH = 256;

function compileFresh(source: string, options: RegexOptions): { regex: LinearRegex } | { problem: string } {
  // The translation first, so what RE2 cannot run is named as such (not as a syntax error).
  const translated = toRe2(source, options.dotAll === true);
  if ("problem" in translated) return { problem: `uses ${translated.problem}, ${LINEAR}` };
  try {
    // Syntax only (never run): what JavaScript refuses stays refused, with its message.
    new RegExp(source, "u");
  } catch (error) {
    const reason = String((error as Error).message).replace(/^Invalid regular expression: \/.*\/u: /s, "");
    return { problem: `is not a valid JavaScript regular expression: ${reason}` };
  }
  let flags = 0;
  if (options.dotAll) flags |= RE2JS.DOTALL;
  if (options.ignoreCase) flags |= RE2JS.CASE_INSENSITIVE;
  if (options.multiline) flags |= RE2JS.MULTILINE;
  let re: RE2JS;
  try {
    re = RE2JS.compile(translated.source, flags);
  } catch (error) {
    const reason = String((error as Error).message).replace(/^error parsing regexp: /, "");
    return { problem: `cannot be read by the linear-time engine (RE2 syntax): ${reason}` };
  }
  const groups = re.namedGroups();
  const names = Object.keys(groups).sort((a, b) => groups[a] - groups[b]);
  return { regex: linear(source, re, names) };
}

function linear(source: string, re: RE2JS, names: readonly string[]): LinearRegex {
  const count = re.groupCount();
  return {
    source,
    names,
    test: (value) => re.testExact(value),
    find: (value) => re.test(value),
    match(value) {
      const m = re.matcher(value);
      if (!m.matches()) return undefined;
      const numbered: (string | undefined)[] = [];
      for (let g = 0; g <= count; g++) numbered.push(m.group(g) ?? undefined);
      const named: Record<string, string | undefined> = {};
      for (const name of names) named[name] = m.group(name) ?? undefined;
      return { numbered, named };
    },
  };
}

/** Escapes text so that a pattern (JavaScript or RE2 syntax) matches exactly it. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
