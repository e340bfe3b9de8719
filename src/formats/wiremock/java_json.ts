/**
 * A `jsonBody` as WireMock writes it back. WireMock reads a mapping's numbers as Java's
 * `BigDecimal` (whole numbers as integers) and writes them plainly, from the file's own text:
 * `1.0` stays `1.0`, `2.50` stays `2.50`, `1e3` becomes `1000`, `-0.0` becomes `0.0`. The
 * parsed value no longer shows any of that, so the document is parsed a second time keeping
 * each number's text ({@link parseKeepingNumbers}) and written from it ({@link javaJsonText}).
 * @module
 */

/** A number as the file wrote it. */
export class NumberText {
  constructor(readonly text: string) {}
}

/** Past this depth the document is not parsed a second time (the caller falls back). */
const MAX_DEPTH = 200;
/** A plain number longer than this (`1e999999`) is not written out. */
const MAX_PLAIN = 1000;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SPACE = /[ \t\n\r]*/y;
const STRING = /"(?:[^"\\]|\\.)*"/y;

/**
 * Parses JSON text as `JSON.parse` does, but with each number a {@link NumberText}. Undefined
 * when the text is not JSON or nests deeper than 200 levels.
 */
export function parseKeepingNumbers(text: string): unknown {
  const parser = new KeepingNumbers(text);
  try {
    const out = parser.value(0);
    parser.space();
    return parser.at === text.length ? out : undefined;
  } catch (error) {
    if (error === NOT_JSON || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** Thrown inside {@link KeepingNumbers} when the text is not JSON. */
const NOT_JSON = Symbol("not JSON");

/** One pass over JSON text from `at`, numbers kept as written. */
class KeepingNumbers {
  at = 0;
  constructor(readonly text: string) {}

  space(): void {
    SPACE.lastIndex = this.at;
    SPACE.exec(this.text);
    this.at = SPACE.lastIndex;
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw NOT_JSON;
    this.space();
    const c = this.text[this.at];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.text);
    if (!m) throw NOT_JSON;
    this.at = NUMBER.lastIndex;
    return new NumberText(m[0]);
  }

  object(depth: number): Record<string, unknown> {
    this.at++;
    const out: Record<string, unknown> = {};
    this.space();
    if (this.text[this.at] === "}") {
      this.at++;
      return out;
    }
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      if (this.text[this.at++] !== ":") throw NOT_JSON;
      // As JSON.parse: an own property even for "__proto__"; a repeated key keeps its first place, the last value.
      Object.defineProperty(out, key, {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.space();
      const next = this.text[this.at++];
      if (next === "}") return out;
      if (next !== ",") throw NOT_JSON;
    }
  }

  array(depth: number): unknown[] {
    this.at++;
    const out: unknown[] = [];
    this.space();
    if (this.text[this.at] === "]") {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.space();
      const next = this.text[this.at++];
      if (next === "]") return out;
      if (next !== ",") throw NOT_JSON;
    }
  }

  string(): string {
    STRING.lastIndex = this.at;
    const m = STRING.exec(this.text);
    if (!m) throw NOT_JSON;
    this.at = STRING.lastIndex;
    return JSON.parse(m[0]);
  }
}

/**
 * A JSON number's text as Java's `BigDecimal.toPlainString()` writes it (what WireMock sends):
 * `1.0` → `1.0`, `2.50` → `2.50`, `1e3` → `1000`, `1.5e-3` → `0.0015`, `-0.0` → `0.0`.
 * Undefined for a zero with a positive exponent (`0e3`, whose plain form differs between Java
 * versions) or a plain form over 1,000 characters.
 */
export function javaPlainNumber(text: string): string | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return undefined;
  const [, sign, whole, fraction = "", exponent = "0"] = m;
  const scale = fraction.length - Number(exponent);
  if (!Number.isSafeInteger(scale) || Math.abs(scale) > MAX_PLAIN) return undefined;
  const digits = (whole + fraction).replace(/^0+(?=\d)/, "");
  if (/^0+$/.test(digits)) {
    if (scale < 0) return undefined;
    return scale === 0 ? "0" : "0." + "0".repeat(scale);
  }
  let plain: string;
  if (scale <= 0) plain = digits + "0".repeat(-scale);
  else {
    const padded = digits.padStart(scale + 1, "0");
    plain = padded.slice(0, padded.length - scale) + "." + padded.slice(padded.length - scale);
  }
  return plain.length > MAX_PLAIN ? undefined : sign + plain;
}

/** A string as Jackson writes it: JSON escapes, characters outside the BMP as `\uXXXX\uXXXX`. */
function jacksonString(value: string): string {
  return escapeSupplementary(JSON.stringify(value));
}

/** JSON text with each character outside the BMP escaped as Jackson does (`\uD83D\uDE42`, upper-case hex). */
export function escapeSupplementary(json: string): string {
  return json.replace(
    /[\ud800-\udbff][\udc00-\udfff]/g,
    (pair) => `\\u${pair.charCodeAt(0).toString(16).toUpperCase()}\\u${pair.charCodeAt(1).toString(16).toUpperCase()}`,
  );
}

/**
 * A document from {@link parseKeepingNumbers} written compactly as WireMock writes a
 * `jsonBody`; undefined when a number has no plain form {@link javaPlainNumber} gives.
 */
export function javaJsonText(value: unknown): string | undefined {
  if (value instanceof NumberText) return javaPlainNumber(value.text);
  if (typeof value === "string") return jacksonString(value);
  if (value === null || typeof value === "boolean") return String(value);
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = javaJsonText(item);
      if (text === undefined) return undefined;
      parts.push(text);
    }
    return `[${parts.join(",")}]`;
  }
  if (typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const text = javaJsonText(item);
      if (text === undefined) return undefined;
      parts.push(`${jacksonString(key)}:${text}`);
    }
    return `{${parts.join(",")}}`;
  }
  return undefined;
}
