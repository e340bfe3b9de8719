/**
 * The helpers a response template can call, with WireMock's names, arguments and output
 * (checked against WireMock 3.13 in tests/handlebars_test.ts). Each is a pure function of
 * its arguments, the clock and a random source: none can reach the file system, the
 * environment or the network.
 * @module
 */

import type { HelperOptions } from "handlebars";
import { evaluatePath, JsonPathWorkError } from "./jsonpath.ts";
import { formatDate, offsetDate } from "./date_format.ts";
import type { Decimal } from "decimal.js";
import { engine } from "./engine.ts";

/** A helper as Handlebars calls it: the positional arguments, then the options. */
// deno-lint-ignore no-explicit-any
export type Helper = (this: unknown, ...args: any[]) => unknown;

/** A list of values (query parameters, headers) that prints as its first value, as WireMock's do. */
export class Values extends Array<string> {
  override toString(): string {
    return this.length === 0 ? "" : this[0];
  }
}

/** Values the JSON helpers return: structured for `each`/`with`, printed as WireMock prints them. */
function printable<T extends object>(value: T, print: (value: T) => string): T {
  Object.defineProperty(value, "toString", { value: () => print(value), enumerable: false, configurable: true });
  return value;
}

/** Jackson's default pretty printer, which WireMock uses for `toJson`, `formatJson` and objects from `jsonPath`. */
export function prettyJson(value: unknown, depth = 0, limit = Infinity): string {
  const parts: string[] = [];
  let size = 0;
  const put = (piece: string): void => {
    size += piece.length;
    if (size > limit) throw new BudgetError(`the printed JSON would exceed ${limit} characters (the output limit)`, "");
    parts.push(piece);
  };
  const print = (value: unknown, depth: number): void => {
    if (value instanceof Values) return print(value.length === 1 ? value[0] : [...value], depth);
    if (value === null || typeof value !== "object") return put(JSON.stringify(value ?? null));
    if (Array.isArray(value)) {
      if (value.length === 0) return put("[ ]");
      put("[ ");
      value.forEach((item, i) => {
        if (i > 0) put(", ");
        print(item, depth);
      });
      return put(" ]");
    }
    const entries = Object.entries(value);
    if (entries.length === 0) return put("{ }");
    const inner = "  ".repeat(depth + 1);
    put("{\n");
    entries.forEach(([k, v], i) => {
      put((i > 0 ? ",\n" : "") + inner + JSON.stringify(k) + " : ");
      print(v, depth + 1);
    });
    put("\n" + "  ".repeat(depth) + "}");
  };
  print(value, depth);
  return parts.join("");
}

/** {@link prettyJson} within what the render's output budget has left, failures naming `helper`. */
function prettyWithin(value: unknown, budget: RenderBudget, helper: string): string {
  try {
    return prettyJson(value, 0, budget.limits.output - budget.output);
  } catch (e) {
    if (e instanceof BudgetError) throw new BudgetError(e.message, helper);
    throw e;
  }
}

/** What a value prints as when a helper reads it as text. */
export function text(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : String(value);
}

function isOptions(value: unknown): value is HelperOptions {
  return typeof value === "object" && value !== null && "hash" in value && "name" in value;
}

/** Splits Handlebars' `(...args, options)` into the arguments and the options. */
function split(args: unknown[]): [unknown[], HelperOptions] {
  const options = args[args.length - 1];
  if (!isOptions(options)) throw new Error("called without options");
  return [args.slice(0, -1), options];
}

/** JSON nested deeper than this is refused: reading it, and printing it back, could take seconds. */
const MAX_JSON_DEPTH = 1000;

function parseJsonText(source: string): unknown {
  if (source.length > MAX_JSON_DEPTH * 2) {
    let depth = 0;
    for (let i = 0; i < source.length; i++) {
      const c = source[i];
      if (c === '"') {
        for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === "\\") i++;
      } else if (c === "[" || c === "{") {
        if (++depth > MAX_JSON_DEPTH) throw new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
      } else if (c === "]" || c === "}") depth--;
    }
  }
  return JSON.parse(source);
}

