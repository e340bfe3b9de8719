/**
 * An OpenAPI description as stubtool stubs: every operation of an OpenAPI 3.0/3.1 or
 * Swagger 2.0 document (as `readOpenApiDocument` reads it: internal `$ref`s kept) becomes
 * one config-form stub, exactly what a user would write in `stubs.yaml`, so the one
 * validator checks it, `stubtool import openapi` writes it out and `serve --openapi --mock`
 * serves it. The stub keeps the path template (`{param}` segments capture), and answers the
 * operation's first 2xx response with its example, else a value generated from its schema
 * (`openapi-sampler`), under the response's content type. An operation the stub language
 * cannot carry is left out with one warning that says why.
 * @module
 */

import { sample } from "openapi-sampler";
import { STUB_ID } from "../util/ids.ts";
import { PLACEHOLDER_ANYWHERE } from "../stubs/path.ts";
import { NULL_BODY_STATUSES, validateConfig } from "../stubs/validate.ts";
import { refusedRefIn } from "./openapi_refs.ts";
import { prepareForSampling } from "./openapi_sampling.ts";
import { isObject } from "../util/json_shape.ts";
import { acceptedType, isExactJsonMediaType } from "../util/media.ts";
import { generateValue, MAX_SAMPLE_VALUES, patternSample, SAMPLE_DEPTH } from "./openapi_dynamic.ts";

export { MAX_SAMPLE_VALUES };

type Json = Record<string, unknown>;

/** An operation left out: where, which feature, and the line to print. */
export interface OpenApiWarning {
  /** `SPEC paths./pets.get`. */
  place: string;
  /** The feature, as the message quotes it (`trace`, `application/xml`). */
  feature: string;
  /** `SPEC paths./pets.get: 'X' is not supported: why`. */
  message: string;
}

/** An answer of an operation other than its stub's (`Prefer: code=404`): its body is sent as written. */
export interface PreferredAnswer {
  status: number;
  type?: string;
  body?: unknown;
}

/** What a request asks of an operation beside its stub's answer: Prism's `Prefer` and `Accept`. */
export interface WantedAnswer {
  /** `Prefer: code=404`: that response (else its range, `4XX`). */
  code?: number;
  /** `Prefer: example=cat`: the example of that name. */
  example?: string;
  /** The `Accept` header: picks among the response's media types. */
  accept?: string | null;
  /** `Prefer: dynamic=true`, `--dynamic`: a body generated from the schema with these choices. */
  random?: () => number;
}

/** No media type of the response fits the request's `Accept`: the ones it has. */
export interface NotAcceptable {
  notAcceptable: string[];
}

/** What a document converts to. */
export interface OpenApiConversion {
  /** Config-form stubs, one per converted operation, in document order. */
  routes: Json[];
  /** The place of each stub's operation: `SPEC paths./pets.get`. */
  places: string[];
  /** Each stub's operation: its path and method as the spec writes them, and each path parameter's capture name. */
  sources: {
    path: string;
    method: string;
    captures: Record<string, string>;
    /**
     * The answer a request asks for with Prism's `Prefer` header and `Accept`, or why there is
     * none (made on first use).
     */
    prefer(wanted: WantedAnswer): PreferredAnswer | NotAcceptable | string;
  }[];
  /** One per operation left out. */
  warnings: OpenApiWarning[];
  /** One per operation served with an unambiguous fix (a 204's body dropped): `SPEC paths./x.delete: …`. */
  fixes: OpenApiWarning[];
  /** How many operations the document has. */
  operations: number;
  /** `OpenAPI 3.0.3`, `Swagger 2.0`. */
  version: string;
}

/** Options of {@link openApiToConfig}. */
export interface OpenApiImportOptions {
  /** Required query parameters and headers become request conditions (`{name}`: present, any value). */
  strictRequests?: boolean;
}

/** The keys of a path item that hold operations, as OpenAPI spells them. */
const OPERATION_KEYS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** The operations a stub can answer. */
const STUB_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch"]);
/** Header parameters OpenAPI says to ignore: the request's media types and credentials are described elsewhere. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

/** A stub's capture name for a parameter: `{user-id}` → `user_id`, unique among `taken`. */
function captureName(raw: string, taken: Set<string>): string {
  const base = raw.replace(/[^A-Za-z0-9_]/g, "_") || "param";
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** The `{name}` placeholders in the strings of a value (object keys are never substituted). */
function placeholdersIn(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === "string") {
    for (const match of value.matchAll(PLACEHOLDER_ANYWHERE)) found.add(match[1]);
  } else if (Array.isArray(value)) {
    for (const item of value) placeholdersIn(item, found);
  } else if (isObject(value)) {
    for (const item of Object.values(value)) placeholdersIn(item, found);
  }
  return found;
}

