/**
 * Values generated from a JSON Schema (an OpenAPI response's), a new one per call, for
 * `serve --openapi SPEC --mock --dynamic` and Prism's `Prefer: dynamic=true`. Every choice
 * comes from the `random` source it is given (src/util/random.ts: seeded with `--seed N`, the
 * same requests in the same order get the same answers), and every value is valid against the
 * schema as far as its keywords below go: `enum`/`const` pick, numbers and integers within
 * `minimum`/`maximum` (exclusive too) and `multipleOf`, strings within `minLength`/`maxLength`,
 * by `pattern` (randexp) or `format` (date-time, date, email, uuid, uri, ipv4; other formats
 * take openapi-sampler's fixed value), array lengths from `minItems` up to 3 more (within
 * `maxItems`), each optional property present or not, one branch of `oneOf`/`anyOf`, `allOf`
 * merged. The size stays bounded: at most {@link MAX_SAMPLE_VALUES} values, 15 levels deep.
 * Also the home of {@link patternSample}, the converter's fixed pattern strings.
 * @module
 */

import { sample } from "openapi-sampler";
import * as randexp from "randexp";
import { compileRegex } from "../util/regex.ts";
import { isObject } from "../util/json_shape.ts";

type Json = Record<string, unknown>;

/** The longest string a `pattern` sample may be (characters). */
const PATTERN_SAMPLE_MAX = 65_536;

/** The most values (array items, properties, string characters) a generated example may hold. */
export const MAX_SAMPLE_VALUES = 100_000;
/** How deep generation goes (openapi-sampler's `maxSampleDepth`, its default). */
export const SAMPLE_DEPTH = 15;

/** randexp is CommonJS: its module is the class, which the types call the default export. */
const RandExp = ((randexp as { default?: unknown }).default ?? randexp) as new (pattern: string) => {
  max: number;
  randInt(low: number, high: number): number;
  gen(): string;
};

/**
 * A string matching `pattern` within the schema's lengths: with no `random`, the shortest one
 * randexp builds (each quantifier at its least, each alternative the first), else one of a few
 * seeded ones; with `random`, one drawn from it. Undefined when none fits (or the pattern is not
 * one the linear-time engine runs).
 */
