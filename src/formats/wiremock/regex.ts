/**
 * Java regular expressions (what WireMock's `matches` takes) as JavaScript ones with the same
 * meaning, or a refusal. WireMock compiles a pattern with `Pattern.DOTALL` and requires the
 * whole value to match; stubtool's `{regex}` is anchored the same way, so what remains is the
 * syntax: a conservative subset that both engines read alike is translated, the rest refused —
 * and so is what stubtool's linear-time engine cannot run (lookahead and lookbehind, besides
 * backreferences and possessive quantifiers), since every pattern runs there (`util/regex.ts`).
 * @module
 */

import { compileRegex } from "../../util/regex.ts";

/** Java's `\s` without `UNICODE_CHARACTER_CLASS`: ASCII white space only (JavaScript's is wider). */
const JAVA_SPACE = "\\t\\n\\x0B\\f\\r ";

/** `\u{hex}`: an escape for any character that is valid in a `u`-mode pattern, in or out of a class. */
function codeEscape(c: string): string {
  return `\\u{${c.codePointAt(0)!.toString(16)}}`;
}

/** One translated piece of a pattern and where the next one starts, or why it is refused. */
type Step = { out: string; next: number } | { problem: string };

/** An escape sequence after `\` (the character at `i`): its JavaScript form, or a problem. */
function escape(src: string, i: number, inClass: boolean): Step {
  const c = src[i];
  if (c === undefined) return { problem: "it ends with a lone backslash" };
  if ("dDwW".includes(c) || "tnrf".includes(c)) return { out: "\\" + c, next: i + 1 };
  if (c === "s") return { out: inClass ? JAVA_SPACE : `[${JAVA_SPACE}]`, next: i + 1 };
  if (c === "S") {
    return inClass ? { problem: "\\S inside a character class" } : { out: `[^${JAVA_SPACE}]`, next: i + 1 };
  }
  if (c === "x" && /^[0-9a-fA-F]{2}$/.test(src.slice(i + 1, i + 3))) {
    return { out: "\\" + src.slice(i, i + 3), next: i + 3 };
  }
  if (c === "u" && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 1, i + 5))) {
    return { out: "\\" + src.slice(i, i + 5), next: i + 5 };
  }
  if (/[0-9A-Za-z]/.test(c)) return { problem: `the escape \\${c} (Java-only or read differently by JavaScript)` };
  const char = String.fromCodePoint(src.codePointAt(i)!);
  if (inClass) return { out: codeEscape(char), next: i + char.length };
  return { out: SYNTAX.includes(char) ? "\\" + char : char, next: i + char.length };
}

/** Characters a `u`-mode pattern reads as syntax outside a class (escaped when meant literally). */
const SYNTAX = "\\^$.*+?()[]{}|/";

/**
 * Translates a Java pattern into a JavaScript `u`-mode source with the same full-match
 * meaning under `DOTALL`, or says which construct it refuses (backreferences, possessive
 * quantifiers, lookahead and lookbehind, inline flags, named groups, `\b`, `\p{…}`, `\Q…\E`,
 * nested classes and intersections, `^`/`$` anywhere but the ends, …). With `dotAll` false
 * (a pattern Java compiles without `DOTALL`, as JsonUnit's `${json-unit.regex}`), `.` stops at
 * Java's line terminators.
 */
export function javaRegexToJs(src: string, dotAll = true): { source: string } | { problem: string } {
  let out = "";
  let i = 0;
  let atom = false; // whether a quantifier may follow
  while (i < src.length) {
    const step = piece(src, i, atom, dotAll);
    if ("problem" in step) return step;
    out += step.out;
    i = step.next;
    atom = step.atom;
  }
  const compiled = compileRegex(out);
  if ("problem" in compiled) return { problem: `a construct stubtool cannot run: the translation ${compiled.problem}` };
  return { source: out };
}