/** Keys under which a document holds values, not schemas: never looked into for patterns. */
const VALUE_KEYS = new Set(["example", "examples", "default", "enum", "const"]);

/**
 * Gives each string schema with a `pattern` (and no example, default, enum or const) an
 * `example` that matches it, in place: the sampler's own pattern strings often do not.
 */
function addPatternExamples(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) addPatternExamples(item);
    return;
  }
  if (!isObject(node)) return;
  const type = node.type;
  if (
    typeof node.pattern === "string" && node.example === undefined && node.default === undefined &&
    node.enum === undefined && node.const === undefined &&
    (type === undefined || type === "string" || (Array.isArray(type) && type.includes("string")))
  ) {
    const text = patternSample(
      node.pattern,
      typeof node.minLength === "number" ? node.minLength : undefined,
      typeof node.maxLength === "number" ? node.maxLength : undefined,
    );
    if (text !== undefined) node.example = text;
  }
  for (const [key, value] of Object.entries(node)) {
    if (!VALUE_KEYS.has(key) && !key.startsWith("x-")) addPatternExamples(value);
  }
}

/** The most bytes a generated example may take as JSON. */
export const MAX_SAMPLE_BYTES = 1 << 20;

/** A generated example past the bounds: the operation is left out with this reason. */
class SampleRefused extends Error {}

class Converter {
  readonly #doc: Json;
  readonly #file: string;
  readonly #options: OpenApiImportOptions;
  readonly #swagger: boolean;
  readonly #ids = new Set<string>();
  readonly result: OpenApiConversion;