/** A JSON document: parsed text (or the request's cached parse), or a value as it is; undefined when not JSON. */
function documentOf(source: unknown, options: HelperOptions): unknown {
  if (typeof source !== "string" && !(source instanceof Values)) return source;
  const body = text(source);
  const cached = (options.data?.root as Record<symbol, RequestDocument> | undefined)?.[REQUEST_DOCUMENT];
  if (cached && cached.text() === body) return cached.parse();
  try {
    return parseJsonText(body);
  } catch {
    return undefined;
  }
}

/** The request body's text and its parse (undefined when not JSON), shared with `jsonPath` so the body is parsed once. */
export interface RequestDocument {
  text(): string;
  parse(): unknown;
}

/** Where a template model keeps its {@link RequestDocument}: a symbol, which no template can name. */
export const REQUEST_DOCUMENT: unique symbol = Symbol("request document");

/** Where a template model keeps its {@link RenderBudget}, shared by every template of one response. */
export const RENDER_BUDGET: unique symbol = Symbol("render budget");

/** The limits of one response's rendering (P23.3). */
export interface RenderLimits {
  /** Characters of output, all of a response's templates together. */
  output: number;
  /** Loop iterations (`each`, and a block over a list). */
  iterations: number;
  /** JSONPath work: results listed, and nodes a deep scan (`..`) visits weighted by their depth. */
  jsonPath: number;
}

/** The default limits: 1 MiB of output, 100,000 iterations, 1,000,000 units of JSONPath work. */
export const DEFAULT_RENDER_LIMITS: Readonly<RenderLimits> = Object.freeze({
  output: 1024 * 1024,
  iterations: 100_000,
  jsonPath: 1_000_000,
});

/** Work past a render's budget; the handler answers 500 naming the stub and {@link helper}. */
export class BudgetError extends Error {
  readonly helper: string;
  constructor(message: string, helper: string) {
    super(message);
    this.name = "BudgetError";
    this.helper = helper;
  }
}

/** What one response's rendering may still spend. */
export class RenderBudget {
  readonly limits: Readonly<RenderLimits>;
  /** Output characters held so far. */
  output = 0;
  iterations = 0;
  jsonPath = 0;
  constructor(limits: Readonly<RenderLimits> = DEFAULT_RENDER_LIMITS) {
    this.limits = limits;
  }
  /** Sets the output held to `total` characters; throws past the limit. */
  hold(total: number, helper: string): void {
    this.output = total;
    if (total > this.limits.output) {
      throw new BudgetError(`the answer would exceed ${this.limits.output} characters (the output limit)`, helper);
    }
  }
  /** One more loop iteration. */
  iterate(helper: string): void {
    if (++this.iterations > this.limits.iterations) {
      throw new BudgetError(`more than ${this.limits.iterations} loop iterations (the limit)`, helper);
    }
  }
  /** `units` more JSONPath work. */
  search(units: number): void {
    this.jsonPath += units;
    if (this.jsonPath > this.limits.jsonPath) {
      throw new BudgetError(`more than ${this.limits.jsonPath} units of JSONPath work (the limit)`, "jsonPath");
    }
  }
}

/** The budget of the render a helper runs in (a fresh unlimited-by-default one outside a response). */
export function budgetOf(options: HelperOptions | undefined): RenderBudget {
  const root = options?.data?.root as Record<symbol, RenderBudget> | undefined;
  if (!root) return new RenderBudget();
  return root[RENDER_BUDGET] ??= new RenderBudget();
}

/** What a block helper answers: its block for true, its `{{else}}` for false; inline, the boolean. */
function decide(result: boolean, options: HelperOptions, self: unknown): unknown {
  if (typeof options.fn === "function") return result ? options.fn(self) : options.inverse(self);
  return result;
}

function empty(value: unknown): boolean {
  return !value || (Array.isArray(value) && value.length === 0);
}

// --- math: BigDecimal arithmetic as WireMock's `math` does it --------------------------