/** The piece of the pattern at `i`, translated, and whether a quantifier may follow it. */
function piece(
  src: string,
  i: number,
  atom: boolean,
  dotAll: boolean,
): { out: string; next: number; atom: boolean } | { problem: string } {
  const c = src[i];
  switch (c) {
    case "\\": {
      const e = escape(src, i + 1, false);
      return "problem" in e ? e : { ...e, atom: true };
    }
    case ".":
      return { out: dotAll ? "[\\s\\S]" : "[^\\n\\r\\u0085\\u2028\\u2029]", next: i + 1, atom: true };
    case "^":
      return i !== 0 ? { problem: "'^' other than at the start" } : { out: c, next: i + 1, atom: false };
    case "$":
      return i !== src.length - 1 ? { problem: "'$' other than at the end" } : { out: c, next: i + 1, atom: false };
    case "(": {
      const g = group(src, i);
      return "problem" in g ? g : { ...g, atom: false };
    }
    case ")":
      return { out: c, next: i + 1, atom: true };
    case "|":
      return { out: c, next: i + 1, atom: false };
    case "[": {
      const cls = charClass(src, i);
      return "problem" in cls ? cls : { ...cls, atom: true };
    }
    case "*":
    case "+":
    case "?":
    case "{": {
      if (!atom) return { problem: `a quantifier '${c}' with nothing to repeat` };
      const q = quantifier(src, i);
      return "problem" in q ? q : { ...q, atom: false };
    }
    default: {
      // What is left is literal: `]`, `}` and `/` need a backslash in a `u`-mode pattern.
      const char = String.fromCodePoint(src.codePointAt(i)!);
      return { out: SYNTAX.includes(char) ? "\\" + char : char, next: i + char.length, atom: true };
    }
  }
}

/** A group opening at `i`: `(` or `(?:`; lookaround and other `(?…)` forms are refused. */
function group(src: string, i: number): Step {
  const look = /^\(\?(?:=|!|<=|<!)/.exec(src.slice(i));
  if (look) {
    return {
      problem: `a ${look[0].length === 3 ? "lookahead" : "lookbehind"} ${look[0]}…), which stubtool's ` +
        "linear-time engine (RE2) cannot run",
    };
  }
  const open = src.startsWith("(?:", i) ? "(?:" : "(";
  if (src[i + 1] === "?" && open === "(") return { problem: "a group of the form (?…) other than (?:" };
  return { out: open, next: i + open.length };
}

/** A character class opening at `i`, up to its `]`; unions, intersections and a leading `]` are refused. */
function charClass(src: string, i: number): Step {
  let j = i + 1;
  let cls = "[";
  if (src[j] === "^") {
    cls += "^";
    j++;
  }
  if (src[j] === "]") return { problem: "a character class that starts with ']'" };
  for (;;) {
    const d = src[j];
    if (d === undefined) return { problem: "an unclosed character class" };
    if (d === "]") break;
    if (d === "[") return { problem: "a nested character class (a Java union)" };
    if (d === "&" && src[j + 1] === "&") return { problem: "a character class intersection (&&)" };
    if (d === "\\") {
      const e = escape(src, j + 1, true);
      if ("problem" in e) return e;
      cls += e.out;
      j = e.next;
    } else {
      const char = String.fromCodePoint(src.codePointAt(j)!);
      cls += /[-^]/.test(char) || /[0-9A-Za-z]/.test(char) ? char : codeEscape(char);
      j += char.length;
    }
  }
  return { out: cls + "]", next: j + 1 };
}

/** A quantifier at `i` (`*`, `+`, `?`, `{n,m}`, lazy or not); a possessive one is refused. */
function quantifier(src: string, i: number): Step {
  const c = src[i];
  let q = c;
  if (c === "{") {
    const m = /^\{\d+(?:,\d*)?\}/.exec(src.slice(i));
    if (!m) return { problem: "a '{' that is not a {n}, {n,} or {n,m} quantifier" };
    q = m[0];
  }
  i += q.length;
  if (src[i] === "+") return { problem: "a possessive quantifier" };
  if (src[i] === "?") {
    q += "?";
    i++;
  }
  return { out: q, next: i };
}

/** Escapes text so that a `u`-mode regular expression matches exactly it. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