export function patternSample(
  pattern: string,
  minLength = 0,
  maxLength = Infinity,
  random?: () => number,
): string | undefined {
  // Bounded work: a spec's minLength can ask randexp for gigabytes; the linear-time engine already refuses repeat
  // counts whose product passes 1,000, so a pattern that compiles has a short shortest match.
  if (minLength > PATTERN_SAMPLE_MAX) return undefined;
  // A pattern the linear-time engine cannot run gets no sample (the spec is the user's to fix).
  const compiled = compileRegex(pattern);
  if ("problem" in compiled) return undefined;
  const { regex } = compiled;
  let state = 1;
  const next = () => state = (state * 1103515245 + 12345) % 2 ** 31;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const generator = new RandExp(pattern);
      generator.max = Math.max(4, minLength);
      generator.randInt = random
        ? (low: number, high: number) => low + Math.floor(random() * (high - low + 1))
        : attempt === 0
        ? (low: number) => low
        : (low: number, high: number) => low + next() % (high - low + 1);
      const text = generator.gen();
      if (text.length > PATTERN_SAMPLE_MAX) return undefined;
      if (regex.find(text) && text.length >= minLength && text.length <= maxLength) return text;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Options of {@link generateValue}. */
export interface GenerateOptions {
  /** Numbers in [0, 1): every choice. */
  random: () => number;
  /** Follows an internal `$ref`; undefined when it cannot. */
  resolve: (value: unknown) => unknown;
  /** The whole document, for openapi-sampler's fixed values of formats not generated here. */
  doc: Json;
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** One value of `schema` drawn from `random`; undefined for a schema that describes nothing. */
export function generateValue(schema: unknown, options: GenerateOptions): unknown {
  return new Generator(options).value(schema, 0);
}

class Generator {
  readonly #random: () => number;
  readonly #resolve: (value: unknown) => unknown;
  readonly #doc: Json;
  #budget = MAX_SAMPLE_VALUES;

  constructor({ random, resolve, doc }: GenerateOptions) {
    this.#random = random;
    this.#resolve = resolve;
    this.#doc = doc;
  }

  /** A whole number from `low` to `high`, both included. */
  #int(low: number, high: number): number {
    return low + Math.floor(this.#random() * (high - low + 1));
  }

  #pick<T>(list: readonly T[]): T {
    return list[this.#int(0, list.length - 1)];
  }

  value(raw: unknown, depth: number): unknown {
    this.#budget--;
    const resolved = this.#resolve(raw);
    if (!isObject(resolved)) return undefined;
    const schema = Array.isArray(resolved.allOf) ? this.#merged(resolved) : resolved;
    if (schema.const !== undefined) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length) return this.#pick(schema.enum);
    for (const key of ["oneOf", "anyOf"]) {
      const list = schema[key];
      if (Array.isArray(list) && list.length) {
        const { [key]: _, ...rest } = schema;
        const branch = this.#resolve(this.#pick(list));
        return this.value(isObject(branch) ? this.#merged({ allOf: [rest, branch] }) : rest, depth);
      }
    }
    let type = schema.type;
    if (Array.isArray(type)) {
      const types = type.filter((t) => t !== "null");
      type = types.length ? this.#pick(types) : "null";
    }
    if (type === undefined) {
      type = schema.properties !== undefined || schema.additionalProperties !== undefined
        ? "object"
        : schema.items !== undefined
        ? "array"
        : undefined;
    }
    switch (type) {
      case "object":
        return this.#object(schema, depth);
      case "array":
        return this.#array(schema, depth);
      case "integer":
        return this.#number(schema, true);
      case "number":
        return this.#number(schema, false);
      case "boolean":
        return this.#random() < 0.5;
      case "string":
        return this.#string(schema);
      case "null":
        return null;
      default:
        return this.#fixed(schema);
    }
  }

  /** openapi-sampler's value for a schema this generator does not vary. */
  #fixed(schema: Json): unknown {
    try {
      // deno-lint-ignore no-explicit-any -- the sampler's JSONSchema7 type does not know OpenAPI's keywords
      return sample(schema as any, { skipWriteOnly: true, quiet: true, maxSampleDepth: 3 }, this.#doc);
    } catch {
      return null;
    }
  }

  /** `allOf` as one schema: properties, required and the other keywords of each part (later parts win). */
  #merged(schema: Json): Json {
    const { allOf, ...rest } = schema;
    const out: Json = { ...rest };
    const properties: Json = isObject(rest.properties) ? { ...rest.properties } : {};
    const required = new Set(Array.isArray(rest.required) ? rest.required : []);
    for (const raw of Array.isArray(allOf) ? allOf : []) {
      let part = this.#resolve(raw);
      if (!isObject(part)) continue;
      if (Array.isArray(part.allOf)) part = this.#merged(part);
      const { properties: own, required: needs, ...keywords } = part as Json;
      Object.assign(out, keywords);
      if (isObject(own)) Object.assign(properties, own);
      if (Array.isArray(needs)) { for (const name of needs) required.add(name); }
    }
    if (Object.keys(properties).length) out.properties = properties;
    if (required.size) out.required = [...required];
    return out;
  }

  #object(schema: Json, depth: number): Json {
    const out: Json = {};
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const [name, raw] of Object.entries(properties)) {
      const property = this.#resolve(raw);
      const needed = required.has(name);
      // A write-only property stays out of answers unless the schema requires it.
      if (isObject(property) && property.writeOnly === true && !needed) continue;
      // Optional properties come and go; deep down or out of budget, only what is required.
      if (!needed && (depth >= SAMPLE_DEPTH || this.#budget <= 0 || this.#random() < 0.3)) continue;
      if (depth > SAMPLE_DEPTH + 5) break;
      const value = this.value(property, depth + 1);
      if (value !== undefined) out[name] = value;
    }
    return out;
  }

  #array(schema: Json, depth: number): unknown[] {
    const min = typeof schema.minItems === "number" ? Math.max(0, schema.minItems) : 0;
    const max = typeof schema.maxItems === "number" ? schema.maxItems : Infinity;
    let length = Math.min(max, min + this.#int(0, 3));
    if (depth >= SAMPLE_DEPTH || this.#budget <= 0) length = min;
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (let i = 0, tries = 0; out.length < length && tries < length * 5; tries++, i++) {
      const value = this.value(schema.items, depth + 1);
      if (schema.uniqueItems === true) {
        const key = JSON.stringify(value);
        if (seen.has(key)) continue;
        seen.add(key);
      }
      out.push(value ?? null);
    }
    return out;
  }

  #number(schema: Json, integer: boolean): number {
    let low = typeof schema.minimum === "number" ? schema.minimum : -Infinity;
    let high = typeof schema.maximum === "number" ? schema.maximum : Infinity;
    // 3.1 and draft 6+: exclusiveMinimum is the bound itself; 3.0: a flag on minimum.
    if (typeof schema.exclusiveMinimum === "number") low = Math.max(low, schema.exclusiveMinimum);
    if (typeof schema.exclusiveMaximum === "number") high = Math.min(high, schema.exclusiveMaximum);
    const lowOpen = typeof schema.exclusiveMinimum === "number" || schema.exclusiveMinimum === true;
    const highOpen = typeof schema.exclusiveMaximum === "number" || schema.exclusiveMaximum === true;
    if (low === -Infinity) low = high === Infinity ? 0 : high - 1000;
    if (high === Infinity) high = low + 1000;
    const step = typeof schema.multipleOf === "number" && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : 0;
    if (step > 0) {
      let first = Math.ceil(low / step);
      let last = Math.floor(high / step);
      if (lowOpen && first * step === low) first++;
      if (highOpen && last * step === high) last--;
      if (integer && !Number.isInteger(step)) {
        // Whole multiples of a fraction: steps whose product is whole (1 / step apart at most).
        for (let k = first; k <= last; k++) if (Number.isInteger(k * step)) return k * step;
      }
      if (last < first) return this.#fixed(schema) as number;
      const value = this.#int(first, Math.min(last, first + 1_000_000)) * step;
      return Number.isInteger(step) ? value : Number(value.toFixed(12));
    }
    const value = Math.round((low + this.#random() * (high - low)) * 100) / 100;
    if ((lowOpen && value <= low) || value < low) return (low + high) / 2;
    if ((highOpen && value >= high) || value > high) return (low + high) / 2;
    return value;
  }

  #string(schema: Json): string {
    const min = typeof schema.minLength === "number" ? schema.minLength : 0;
    const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
    if (typeof schema.pattern === "string") {
      const text = patternSample(schema.pattern, min, max, this.#random);
      if (text !== undefined) return text;
      return typeof schema.example === "string" ? schema.example : String(this.#fixed(schema));
    }
    const hex = (n: number) => Array.from({ length: n }, () => this.#int(0, 15).toString(16)).join("");
    const word = (n: number) => Array.from({ length: n }, () => LETTERS[this.#int(0, 25)]).join("");
    const pad = (n: number, width = 2) => String(n).padStart(width, "0");
    const date = () => `${this.#int(1990, 2035)}-${pad(this.#int(1, 12))}-${pad(this.#int(1, 28))}`;
    const time = () => `${pad(this.#int(0, 23))}:${pad(this.#int(0, 59))}:${pad(this.#int(0, 59))}`;
    let text: string | undefined;
    switch (schema.format) {
      case "date-time":
        text = `${date()}T${time()}Z`;
        break;
      case "date":
        text = date();
        break;
      case "email":
        text = `${word(this.#int(3, 8))}@example.com`;
        break;
      case "uuid":
        text = `${hex(8)}-${hex(4)}-4${hex(3)}-${"89ab"[this.#int(0, 3)]}${hex(3)}-${hex(12)}`;
        break;
      case "uri":
      case "url":
        text = `https://example.com/${word(this.#int(3, 10))}`;
        break;
      case "ipv4":
        text = [0, 0, 0, 0].map(() => this.#int(0, 255)).join(".");
        break;
      case undefined:
        text = word(this.#int(Math.max(min, 1), Math.max(Math.min(max, min + 12), min)));
        this.#budget -= text.length;
        return text;
      default: {
        const fixed = this.#fixed(schema);
        return typeof fixed === "string" ? fixed : String(fixed);
      }
    }
    if (text.length < min || text.length > max) {
      const fixed = this.#fixed(schema);
      return typeof fixed === "string" ? fixed : text;
    }
    return text;
  }
}