/** Exact decimals: results are never rounded by precision (operands are bounded by {@link MAX_MATH_DIGITS}). */
let exact: typeof Decimal | undefined;
const Exact = () =>
  exact ??= engine("decimal").decimal.clone({
    precision: 1e9,
    rounding: engine("decimal").decimal.ROUND_HALF_UP,
    toExpNeg: -9e15,
    toExpPos: 9e15,
  });

/** An operand written longer than this (digits before and after the point, exponent included) is refused. */
export const MAX_MATH_DIGITS = 10_000;

/** A number as BigDecimal holds it: the exact value and its scale (digits after the point; negative for `1e3`). */
interface BigDecimal {
  value: Decimal;
  scale: number;
}

/**
 * Reads an operand as Java's `new BigDecimal(text)` does (sign, digits, point, exponent; no
 * spaces), in one pass. Not a number → an error: WireMock silently reads it as 0.
 */
function decimalOf(operand: unknown): BigDecimal {
  if (operand === undefined || operand === null) throw new Error("an operand is missing (the value is empty)");
  const source = typeof operand === "number" ? String(operand) : text(operand);
  let i = 0;
  if (source[i] === "+" || source[i] === "-") i++;
  let digits = 0, fraction = 0, point = false;
  for (; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      digits++;
      if (point) fraction++;
    } else if (c === 46 && !point) point = true;
    else break;
  }
  let exponent = 0;
  let ok = digits > 0;
  if (ok && i < source.length && (source[i] === "e" || source[i] === "E")) {
    let j = i + 1;
    const negative = source[j] === "-";
    if (source[j] === "-" || source[j] === "+") j++;
    const from = j;
    for (; j < source.length && source.charCodeAt(j) >= 48 && source.charCodeAt(j) <= 57; j++) {
      if (j - from > 9) break;
    }
    ok = j > from && j - from <= 9;
    exponent = ok ? Number(source.slice(from, j)) * (negative ? -1 : 1) : 0;
    i = j;
  }
  if (!ok || i !== source.length) {
    const shown = source.length > 40 ? JSON.stringify(source.slice(0, 40)) + "…" : JSON.stringify(source);
    throw new Error(`${shown} is not a number`);
  }
  if (digits + Math.abs(exponent) > MAX_MATH_DIGITS) {
    throw new Error(`an operand is longer than ${MAX_MATH_DIGITS} digits`);
  }
  return { value: new (Exact())(source), scale: fraction - exponent };
}

/** Java's `Double.toString`: at least one decimal, exponent form outside [10⁻³, 10⁷). */
function javaDouble(value: number): string {
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e7)) {
    const [mantissa, exponent] = value.toExponential().split("e");
    return (mantissa.includes(".") ? mantissa : mantissa + ".0") + "E" + Number(exponent);
  }
  const plain = String(value);
  return plain.includes(".") ? plain : plain + ".0";
}

/** `value / 10^scale` rounded half up to `scale` places, exactly (scaled to whole numbers first). */
function divide(a: BigDecimal, b: BigDecimal): Decimal {
  const shift = Math.max(0, a.scale, b.scale, -a.scale);
  const n = a.value.times(new (Exact())(10).pow(shift + a.scale)).round();
  const d = b.value.times(new (Exact())(10).pow(shift)).round();
  // a / b to a.scale places = (a·10^(s+a.scale)) / (b·10^s) / 10^a.scale.
  const quotient = n.dividedToIntegerBy(d);
  const rest = n.minus(quotient.times(d)).abs().times(2);
  const rounded = rest.gte(d.abs()) ? quotient.plus(n.isNegative() !== d.isNegative() ? -1 : 1) : quotient;
  return rounded.dividedBy(new (Exact())(10).pow(a.scale));
}

/**
 * WireMock's `math`: BigDecimal arithmetic (`/` keeps the left operand's scale, rounding half
 * up). A whole result prints as its digits; one with a scale as Java prints the double
 * WireMock turns it into, unless the double would lose digits: then exactly.
 */