  constructor(doc: Json, file: string, options: OpenApiImportOptions) {
    // A copy: the caller's document stays as it was.
    this.#doc = structuredClone(doc);
    addPatternExamples(this.#doc);
    prepareForSampling(this.#doc, (value) => this.resolve(value));
    this.#file = file;
    this.#options = options;
    this.#swagger = doc.swagger !== undefined;
    this.result = {
      routes: [],
      places: [],
      sources: [],
      warnings: [],
      fixes: [],
      operations: 0,
      version: this.#swagger ? `Swagger ${doc.swagger}` : `OpenAPI ${doc.openapi}`,
    };
  }

  /** Follows an internal `$ref` (`#/components/responses/Pet`), a few hops at most; an external one gives undefined. */
  resolve(value: unknown): unknown {
    for (let hops = 0; hops < 20 && isObject(value) && typeof value.$ref === "string"; hops++) {
      if (!value.$ref.startsWith("#")) return undefined;
      let target: unknown = this.#doc;
      for (const raw of value.$ref.slice(1).split("/").slice(1)) {
        const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
        target = isObject(target) ? target[key] : Array.isArray(target) ? target[Number(key)] : undefined;
      }
      value = target;
    }
    return value;
  }

  /** Refused-`$ref` markers found under each node (internal `$ref`s followed), so each node is walked once. */
  readonly #refusedUnder = new WeakMap<object, string | null>();

  /** The first `$ref` the reader refused under `value` (internal `$ref`s followed), or undefined. */
  #refusedRef(value: unknown): string | undefined {
    const own = refusedRefIn(value);
    if (own !== undefined || typeof value !== "object" || value === null) return own;
    const known = this.#refusedUnder.get(value);
    if (known !== undefined) return known ?? undefined;
    this.#refusedUnder.set(value, null); // a cycle finds nothing new
    let found: string | undefined;
    const target = isObject(value) && typeof value.$ref === "string" ? this.resolve(value) : undefined;
    if (target !== undefined && target !== value) found = this.#refusedRef(target);
    for (const child of Object.values(value)) {
      if (found !== undefined) break;
      found = this.#refusedRef(child);
    }
    this.#refusedUnder.set(value, found ?? null);
    return found;
  }

  run(): OpenApiConversion {
    const paths = isObject(this.#doc.paths) ? this.#doc.paths : {};
    for (const [path, rawItem] of Object.entries(paths)) {
      const item = this.resolve(rawItem);
      if (!isObject(item)) continue;
      for (const method of Object.keys(item)) {
        if (!OPERATION_KEYS.includes(method)) continue;
        const operation = this.resolve(item[method]);
        if (!isObject(operation)) continue;
        this.result.operations++;
        const place = `${this.#file} paths.${path}.${method}`;
        const refused = this.#refusedRef(operation) ?? this.#refusedRef(item.parameters);
        let converted: { stub: Json; fix?: [string, string]; captures: Record<string, string> } | {
          refused: [string, string];
        };
        try {
          converted = refused === undefined
            ? this.#operation(path, method, item, operation)
            : { refused: ["$ref", refused] };
        } catch (error) {
          if (!(error instanceof SampleRefused)) throw error;
          converted = { refused: ["schema", error.message] };
        }
        if ("refused" in converted) {
          const [feature, why] = converted.refused;
          this.result.warnings.push({ place, feature, message: `${place}: '${feature}' is not supported: ${why}` });
          continue;
        }
        // What the stub language refuses (the one validator) leaves the operation out, said once.
        const invalid = validateConfig({ routes: [converted.stub] }).problems.find((p) => p.level === "error");
        if (invalid !== undefined) {
          const why = invalid.message;
          this.result.warnings.push({ place, feature: "stub", message: `${place}: 'stub' is not supported: ${why}` });
          continue;
        }
        if (converted.fix !== undefined) {
          const [feature, why] = converted.fix;
          this.result.fixes.push({ place, feature, message: `${place}: ${why}` });
        }
        this.result.routes.push(converted.stub);
        this.result.places.push(place);
        this.result.sources.push({
          path,
          method,
          captures: converted.captures,
          prefer: (wanted) => this.preferred(operation, wanted),
        });
      }
    }
    return this.result;
  }

  #operation(
    path: string,
    method: string,
    item: Json,
    operation: Json,
  ): { stub: Json; fix?: [string, string]; captures: Record<string, string> } | { refused: [string, string] } {
    if (!STUB_METHODS.has(method)) {
      return {
        refused: [method, "stubtool stubs answer DELETE, GET, HEAD, OPTIONS, PATCH, POST and PUT requests"],
      };
    }
    if (path.includes("#")) {
      return {
        refused: [
          "#",
          `a request never carries the fragment, so this operation cannot be told from ${
            JSON.stringify(path.slice(0, path.indexOf("#")))
          }`,
        ],
      };
    }
    const answer = this.#answer(operation);
    if ("refused" in answer) return answer;
    // Example text is data: a `{name}` in it must never name a capture, so captures take other names.
    const captures = placeholdersIn(answer.body);
    const segments: string[] = [];
    const named: Record<string, string> = {};
    for (const piece of path.replace(/^\//, "").split("/")) {
      const whole = /^\{([^{}]+)\}$/.exec(piece);
      if (whole) segments.push(`{${named[whole[1]] = captureName(whole[1], captures)}}`);
      else if (piece.includes("{")) {
        return {
          refused: [
            "path template",
            `segment ${JSON.stringify(piece)} mixes text and a parameter; a stub's placeholder is a whole segment`,
          ],
        };
      } else segments.push(piece);
    }
    const stub: Json = { method: method.toUpperCase(), path: `/${segments.join("/")}` };
    const id = operation.operationId;
    if (typeof id === "string" && STUB_ID.test(id) && !this.#ids.has(id)) {
      this.#ids.add(id);
      stub.id = id;
    }
    if (this.#options.strictRequests) this.#conditions(stub, item, operation, captures);
    stub.status = answer.status;
    if (answer.type !== undefined) stub.headers = { "content-type": answer.type };
    if (answer.body !== undefined) stub.body = answer.body;
    return answer.fix === undefined ? { stub, captures: named } : { stub, fix: answer.fix, captures: named };
  }

  /** The status, content type and body an operation answers with, or why it cannot. */
  #answer(operation: Json): {
    status: number;
    type?: string;
    body?: unknown;
    fix?: [string, string];
  } | { refused: [string, string] } {
    const responses = this.resolve(operation.responses);
    const keys = isObject(responses) ? Object.keys(responses) : [];
    const key = keys.find((k) => /^2(?:\d\d|XX)$/i.test(k)) ?? keys.find((k) => k === "default");
    if (key === undefined) {
      return {
        refused: [
          "responses",
          `the operation declares no 2xx or default response to answer with (declared: ${keys.join(", ") || "none"})`,
        ],
      };
    }
    const answer = this.#answerFor(operation, key)!;
    // Without an Accept to meet, a response always has a media type to answer with.
    return "notAcceptable" in answer ? { refused: ["content", "no media type"] } : answer;
  }

  /**
   * The answer a request asks for with Prism's `Prefer: code=404` and/or `example=NAME`, or
   * why the operation has none: the response of that status (else its range, `4XX`), with its
   * example of that name (without a code, the first response that has one).
   */
  preferred(operation: Json, wanted: WantedAnswer): PreferredAnswer | NotAcceptable | string {
    const responses = this.resolve(operation.responses);
    const keys = isObject(responses) ? Object.keys(responses) : [];
    let candidates = keys.filter((k) => /^\d{3}$|^\dXX$/i.test(k));
    if (wanted.code === undefined && wanted.example === undefined) {
      // Accept or dynamic data alone: the response the stub answers with.
      const key = keys.find((k) => /^2(?:\d\d|XX)$/i.test(k)) ?? keys.find((k) => k === "default");
      candidates = key === undefined ? [] : [key];
    }
    if (wanted.code !== undefined) {
      const key = keys.find((k) => k === String(wanted.code)) ??
        keys.find((k) => k.toUpperCase() === `${Math.floor(wanted.code! / 100)}XX`);
      if (key === undefined) {
        return `the operation declares no ${wanted.code} response (declared: ${keys.join(", ") || "none"})`;
      }
      candidates = [key];
    }
    try {
      for (const key of candidates) {
        const answer = this.#answerFor(operation, key, wanted.example, wanted);
        if (answer === undefined) continue;
        if ("refused" in answer) return answer.refused[1];
        if ("notAcceptable" in answer) return answer;
        const status = /^\d{3}$/.test(key) ? answer.status : wanted.code ?? answer.status;
        return { status, ...(answer.type ? { type: answer.type } : {}), body: answer.body };
      }
    } catch (error) {
      if (error instanceof SampleRefused) return error.message;
      throw error;
    }
    return `no response of the operation has an example named ${JSON.stringify(wanted.example)}`;
  }

  /**
   * The answer of the operation's response `key` (`404`), with its example called `example`
   * when given (undefined when it has none by that name).
   */
  #answerFor(operation: Json, key: string, example?: string, choice: WantedAnswer = {}):
    | {
      status: number;
      type?: string;
      body?: unknown;
      fix?: [string, string];
    }
    | { refused: [string, string] }
    | NotAcceptable
    | undefined {
    const responses = this.resolve(operation.responses);
    const status = /^\d{3}$/.test(key) ? Number(key) : 200;
    const response = isObject(responses) ? this.resolve(responses[key]) : undefined;
    const found = isObject(response)
      ? this.#swagger ? this.#swaggerBody(response, operation, choice) : this.#body(response, example, choice)
      : {};
    if ("notAcceptable" in found) return found;
    const answer = found;
    if (example !== undefined && !("named" in answer)) return undefined;
    if (NULL_BODY_STATUSES.has(status)) {
      // Unambiguous: the status carries no body whatever the spec describes.
      const declared = answer.type !== undefined;
      return declared
        ? { status, fix: ["body", `status ${status} carries no body: the ${answer.type} content is dropped`] }
        : { status };
    }
    if (answer.type !== undefined && answer.body === undefined) {
      // Text or bytes described by nothing: an empty answer, text/plain for bytes as Prism gives.
      if (/^application\/octet-stream\s*(?:;|$)/i.test(answer.type)) return { status, type: "text/plain" };
      if (/^text\/[^*]+$/i.test(answer.type)) return { status, type: answer.type };
    }
    if (answer.type !== undefined && answer.body !== undefined) {
      const json = isExactJsonMediaType(answer.type);
      let type = answer.type;
      if (type.includes("*")) type = typeof answer.body === "string" ? "text/plain" : "application/json";
      else if (!json && typeof answer.body !== "string") {
        if (typeof answer.body === "number" || typeof answer.body === "boolean") answer.body = String(answer.body);
        else {
          return {
            refused: [type, "only JSON and text bodies can be written, and the response has no text example for it"],
          };
        }
      }
      return { status, type, body: answer.body };
    }
    return { status };
  }

  /** Required query parameters and headers as conditions: present, any value (captured). */
  #conditions(stub: Json, item: Json, operation: Json, captures: Set<string>): void {
    const byKey = new Map<string, Json>();
    for (const list of [item.parameters, operation.parameters]) {
      for (const raw of Array.isArray(list) ? list : []) {
        const parameter = this.resolve(raw);
        if (isObject(parameter) && typeof parameter.name === "string") {
          byKey.set(`${parameter.in}:${parameter.name}`, parameter);
        }
      }
    }
    const query: Json = {};
    const headers: Json = {};
    for (const parameter of byKey.values()) {
      if (parameter.required !== true) continue;
      const name = parameter.name as string;
      if (parameter.in === "query") query[name] = `{${captureName(name, captures)}}`;
      else if (parameter.in === "header" && !IGNORED_HEADERS.has(name.toLowerCase())) {
        headers[name.toLowerCase()] = `{${captureName(name, captures)}}`;
      }
    }
    if (Object.keys(query).length) stub.query_params = query;
    if (Object.keys(headers).length) stub.request = { headers };
  }

  /** An OpenAPI 3 response's media type and body: JSON preferred, else the first listed. */
  #body(
    response: Json,
    name?: string,
    choice: WantedAnswer = {},
  ): { type?: string; body?: unknown; named?: true } | NotAcceptable {
    const content = this.resolve(response.content);
    if (!isObject(content)) return {};
    const types = Object.keys(content);
    const ordered = [...types.filter(isExactJsonMediaType), ...types.filter((t) => !isExactJsonMediaType(t))];
    const type = choice.accept === undefined ? ordered[0] : acceptedType(choice.accept, ordered);
    if (type === undefined) return types.length ? { notAcceptable: types } : {};
    const media = this.resolve(content[type]);
    if (!isObject(media)) return {};
    if (name !== undefined) {
      const example = isObject(media.examples) ? this.resolve(media.examples[name]) : undefined;
      return isObject(example) && example.value !== undefined ? { type, body: example.value, named: true } : {};
    }
    if (choice.random && media.schema !== undefined) {
      return { type, body: this.#generated(media.schema, type, choice.random) };
    }
    if (media.example !== undefined) return { type, body: media.example };
    if (isObject(media.examples)) {
      for (const raw of Object.values(media.examples)) {
        const example = this.resolve(raw);
        if (isObject(example) && example.value !== undefined) return { type, body: example.value };
      }
    }
    return { type, body: this.#fromSchema(media.schema) };
  }

  /** A Swagger 2.0 response's media type (from `produces`) and body. */
  #swaggerBody(
    response: Json,
    operation: Json,
    choice: WantedAnswer = {},
  ): { type?: string; body?: unknown } | NotAcceptable {
    const produces = [operation.produces, this.#doc.produces].find(Array.isArray) as unknown[] | undefined;
    const types = (produces ?? ["application/json"]).filter((t): t is string => typeof t === "string");
    const examples = isObject(response.examples) ? response.examples : {};
    const ordered = [...types.filter(isExactJsonMediaType), ...types.filter((t) => !isExactJsonMediaType(t))];
    const type = choice.accept === undefined
      ? ordered[0] ?? "application/json"
      : acceptedType(choice.accept, ordered.length ? ordered : ["application/json"]);
    if (type === undefined) return { notAcceptable: types };
    if (choice.random && response.schema !== undefined) {
      return { type, body: this.#generated(response.schema, type, choice.random) };
    }
    if (examples[type] !== undefined) return { type, body: examples[type] };
    if (response.schema === undefined) return {};
    return { type, body: this.#fromSchema(response.schema) };
  }

  /** A value of the schema drawn from `random` (src/formats/openapi_dynamic.ts). */
  #generated(schema: unknown, type: string, random: () => number): unknown {
    const value = generateValue(schema, { random, resolve: (value) => this.resolve(value), doc: this.#doc });
    // JSON text, so a generated string goes out as a JSON string (a body string is sent as written).
    return isExactJsonMediaType(type) && value !== undefined ? JSON.stringify(value) : value;
  }

  /** The schema's own example (`example`, first of `examples`, `default`), else a generated value. */
  #fromSchema(raw: unknown): unknown {
    const schema = this.resolve(raw);
    if (!isObject(schema)) return undefined;
    if (schema.example !== undefined) return schema.example;
    if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
    if (schema.default !== undefined) return schema.default;
    if (schema.type === "file") return undefined;
    const size = this.#sampleSize(schema, 0, new Map());
    if (size > MAX_SAMPLE_VALUES) {
      throw new SampleRefused(
        `the example generated from its schema would hold more than ${MAX_SAMPLE_VALUES} values ` +
          "(minItems, minLength): give the response an example",
      );
    }
    let value: unknown;
    try {
      // deno-lint-ignore no-explicit-any -- the sampler's JSONSchema7 type does not know OpenAPI's keywords
      value = sample(schema as any, { skipWriteOnly: true, quiet: true, maxSampleDepth: SAMPLE_DEPTH }, this.#doc);
    } catch {
      return undefined;
    }
    const bytes = JSON.stringify(value)?.length ?? 0;
    if (bytes > MAX_SAMPLE_BYTES) {
      throw new SampleRefused(
        `the example generated from its schema takes ${bytes} bytes, past ${MAX_SAMPLE_BYTES}: give the response an example`,
      );
    }
    return value;
  }

  /**
   * About how many values the sampler makes from `raw` (array items, properties, string
   * characters), as it does: `minItems` (else 1) items, each property, `minLength` characters,
   * down to its depth. Each schema is counted once per depth, so the count takes time linear
   * in the document; it stops growing past the bound.
   */
  #sampleSize(raw: unknown, depth: number, seen: Map<object, number[]>): number {
    if (depth > SAMPLE_DEPTH + 1) return 1;
    const schema = this.resolve(raw);
    if (!isObject(schema)) return 1;
    const known = seen.get(schema)?.[depth];
    if (known !== undefined) return known;
    const counts = seen.get(schema) ?? [];
    seen.set(schema, counts);
    counts[depth] = 1; // a cycle at the same depth counts once
    let size = 1;
    const add = (n: number) => size = Math.min(size + n, MAX_SAMPLE_VALUES + 1);
    if (schema.example !== undefined || schema.default !== undefined || schema.const !== undefined) {
      counts[depth] = size;
      return size;
    }
    if (typeof schema.minLength === "number") add(Math.max(0, schema.minLength));
    const items = schema.prefixItems ?? schema.items ?? schema.contains;
    if (items !== undefined) {
      const min = typeof schema.minItems === "number" ? schema.minItems : 1;
      const length = Math.min(typeof schema.maxItems === "number" ? schema.maxItems : Infinity, min || 1);
      if (Array.isArray(items)) {
        for (const item of items) add(this.#sampleSize(item, depth + 1, seen));
        add(Math.max(0, length - items.length));
      } else add(Math.max(length, 0) * this.#sampleSize(items, depth + 1, seen));
    }
    if (isObject(schema.properties)) {
      for (const property of Object.values(schema.properties)) add(this.#sampleSize(property, depth + 1, seen));
    }
    if (isObject(schema.additionalProperties)) add(this.#sampleSize(schema.additionalProperties, depth + 1, seen));
    for (const key of ["allOf", "oneOf", "anyOf"]) {
      const list = schema[key];
      if (Array.isArray(list)) { for (const part of list) add(this.#sampleSize(part, depth, seen)); }
    }
    counts[depth] = size;
    return size;
  }
}

/**
 * Converts an OpenAPI 3.0/3.1 or Swagger 2.0 document into config-form stubs, one per
 * operation, and a warning per operation left out. Pure: `file` only names places.
 *
 * @example
 * ```ts
 * import { openApiToConfig } from "./openapi_import.ts";
 * const doc = {
 *   openapi: "3.0.3",
 *   info: { title: "Pets", version: "1" },
 *   paths: {
 *     "/pets/{petId}": {
 *       get: {
 *         responses: {
 *           "200": { description: "a pet", content: { "application/json": { example: { id: 1 } } } },
 *         },
 *       },
 *     },
 *   },
 * };
 * const { routes } = openApiToConfig(doc, "pets.yaml");
 * console.log(routes[0]);
 * // { method: "GET", path: "/pets/{petId}", status: 200, headers: { "content-type": "application/json" }, body: { id: 1 } }
 * ```
 */
export function openApiToConfig(
  doc: Record<string, unknown>,
  file: string,
  options: OpenApiImportOptions = {},
): OpenApiConversion {
  return new Converter(doc, file, options).run();
}