function math(left: unknown, operator: string, right: unknown): number | string {
  if (!["+", "-", "*", "/", "%"].includes(operator)) {
    throw new Error(`unknown operator ${JSON.stringify(operator)} (use '+', '-', '*', '/' or '%')`);
  }
  const a = decimalOf(left), b = decimalOf(right);
  let value: Decimal, scale: number;
  if ((operator === "/" || operator === "%") && b.value.isZero()) throw new Error("division by zero");
  switch (operator) {
    case "+":
      value = a.value.plus(b.value);
      scale = Math.max(a.scale, b.scale);
      break;
    case "-":
      value = a.value.minus(b.value);
      scale = Math.max(a.scale, b.scale);
      break;
    case "*":
      value = a.value.times(b.value);
      scale = a.scale + b.scale;
      break;
    case "/":
      value = divide(a, b);
      scale = a.scale;
      break;
    default:
      value = a.value.mod(b.value);
      scale = Math.max(a.scale, b.scale);
  }
  if (scale === 0) return value.toFixed(0);
  const double = value.toNumber();
  if (value.precision(true) <= 15 && Number.isFinite(double) && (double === 0) === value.isZero()) {
    return javaDouble(double);
  }
  return value.toFixed(Math.max(scale, 0));
}

// --- random values ---------------------------------------------------------------------

const ALPHABETS: Record<string, string> = {
  ALPHANUMERIC: "abcdefghijklmnopqrstuvwxyz0123456789",
  ALPHABETIC: "abcdefghijklmnopqrstuvwxyz",
  NUMERIC: "0123456789",
  HEXADECIMAL: "0123456789abcdef",
  ALPHANUMERIC_AND_SYMBOLS: "abcdefghijklmnopqrstuvwxyz0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
};

/** The `type` names `randomValue` accepts. */
export const RANDOM_TYPES: readonly string[] = [...Object.keys(ALPHABETS), "UUID"];

function randomValue(hash: Record<string, unknown>): string {
  const type = text(hash.type ?? "ALPHANUMERIC").toUpperCase();
  let out: string;
  if (type === "UUID") out = crypto.randomUUID();
  else {
    const alphabet = ALPHABETS[type];
    if (!alphabet) throw new Error(`unknown type ${JSON.stringify(type)} (use one of ${RANDOM_TYPES.join(", ")})`);
    const length = Number(hash.length ?? 36);
    if (!Number.isInteger(length) || length < 0 || length > 65536) {
      throw new Error(`length must be an integer from 0 to 65536`);
    }
    // getRandomValues fills at most 65,536 bytes (16,384 numbers) a call.
    const bytes = new Uint32Array(length);
    for (let at = 0; at < length; at += 16_384) crypto.getRandomValues(bytes.subarray(at, at + 16_384));
    const chars: string[] = new Array(length);
    for (let i = 0; i < length; i++) chars[i] = alphabet[bytes[i] % alphabet.length];
    out = chars.join("");
  }
  return hash.uppercase === true || hash.uppercase === "true" ? out.toUpperCase() : out;
}

function randomInt(hash: Record<string, unknown>): number {
  const lower = hash.lower === undefined ? -(2 ** 31) : Math.trunc(Number(text(hash.lower)));
  const upper = hash.upper === undefined ? 2 ** 31 - 1 : Math.trunc(Number(text(hash.upper)));
  if (!Number.isFinite(lower) || !Number.isFinite(upper) || upper <= lower) {
    throw new Error(`'upper' must be greater than 'lower'`);
  }
  const [r] = crypto.getRandomValues(new Uint32Array(1));
  return lower + Math.floor((r / 2 ** 32) * (upper - lower));
}

// --- text ------------------------------------------------------------------------------

const utf8 = new TextEncoder();
const utf8Decode = new TextDecoder();

function base64(value: string, hash: Record<string, unknown>): string {
  if (hash.decode === true || hash.decode === "true") {
    const clean = value.trim().replace(/-/g, "+").replace(/_/g, "/");
    let binary: string;
    try {
      binary = atob(clean + "=".repeat((4 - (clean.length % 4)) % 4));
    } catch {
      throw new Error(`${JSON.stringify(value)} is not base64 text`);
    }
    return utf8Decode.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  }
  let binary = "";
  for (const byte of utf8.encode(value)) binary += String.fromCharCode(byte);
  const encoded = btoa(binary);
  return hash.padding === false || hash.padding === "false" ? encoded.replace(/=+$/, "") : encoded;
}

/** Java's `URLEncoder` (form encoding): spaces become `+`; `.`, `-`, `*`, `_` stay. */
function urlEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()~]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, "+");
}

function urlDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    throw new Error(`${JSON.stringify(value)} is not URL-encoded text`);
  }
}

function size(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === "string" || Array.isArray(value)) return value.length;
  if (typeof value === "object") return Object.keys(value).length;
  return text(value).length;
}

function flatten(items: unknown[]): unknown[] {
  return items.flatMap((item) => Array.isArray(item) ? item : [item]);
}

/** Every helper, by the name templates call it. */
export const HELPERS: Record<string, Helper> = {
  jsonPath(...args) {
    const [[source, path], options] = split(args);
    const document = documentOf(source, options);
    const fallback = options.hash.default;
    if (document === undefined) return fallback ?? "";
    const budget = budgetOf(options);
    let found;
    try {
      found = evaluatePath(document, text(path), budget.limits.jsonPath - budget.jsonPath);
    } catch (e) {
      if (e instanceof JsonPathWorkError) throw new BudgetError(e.message, "jsonPath");
      throw e;
    }
    if (found.kind === "list") budget.search(found.values.length);
    const printList = (list: unknown[]): string => {
      // Each item printed alone, so a list whose text would pass the output limit stops early.
      const left = budget.limits.output - budget.output;
      let size = 2;
      const pieces = list.map((item) => {
        const piece = JSON.stringify(item) ?? "null";
        size += piece.length + 1;
        if (size > left) {
          throw new BudgetError(
            `the list found would exceed ${budget.limits.output} characters (the output limit)`,
            "jsonPath",
          );
        }
        return piece;
      });
      return "[" + pieces.join(",") + "]";
    };
    if (found.kind === "none") return fallback ?? "";
    if (found.kind === "list") return printable(found.values, printList);
    const value = found.value;
    if (value === null) return fallback ?? "";
    if (Array.isArray(value)) return printable(value.slice(), printList);
    if (typeof value === "object") return printable({ ...value }, (v) => prettyWithin(v, budget, "jsonPath"));
    return value;
  },
  parseJson(...args) {
    const [[source], options] = split(args);
    const value = parseJsonText(text(source ?? (options.fn ? options.fn(this) : "")));
    return value;
  },
  toJson(...args) {
    const [[value], options] = split(args);
    return prettyWithin(value, budgetOf(options), "toJson");
  },
  formatJson(...args) {
    const [[source], options] = split(args);
    const raw = source === undefined && options.fn ? options.fn(this) : source;
    return prettyWithin(typeof raw === "string" ? parseJsonText(raw) : raw, budgetOf(options), "formatJson");
  },
  now(...args) {
    const [, options] = split(args);
    const hash = options.hash as Record<string, unknown>;
    let date = new Date();
    if (hash.offset !== undefined) date = offsetDate(date, text(hash.offset));
    return formatDate(
      date,
      hash.format === undefined ? undefined : text(hash.format),
      hash.timezone === undefined ? undefined : text(hash.timezone),
    );
  },
  randomValue(...args) {
    const options = split(args)[1];
    const out = randomValue(options.hash);
    const budget = budgetOf(options);
    budget.hold(budget.output + out.length, "randomValue");
    return out;
  },
  randomInt(...args) {
    return randomInt(split(args)[1].hash);
  },
  math(...args) {
    const [[left, operator, right]] = split(args);
    return math(left, text(operator), right);
  },
  base64(...args) {
    const [[value], options] = split(args);
    return base64(value === undefined && options.fn ? options.fn(this) : text(value), options.hash);
  },
  urlEncode(...args) {
    const [[value], options] = split(args);
    const source = value === undefined && options.fn ? options.fn(this) : text(value);
    return options.hash.decode === true || options.hash.decode === "true" ? urlDecode(source) : urlEncode(source);
  },
  trim(...args) {
    const [[value], options] = split(args);
    return (value === undefined && options.fn ? options.fn(this) : text(value)).trim();
  },
  upper(value) {
    return text(value).toUpperCase();
  },
  lower(value) {
    return text(value).toLowerCase();
  },
  capitalize(...args) {
    const [[value], options] = split(args);
    const fully = options.hash.fully === true;
    return text(value).replace(
      /\S+/g,
      (word) => word[0].toUpperCase() + (fully ? word.slice(1).toLowerCase() : word.slice(1)),
    );
  },
  size(value) {
    return size(value);
  },
  array(...args) {
    return split(args)[0];
  },
  join(...args) {
    const [params, options] = split(args);
    if (params.length < 2) throw new Error("write the items, then the separator: {{join items ','}}");
    const separator = params[params.length - 1];
    if (typeof separator !== "string") {
      throw new Error(`the last argument must be the separator, got ${text(separator)}`);
    }
    const items = flatten(params.slice(0, -1)).map(text).join(separator);
    return text(options.hash.prefix) + items + text(options.hash.suffix);
  },
  arrayJoin(...args) {
    const [[separator, ...items], options] = split(args);
    return text(options.hash.prefix) + flatten(items).map(text).join(text(separator)) + text(options.hash.suffix);
  },
  contains(...args) {
    const [[container, item], options] = split(args);
    const found = Array.isArray(container)
      ? container.some((entry) => text(entry) === text(item))
      : text(container).includes(text(item));
    return decide(found, options, this);
  },
  eq(...args) {
    const [[a, b], options] = split(args);
    return decide(a === b, options, this);
  },
  neq(...args) {
    const [[a, b], options] = split(args);
    return decide(a !== b, options, this);
  },
  gt(...args) {
    const [[a, b], options] = split(args);
    return decide((a as number) > (b as number), options, this);
  },
  gte(...args) {
    const [[a, b], options] = split(args);
    return decide((a as number) >= (b as number), options, this);
  },
  lt(...args) {
    const [[a, b], options] = split(args);
    return decide((a as number) < (b as number), options, this);
  },
  lte(...args) {
    const [[a, b], options] = split(args);
    return decide((a as number) <= (b as number), options, this);
  },
  and(...args) {
    const [params, options] = split(args);
    return decide(params.every((p) => !empty(p)), options, this);
  },
  or(...args) {
    const [params, options] = split(args);
    return decide(params.some((p) => !empty(p)), options, this);
  },
  not(...args) {
    const [[value], options] = split(args);
    return decide(empty(value), options, this);
  },
};

// --- handlebars-java's StringHelpers, which WireMock 3 registers ----------------------

/** Handlebars-java's `Utils.isEmpty` for `defaultIfEmpty`: null, `""`, false, an empty list. */
function emptyValue(value: unknown): boolean {
  return value === null || value === undefined || value === "" || value === false ||
    (Array.isArray(value) && value.length === 0);
}

/** A whole number argument (`size=5`, `10`), or an error naming the helper. */
function count(helper: string, value: unknown): number {
  const n = typeof value === "number" ? value : Number(text(value));
  if (!Number.isSafeInteger(n) || n < 0 || n > 65_536) {
    throw new Error(`${helper}: expected a whole number from 0 to 65536, got ${JSON.stringify(text(value))}`);
  }
  return n;
}

/** Commons Lang's `StringUtils.leftPad`/`rightPad`/`center` with a one-character (or longer) pad. */
function pad(value: string, size: number, padding: string, side: "left" | "right" | "center"): string {
  const fill = padding === "" ? " " : padding;
  const missing = size - value.length;
  if (missing <= 0) return value;
  const run = (n: number) => fill.repeat(Math.ceil(n / fill.length)).slice(0, n);
  if (side === "left") return run(missing) + value;
  if (side === "right") return value + run(missing);
  const before = Math.floor(missing / 2);
  return run(before) + value + run(missing - before);
}

/** Commons Text's `WordUtils.wrap(text, length)`: lines broken at spaces, long words left whole, `\n` between. */
function wordWrap(value: string, length: number): string {
  const width = Math.max(1, length);
  const lines: string[] = [];
  let rest = value;
  while (rest.length > width) {
    if (rest[0] === " ") {
      rest = rest.slice(1);
      continue;
    }
    let cut = rest.lastIndexOf(" ", width);
    if (cut <= 0) {
      cut = rest.indexOf(" ", width);
      if (cut < 0) break;
    }
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut + 1);
  }
  lines.push(rest);
  return lines.join("\n");
}

/** Java's `String.format` for the specifiers templates use: `%s`, `%d` and `%%`; others fail the render. */
function stringFormat(format: string, params: unknown[]): string {
  let next = 0;
  return format.replace(/%([sd%])|%./g, (whole, kind: string | undefined) => {
    if (kind === "%") return "%";
    if (kind === undefined) throw new Error(`stringFormat: stubtool formats %s, %d and %% only, got ${whole}`);
    if (next >= params.length) throw new Error(`stringFormat: no argument for ${whole}`);
    const value = params[next++];
    if (kind === "d" && !(typeof value === "number" && Number.isInteger(value))) {
      throw new Error(`stringFormat: %d needs a whole number, got ${JSON.stringify(text(value))}`);
    }
    return text(value);
  });
}

Object.assign(
  HELPERS,
  {
    defaultIfEmpty(...args: unknown[]) {
      const [[value, fallback]] = split(args);
      return emptyValue(value) ? fallback : value;
    },
    abbreviate(...args: unknown[]) {
      const [[value, width]] = split(args);
      const source = text(value);
      const max = count("abbreviate", width);
      if (max < 4) throw new Error("abbreviate: the width must be 4 or more");
      return source.length <= max ? source : source.slice(0, max - 3) + "...";
    },
    capitalizeFirst(value: unknown) {
      const source = text(value);
      return source === "" ? "" : source[0].toUpperCase() + source.slice(1);
    },
    center(...args: unknown[]) {
      const [[value], options] = split(args);
      return pad(text(value), count("center", options.hash.size), text(options.hash.pad ?? " "), "center");
    },
    ljust(...args: unknown[]) {
      const [[value], options] = split(args);
      return pad(text(value), count("ljust", options.hash.size), text(options.hash.pad ?? " "), "right");
    },
    rjust(...args: unknown[]) {
      const [[value], options] = split(args);
      return pad(text(value), count("rjust", options.hash.size), text(options.hash.pad ?? " "), "left");
    },
    cut(...args: unknown[]) {
      const [[value, strip]] = split(args);
      return text(value).replaceAll(strip === undefined ? " " : text(strip), "");
    },
    replace(...args: unknown[]) {
      const [[value, target, replacement]] = split(args);
      const find = text(target);
      return find === "" ? text(value) : text(value).replaceAll(find, text(replacement));
    },
    substring(...args: unknown[]) {
      const [[value, start, end]] = split(args);
      const source = text(value);
      const from = count("substring", start);
      const to = end === undefined ? source.length : count("substring", end);
      if (from > to || to > source.length) {
        throw new Error(`substring: ${from}..${to} is outside the text (length ${source.length})`);
      }
      return source.slice(from, to);
    },
    slugify(value: unknown) {
      // deno-lint-ignore no-control-regex -- non-ASCII is exactly what Java's [^\p{ASCII}] drops
      return text(value).normalize("NFD").replace(/[^\x00-\x7f]/g, "").replace(/[^\w\s-]/g, "").trim()
        .toLowerCase().replace(/[-\s]+/g, "-");
    },
    stripTags(value: unknown) {
      return text(value).replace(/<[^>]*>/g, "");
    },
    wordWrap(...args: unknown[]) {
      const [[value, length]] = split(args);
      return wordWrap(text(value), count("wordWrap", length));
    },
    yesno(...args: unknown[]) {
      const [[value], options] = split(args);
      const { yes = "yes", no = "no", maybe = "maybe" } = options.hash as Record<string, unknown>;
      return value === true ? yes : value === false ? no : maybe;
    },
    stringFormat(...args: unknown[]) {
      const [[format, ...params]] = split(args);
      return stringFormat(text(format), params);
    },
  } satisfies Record<string, Helper>,
);

/** `ne`: the name stubtool's contract gives WireMock's `neq`. */
HELPERS.ne = HELPERS.neq;
