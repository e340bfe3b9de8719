/**
 * Contract drift against an OpenAPI document (3.0 or 3.1, YAML or JSON): which stubs
 * answer what the spec does not describe (an operation that does not exist, a status it
 * does not declare, a JSON body its response schema rejects), which operations no stub
 * covers, and which unmatched requests called an operation the spec does describe.
 *
 * `stubtool validate --openapi`, `stubtool report --openapi` and `stubtool serve --openapi`
 * (src/cli/serve_openapi.ts) load this module when they are given a spec; the OpenAPI parser
 * (`npm:@readme/openapi-parser`) and the JSON Schema validator (`npm:ajv`, `npm:ajv-formats`)
 * load when a spec is read, so a `serve` without `--openapi` never pays for them.
 * @module
 */

import { isDeepStrictEqual } from "node:util";
import { messageOf } from "../error_message.ts";
import { compileRegex, type LinearRegex } from "../util/regex.ts";
import type { CheckAnswer, CheckedRequest, CompiledStub, RequestCheck, ResponseSpec } from "../stubs/model.ts";
import { decodeSegment, PLACEHOLDER_ANYWHERE, placeholderName } from "../stubs/path.ts";
import type { Report } from "./types.ts";
import type { Problem } from "../stubs/validate.ts";
import { isObject } from "../util/json_shape.ts";
import { isExactJsonMediaType, isJsonMediaType } from "../util/media.ts";
import { atPointer, pointerToken } from "../util/json_pointer.ts";

/** HTTP methods an OpenAPI path item may hold, as its keys spell them. */
const SPEC_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** One operation of the spec: a method on a path template. */
export interface SpecOperation {
  /** Upper-case: `GET`. */
  method: string;
  /** The path template as the spec writes it: `/users/{userId}`. */
  path: string;
  operationId?: string;
}

/** One problem of a request, as Prism lists it: where (`["query", "limit"]`), how bad, which rule, why. */
export interface Violation {
  location: string[];
  severity: "Error";
  code: string;
  message: string;
}

/** Request headers OpenAPI says to ignore as parameters: described by the media types and `security`. */
const IGNORED_REQUEST_HEADERS = new Set(["accept", "content-type", "authorization"]);

/** A request body that is not JSON, where the operation takes JSON. */
class InvalidJson extends Error {}

function nullToUndefined<T>(value: T | null | undefined): T | undefined {
  return value ?? undefined;
}

/** An `application/problem+json` answer. */
function problem(status: number, headers: Record<string, string>, fields: Json): CheckAnswer {
  return {
    status,
    headers: { ...headers, "content-type": "application/problem+json" },
    body: JSON.stringify({ type: fields.type, title: fields.title, status, detail: fields.detail, ...fields }),
  };
}

/** How a request carries a security scheme's credentials, and the challenge naming it. */
function credential(scheme: Json): { present: (request: CheckedRequest) => boolean; challenge: string } {
  const name = typeof scheme.name === "string" ? scheme.name : "";
  const authorization = (prefix: string) => (request: CheckedRequest) =>
    (request.header("authorization") ?? "").toLowerCase().startsWith(`${prefix} `);
  if (scheme.type === "apiKey") {
    const present = scheme.in === "query"
      ? (request: CheckedRequest) => request.query(name) !== undefined
      : scheme.in === "cookie"
      ? (request: CheckedRequest) =>
        (request.header("cookie") ?? "").split(";").some((c) => c.trim().startsWith(`${name}=`))
      : (request: CheckedRequest) => request.header(name.toLowerCase()) !== null;
    return { present, challenge: `ApiKey ${scheme.in ?? "header"}="${name}"` };
  }
  const http = typeof scheme.scheme === "string" ? scheme.scheme.toLowerCase() : "";
  if (scheme.type === "basic" || (scheme.type === "http" && http === "basic")) {
    return { present: authorization("basic"), challenge: 'Basic realm="*"' };
  }
  if (scheme.type === "http" && http !== "bearer") {
    return { present: authorization(http), challenge: http.charAt(0).toUpperCase() + http.slice(1) };
  }
  // bearer, oauth2, openIdConnect: a bearer token.
  return { present: authorization("bearer"), challenge: "Bearer" };
}

/** A spec operation no stub covers. */
export interface UncoveredOperation {
  method: string;
  path: string;
  /** The operation's `operationId`, when it has one. */
  operation_id?: string;
}

/** An unmatched request that calls an operation the spec describes: a real endpoint nobody stubbed. */
export interface UnstubbedRequest {
  method: string;
  /** The request path, as recorded (no query string). */
  path: string;
  /** The raw query string, only when non-empty. */
  query?: string;
  timestamp: string;
  /** The spec operation it calls: `GET /users/{userId}/invoices`. */
  operation: string;
}

/** What `stubtool report --openapi` adds to the report (the `openapi` key of `--format json`). */
export interface OpenApiDrift {
  /** The spec file, as given. */
  spec: string;
  /** The document's `openapi` version: `3.0.3`, `3.1.0`. */
  version: string;
  /** How many operations the spec has. */
  operations: number;
  uncovered_operations: UncoveredOperation[];
  unstubbed_requests: UnstubbedRequest[];
}

/** A path segment to match against spec templates: literal text, or a stub's `{name}` placeholder. */
type PathPart = { param: true } | { param: false; value: string };

type SpecSegment =
  | { kind: "static"; value: string }
  | { kind: "param" }
  | { kind: "pattern"; regex: LinearRegex };

type Json = Record<string, unknown>;

interface Operation extends SpecOperation {
  segments: SpecSegment[];
  /** `responses` of the operation: status key (`200`, `2XX`, `default`) → response object. */
  responses: Json;
  /** JSON pointer of `responses`, for schema references. */
  pointer: string;
}

function specSegments(path: string): SpecSegment[] {
  return path.replace(/^\//, "").split("/").map((piece): SpecSegment => {
    if (/^\{[^{}]+\}$/.test(piece)) return { kind: "param" };
    if (!piece.includes("{")) return { kind: "static", value: decodeSegment(piece) };
    // `{name}.json`, `v{major}`: each template expression matches one or more characters.
    const source = piece.split(/\{[^{}]*\}/).map((text) => decodeSegment(text).replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    // Several `.+` would be polynomial on a backtracking engine: the linear one runs it.
    const compiled = compileRegex(source.join(".+"), { dotAll: true });
    if ("problem" in compiled) throw new Error(`path template piece ${JSON.stringify(piece)} ${compiled.problem}`);
    return { kind: "pattern", regex: compiled.regex };
  });
}

/** How well a part fits a spec segment: 3 the same literal, 2 a partial template, 1 a placeholder, 0 not at all. */
function fit(part: PathPart, segment: SpecSegment): number {
  if (part.param) return segment.kind === "param" ? 1 : 0;
  switch (segment.kind) {
    case "static":
      return segment.value === part.value ? 3 : 0;
    case "pattern":
      return segment.regex.test(part.value) ? 2 : 0;
    default:
      return part.value === "" ? 0 : 1;
  }
}

/** Splits a stub's path template (`/users/{id}`, as the report shows it) into parts. */
function templateParts(path: string): PathPart[] {
  return path.replace(/^\//, "").split("/").map((piece) =>
    placeholderName(piece) !== undefined ? { param: true } : { param: false, value: decodeSegment(piece) }
  );
}

/** Splits a request path (percent-encoded, as recorded) into decoded literal parts. */
function requestParts(path: string): PathPart[] {
  return path.replace(/^\//, "").split("/").map((piece) => ({ param: false, value: decodeSegment(piece) }));
}

/**
 * The path part of each server URL (`https://api.example.com/v1` → `["v1"]`; Swagger 2.0's
 * `basePath`), then the root: a request may carry one in front of an operation's path, or not.
 */
export function basePaths(doc: Json): string[][] {
  const bases: string[][] = [];
  const seen = new Set<string>();
  const servers = doc.swagger !== undefined
    ? (typeof doc.basePath === "string" ? [{ url: doc.basePath }] : [])
    : Array.isArray(doc.servers)
    ? doc.servers
    : [];
  for (const server of servers) {
    if (!isObject(server) || typeof server.url !== "string") continue;
    const variables = isObject(server.variables) ? server.variables : {};
    const url = server.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
      const variable = variables[name];
      return isObject(variable) && typeof variable.default === "string" ? variable.default : whole;
    });
    let path: string;
    try {
      path = new URL(url, "http://relative.invalid").pathname;
    } catch {
      continue;
    }
    const segments = path.split("/").filter((s) => s !== "").map(decodeSegment);
    const key = segments.join("/");
    if (segments.length && !seen.has(key)) {
      seen.add(key);
      bases.push(segments);
    }
  }
  bases.push([]);
  return bases;
}

/** OpenAPI's integer and number formats, which ajv-formats does not know. */
const OPENAPI_FORMATS: Record<string, { type: "number" | "string"; validate: (value: never) => boolean }> = {
  int32: { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
  int64: { type: "number", validate: (n: number) => Number.isInteger(n) },
  float: { type: "number", validate: () => true },
  double: { type: "number", validate: () => true },
  byte: { type: "string", validate: (s: string) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0 },
  binary: { type: "string", validate: () => true },
  password: { type: "string", validate: () => true },
};

/** The keywords of a schema object whose values are schemas, lists of schemas, or maps of schemas. */
const SUBSCHEMA = ["not", "items", "additionalProperties", "contains", "propertyNames", "if", "then", "else"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/**
 * Turns an OpenAPI 3.0 schema into the JSON Schema ajv validates (in place, once per
 * object): `nullable: true` admits `null` (as a type, an enum member, or around a schema
 * without `type`, like `allOf: [$ref]`), and the boolean `exclusiveMinimum`/`exclusiveMaximum`
 * of draft 4 become numbers.
 */
function adaptOpenApi30(schema: unknown, seen: WeakSet<object>): void {
  if (!isObject(schema) || seen.has(schema)) return;
  seen.add(schema);
  for (const key of SUBSCHEMA) adaptOpenApi30(schema[key], seen);
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) { for (const item of list) adaptOpenApi30(item, seen); }
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (isObject(map)) { for (const item of Object.values(map)) adaptOpenApi30(item, seen); }
  }
  if (Array.isArray(schema.items)) { for (const item of schema.items) adaptOpenApi30(item, seen); }
  for (const [exclusive, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (typeof schema[exclusive] !== "boolean") continue;
    if (schema[exclusive] && typeof schema[bound] === "number") {
      schema[exclusive] = schema[bound];
      delete schema[bound];
    } else delete schema[exclusive];
  }
  // Swagger 2.0 spells it `x-nullable`.
  const nullable = schema.nullable === true || schema["x-nullable"] === true;
  delete schema.nullable;
  if (!nullable) return;
  if (typeof schema.type === "string") schema.type = [schema.type, "null"];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  if (schema.type === undefined && schema.$ref === undefined && schema.enum === undefined) {
    const rest = { ...schema };
    for (const key of Object.keys(schema)) delete schema[key];
    schema.anyOf = [{ type: "null" }, rest];
  } else if (schema.$ref !== undefined) {
    const { $ref } = schema;
    delete schema.$ref;
    const rest = { ...schema };
    for (const key of Object.keys(schema)) delete schema[key];
    schema.anyOf = [{ type: "null" }, { ...rest, $ref }];
  }
}

/** The subset of ajv's API this module uses. */
/**
 * ajv's engine for the spec's `pattern` and `patternProperties`: the linear-time one (a
 * pattern it cannot run fails the schema's compilation, which the check reports).
 */
const linearRegExp = Object.assign((pattern: string) => {
  const compiled = compileRegex(pattern);
  if ("problem" in compiled) throw new Error(`pattern ${JSON.stringify(pattern)} ${compiled.problem}`);
  const { regex } = compiled;
  return { test: (s: string) => regex.find(s), toString: () => `/${pattern}/` };
}, { code: "linearRegExp" });

interface AjvLike {
  addSchema(schema: object, key: string): unknown;
  compile(schema: object): ValidateFn;
  addFormat(name: string, format: { type: "number" | "string"; validate: (value: never) => boolean }): unknown;
}

interface SchemaError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

interface ValidateFn {
  (data: unknown): boolean;
  errors?: SchemaError[] | null;
}

const SPEC_KEY = "openapi-spec";

/** `#/a/b` with each token percent-encoded where a URI fragment needs it. */
function fragment(pointer: string): string {
  return "#" + pointer.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g, (c) => encodeURIComponent(c));
}

/** A value for a message: `"x"` (cut at 40 characters), `42`, `null`, `a list`, `an object`. */
function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (isObject(value)) return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** A JSON number as JSON writes it (no `0x10`, no spaces, no `Infinity`). */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The values a parameter's text can stand for: itself, and the number, boolean or null it
 * spells (`"0"` → `0`, `"true"` → `true`, `""` → `null`), as ajv's coercion reads them.
 */
function textReadings(text: string): unknown[] {
  const readings: unknown[] = [text];
  if (JSON_NUMBER.test(text)) readings.push(Number(text));
  if (text === "true" || text === "false") readings.push(text === "true");
  if (text === "") readings.push(null);
  return readings;
}

/** One part of a request check: it adds the request's violations to `out` (throws {@link InvalidJson}). */
type PartCheck = (request: CheckedRequest, out: Violation[]) => void;

/**
 * The check of one path, query or header parameter (at `pointer`) against its schema, read as
 * its schema's type (`ajv` coerces), else as any value its text spells, checked exactly
 * (`exactAjv`: a `oneOf` of integer and string takes `"0"` as the integer), and of its presence
 * when required; undefined for a parameter not checked.
 */
function parameterCheck(
  compile: (pointer: string, exact: boolean) => ValidateFn,
  parameter: Json,
  pointer: string,
  captureOf: Record<string, string>,
): PartCheck | undefined {
  const name = parameter.name as string;
  const where = parameter.in as string;
  if (where === "header" && IGNORED_REQUEST_HEADERS.has(name.toLowerCase())) return undefined;
  if (where !== "path" && where !== "query" && where !== "header") return undefined;
  const validate = isObject(parameter.schema) ? compile(`${pointer}/schema`, false) : undefined;
  // The same schema without coercion, compiled the first time a text fails the coercing one.
  const readable = (text: string) => textReadings(text).some((v) => compile(`${pointer}/schema`, true)({ v }));
  const required = parameter.required === true || where === "path";
  return (request, out) => {
    const values = where === "query"
      ? request.query(name)
      : where === "header"
      ? nullToUndefined(request.header(name.toLowerCase()))
      : captureOf[name] === undefined
      ? undefined
      : nullToUndefined(request.params[captureOf[name]]);
    if (values === undefined || (Array.isArray(values) && values.length === 0)) {
      if (required) {
        out.push({
          location: [where],
          severity: "Error",
          code: "required",
          message: `must have required property '${name}'`,
        });
      }
      return;
    }
    if (!validate) return;
    const value = Array.isArray(values) && values.length === 1 ? values[0] : values;
    if (validate({ v: value })) return;
    // Coercion reads "0" as the integer 0 in one `oneOf` branch and leaves it "0" in another, so
    // both match; Prism takes the text when one reading of it (as text, number, boolean, null) fits.
    if (typeof value === "string" && readable(value)) return;
    for (const e of validate.errors ?? []) {
      const rest = e.instancePath.replace(/^\/v/, "").split("/").filter((s) => s !== "");
      out.push({ location: [where, name, ...rest], severity: "Error", code: e.keyword, message: e.message ?? "" });
    }
  };
}

/**
 * A request check of the operation `label`: `401` without credentials (`security`), `400` for
 * a body that is not JSON, `422` listing the violations of `checks`, undefined when it passes.
 */
function checkRequest(
  label: string,
  checks: PartCheck[],
  security: ((request: CheckedRequest) => string | undefined) | undefined,
): RequestCheck["check"] {
  return (request) => {
    if (security) {
      const challenge = security(request);
      if (challenge !== undefined) {
        return {
          ...problem(401, { "www-authenticate": challenge }, {
            type: "UNAUTHORIZED",
            title: "Invalid security scheme used",
            detail: `${label} requires credentials the request does not carry`,
          }),
          violations: [{ operation: label, location: ["security"], message: `no credentials (${challenge})` }],
        };
      }
    }
    const out: Violation[] = [];
    try {
      for (const check of checks) check(request, out);
    } catch (error) {
      if (!(error instanceof InvalidJson)) throw error;
      return {
        ...problem(400, {}, {
          type: "BAD_REQUEST",
          title: "The request body is not valid JSON",
          detail: `${label} takes a JSON body`,
          validation: [{ location: ["body"], severity: "Error", code: "json", message: "must be valid JSON" }],
        }),
        violations: [{ operation: label, location: ["body"], message: "must be valid JSON" }],
      };
    }
    if (!out.length) return undefined;
    return {
      ...problem(422, {}, {
        type: "UNPROCESSABLE_ENTITY",
        title: "Invalid request",
        detail: `the request does not match ${label} in the spec`,
        validation: out,
      }),
      violations: out.map(({ location, message }) => ({ operation: label, location, message })),
    };
  };
}

/**
 * A loaded OpenAPI document: its operations, matched by method and path template, and the
 * JSON Schemas of their responses, compiled on first use. Create one with {@link loadOpenApi}.
 */
export class OpenApiSpec {
  /** The spec file, as given. */
  readonly file: string;
  /** The document's `openapi` version. */
  readonly version: string;
  readonly #doc: Json;
  readonly #operations: Operation[];
  readonly #bases: string[][];
  readonly #ajv: AjvLike;
  readonly #validators = new Map<string, ValidateFn | string>();
  /** Parameter validators by `coerced POINTER` / `exact POINTER`: shared parameters compile once. */
  readonly #parameterValidators = new Map<string, ValidateFn>();

  /** What the checks cannot cover in this document, as `[WARN]` lines to print once. */
  readonly warnings: readonly Problem[];

  readonly #requestAjv: (() => AjvLike) | undefined;
  #requestAjvShared: AjvLike | undefined;

  /** @internal Use {@link loadOpenApi}. */
  constructor(
    file: string,
    doc: Json,
    ajv: AjvLike,
    warnings: readonly Problem[] = [],
    requestAjv?: () => AjvLike,
  ) {
    this.#requestAjv = requestAjv;
    this.file = file;
    this.#doc = doc;
    this.warnings = warnings;
    // Swagger 2.0 is OpenAPI 2.0.
    this.version = String(doc.openapi ?? doc.swagger);
    this.#bases = basePaths(doc);
    this.#ajv = ajv;
    this.#operations = [];
    const paths = isObject(doc.paths) ? doc.paths : {};
    for (const [path, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      for (const method of Object.keys(item)) {
        const operation = item[method];
        if (!(SPEC_METHODS as readonly string[]).includes(method) || !isObject(operation)) continue;
        this.#operations.push({
          method: method.toUpperCase(),
          path,
          ...(typeof operation.operationId === "string" ? { operationId: operation.operationId } : {}),
          segments: specSegments(path),
          responses: isObject(operation.responses) ? operation.responses : {},
          pointer: `/paths/${pointerToken(path)}/${method}/responses`,
        });
      }
    }
  }

  /** Every operation, in document order. */
  get operations(): SpecOperation[] {
    return this.#operations.map(({ method, path, operationId }) => ({
      method,
      path,
      ...(operationId ? { operationId } : {}),
    }));
  }

  /**
   * The operation a request (or stub) with this method and path calls: literal segments
   * beat partial templates (`{name}.json`), which beat placeholders, from the first segment
   * on. A stub's `{x}` matches only a spec `{param}`. Paths may carry a server URL's path
   * (`/v1`) in front, or not. `HEAD` falls back to the `GET` operation.
   */
  #operationFor(method: string, parts: readonly PathPart[]): Operation | undefined {
    const found = this.#best(method, parts);
    return found ?? (method === "HEAD" ? this.#best("GET", parts) : undefined);
  }

  #best(method: string, parts: readonly PathPart[]): Operation | undefined {
    let best: Operation | undefined;
    let bestScore: number[] = [];
    for (const base of this.#bases) {
      if (parts.length < base.length || !base.every((s, i) => !parts[i].param && parts[i].value === s)) continue;
      const rest = parts.slice(base.length);
      for (const operation of this.#operations) {
        if (operation.method !== method || operation.segments.length !== rest.length) continue;
        const score = rest.map((part, i) => fit(part, operation.segments[i]));
        if (score.includes(0)) continue;
        const differs = score.findIndex((s, i) => s !== bestScore[i]);
        if (best === undefined || (differs !== -1 && score[differs] > bestScore[differs])) {
          [best, bestScore] = [operation, score];
        }
      }
      if (best) return best;
    }
    return best;
  }

  /** The methods the spec has for this path, when the stub's method is not one of them. */
  #methodsFor(parts: readonly PathPart[]): string[] {
    return SPEC_METHODS.map((m) => m.toUpperCase()).filter((m) => this.#best(m, parts) !== undefined);
  }

  /** The response a status falls under: the exact code, else its range (`4XX`), else `default`. */
  #responseFor(operation: Operation, status: number): { key: string; response: Json } | undefined {
    const range = `${Math.floor(status / 100)}XX`;
    const keys = Object.keys(operation.responses);
    const key = keys.find((k) => k === String(status)) ?? keys.find((k) => k.toUpperCase() === range) ??
      keys.find((k) => k === "default");
    if (key === undefined) return undefined;
    const response = this.#resolve(operation.responses[key]);
    return { key, response: isObject(response) ? response : {} };
  }

  /** The JSON pointer of what `value` (found at `pointer`) refers to, following `$ref`s. */
  #where(value: unknown, pointer: string): string {
    for (let hops = 0; hops < 10 && isObject(value) && typeof value.$ref === "string"; hops++) {
      if (!value.$ref.startsWith("#/")) break;
      pointer = decodeURIComponent(value.$ref.slice(1));
      value = atPointer(this.#doc, pointer);
    }
    return pointer;
  }

  /** Follows an object's internal `$ref` (`#/components/responses/Problem`), a few hops at most. */
  #resolve(value: unknown): unknown {
    for (let hops = 0; hops < 10 && isObject(value) && typeof value.$ref === "string"; hops++) {
      if (!value.$ref.startsWith("#/")) return undefined;
      value = atPointer(this.#doc, decodeURIComponent(value.$ref.slice(1)));
    }
    return value;
  }

  /** The validator of a response's JSON schema, its compile error, or undefined when it has no JSON schema. */
  #validator(operation: Operation, key: string, response: Json, mediaType: string | undefined) {
    const content = isObject(response.content) ? response.content : {};
    const types = Object.keys(content).filter(isExactJsonMediaType);
    const chosen = (mediaType && types.find((t) => t.split(";")[0].trim().toLowerCase() === mediaType)) ?? types[0];
    if (chosen === undefined) return undefined;
    const media = this.#resolve(content[chosen]);
    if (!isObject(media) || media.schema === undefined) return undefined;
    // The schema is compiled by reference into the document, so that its own $refs resolve.
    const pointer = `${this.#where(operation.responses[key], `${operation.pointer}/${pointerToken(key)}`)}/content/${
      pointerToken(chosen)
    }/schema`;
    let validator = this.#validators.get(pointer);
    if (validator === undefined) {
      try {
        validator = this.#ajv.compile({ $ref: `${SPEC_KEY}${fragment(pointer)}` });
      } catch (error) {
        validator = messageOf(error);
      }
      this.#validators.set(pointer, validator);
    }
    return validator;
  }

  /**
   * The check of requests to the operation `method` `path` (as the spec writes them), for the
   * stub that mocks it (`captureOf`: the spec's path parameter → the stub's capture name):
   * path, query and header parameters (read as their schemas' types) and a JSON body against
   * their schemas, compiled now; a violation answers `422` (`400` for a body that is not JSON)
   * with an `application/problem+json` list of them, in Prism's shape; a request without the
   * credentials of any of the operation's `security` requirements answers `401`.
   */
  requestCheck(path: string, method: string, captureOf: Record<string, string>): RequestCheck | undefined {
    const paths = isObject(this.#doc.paths) ? this.#doc.paths : {};
    const item = this.#resolve(paths[path]);
    const operation = isObject(item) ? this.#resolve(item[method]) : undefined;
    if (!isObject(item) || !isObject(operation) || !this.#requestAjv) return undefined;
    // One validator for every operation: each new one would add (and walk) the whole document
    // again, which made GitHub's 13 MB spec take minutes to start.
    const ajv = this.#requestAjvShared ??= this.#requestAjv();
    const pointer = `/paths/${pointerToken(path)}`;
    const checks: PartCheck[] = [];
    // A parameter the operations share (`#/components/parameters/owner`) is compiled once.
    const compile = (at: string, exact: boolean) => {
      const key = `${exact ? "exact" : "coerced"} ${at}`;
      let validate = this.#parameterValidators.get(key);
      if (validate === undefined) {
        const wrapper = { type: "object", properties: { v: { $ref: `${SPEC_KEY}${fragment(at)}` } } };
        validate = (exact ? this.#ajv : ajv).compile(wrapper);
        this.#parameterValidators.set(key, validate);
      }
      return validate;
    };
    for (const { parameter, pointer: at } of this.#parametersOf(item, operation, pointer, method).values()) {
      const check = parameterCheck(compile, parameter, at, captureOf);
      if (check) checks.push(check);
    }
    const bodyCheck = this.#bodyCheck(operation, `${pointer}/${method}`);
    if (bodyCheck) checks.push(bodyCheck);
    const security = this.#securityCheck(operation);
    if (!checks.length && !security) return undefined;
    return {
      readsBody: bodyCheck !== undefined,
      check: checkRequest(`${method.toUpperCase()} ${path}`, checks, security),
    };
  }

  /** The parameters of a path item and its operation (the operation's win), by `in:name`, with their pointers. */
  #parametersOf(item: Json, operation: Json, pointer: string, method: string) {
    const parameters = new Map<string, { parameter: Json; pointer: string }>();
    for (const [list, at] of [[item.parameters, pointer], [operation.parameters, `${pointer}/${method}`]] as const) {
      (Array.isArray(list) ? list : []).forEach((raw, i) => {
        const where = this.#where(raw, `${at}/parameters/${i}`);
        const parameter = this.#resolve(raw);
        if (isObject(parameter) && typeof parameter.name === "string" && typeof parameter.in === "string") {
          parameters.set(`${parameter.in}:${parameter.name}`, { parameter, pointer: where });
        }
      });
    }
    return parameters;
  }

  /**
   * The check of an operation's JSON request body (at `operationPointer`) against its schema,
   * and of its presence when required; undefined when there is neither.
   */
  #bodyCheck(operation: Json, operationPointer: string): PartCheck | undefined {
    const body = this.#resolve(operation.requestBody);
    if (!isObject(body)) return undefined;
    const content = this.#resolve(body.content);
    const types = isObject(content) ? Object.keys(content).filter(isExactJsonMediaType) : [];
    const bodyPointer = this.#where(operation.requestBody, `${operationPointer}/requestBody`);
    const type = types[0];
    const media = type === undefined || !isObject(content) ? undefined : this.#resolve(content[type]);
    const validate = isObject(media) && media.schema !== undefined
      ? this.#ajv.compile({ $ref: `${SPEC_KEY}${fragment(`${bodyPointer}/content/${pointerToken(type)}/schema`)}` })
      : undefined;
    const required = body.required === true;
    if (!validate && !required) return undefined;
    return (request, out) => {
      const text = request.body?.text ?? "";
      if (text === "") {
        if (required) {
          out.push({ location: ["body"], severity: "Error", code: "required", message: "must have a body" });
        }
        return;
      }
      const sent = request.header("content-type");
      // A body of another declared type (a form) is not this check's to read.
      if (sent !== null && !isJsonMediaType(sent)) return;
      const json = request.body?.json;
      if (!json) throw new InvalidJson();
      if (!validate || validate(json.value)) return;
      for (const e of validate.errors ?? []) {
        const at = e.instancePath.split("/").slice(1).map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
        const missing = e.keyword === "required" ? [String(e.params.missingProperty)] : [];
        out.push({
          location: ["body", ...at, ...missing],
          severity: "Error",
          code: e.keyword,
          message: e.message ?? "",
        });
      }
    };
  }

  /**
   * The `WWW-Authenticate` challenge for a request carrying none of the operation's `security`
   * alternatives (each one's schemes all present: an API key in its header, query or cookie,
   * `Authorization: Basic`/`Bearer`), or undefined when it carries one or none is required.
   */
  #securityCheck(operation: Json): ((request: CheckedRequest) => string | undefined) | undefined {
    const requirements = operation.security ?? this.#doc.security;
    if (!Array.isArray(requirements) || requirements.length === 0) return undefined;
    const components = isObject(this.#doc.components) ? this.#doc.components : {};
    const schemes = isObject(components.securitySchemes)
      ? components.securitySchemes
      : isObject(this.#doc.securityDefinitions)
      ? this.#doc.securityDefinitions
      : {};
    const alternatives: { present: (request: CheckedRequest) => boolean; challenge: string }[][] = [];
    for (const requirement of requirements) {
      if (!isObject(requirement)) continue;
      const all: { present: (request: CheckedRequest) => boolean; challenge: string }[] = [];
      for (const name of Object.keys(requirement)) {
        const scheme = this.#resolve(schemes[name]);
        if (!isObject(scheme)) continue;
        all.push(credential(scheme));
      }
      alternatives.push(all);
    }
    // An empty requirement (`{}`) makes credentials optional.
    if (alternatives.some((all) => all.length === 0)) return undefined;
    return (request) => {
      if (alternatives.some((all) => all.every((c) => c.present(request)))) return undefined;
      return [...new Set(alternatives.flat().map((c) => c.challenge))].join(", ");
    };
  }

  /**
   * Checks stubs against the spec. Each problem is an error placed at the stub
   * (`routes[2]`): no operation for its method and path; a status (plain or any sequence
   * entry) the operation does not declare; a JSON body the response schema rejects, with
   * the JSON pointer of each failure. Response functions are checked for method and path only.
   * A body that is the spec's own example as written (an imported stub's) and breaks the schema
   * is the spec's fault, not the stub's: one warning placed at that example (`SPEC
   * paths./pets.get responses.200 application/json examples.dog`) with every failure.
   */
  checkStubs(stubs: readonly CompiledStub[], placeOf: (index: number) => string): Problem[] {
    const problems: Problem[] = [];
    stubs.forEach((stub, i) => {
      const label = `${stub.method} ${stub.path}`;
      const error = (message: string) => problems.push({ level: "error", place: placeOf(i), message });
      const parts: PathPart[] = stub.segments.map((s) => s.param ? { param: true } : { param: false, value: s.value });
      const operation = this.#operationFor(stub.method, parts);
      if (!operation) {
        const methods = this.#methodsFor(parts);
        error(
          `${label} has no operation in the spec` +
            (methods.length ? ` (it has this path for ${methods.join(", ")} only)` : " (no such path)"),
        );
        return;
      }
      const spec = `${operation.method} ${operation.path}`;
      const captures = new Set(stub.segments.flatMap((s) => s.param ? [s.name] : []));
      for (const value of Object.values(stub.query ?? {})) {
        const name = typeof value === "string" ? placeholderName(value) : undefined;
        if (name !== undefined) captures.add(name);
      }
      stub.responses.forEach((response, k) => {
        const where = stub.isSequence ? `sequence[${k}].` : "";
        const found = this.#responseFor(operation, response.status);
        if (!found) {
          error(
            `${label}: ${where}status ${response.status} is not declared for ${spec} in the spec (declared: ${
              Object.keys(operation.responses).join(", ") || "none"
            })`,
          );
          return;
        }
        const messages = this.#bodyProblems(operation, found, response, captures);
        const own = messages.length ? this.#ownExample(operation, found, response) : undefined;
        if (own !== undefined) {
          // The stub answers the spec's own example as written: the spec is at fault, not the stub.
          problems.push({
            level: "warn",
            place: own,
            message: `the spec's own example breaks its schema: ${messages.map((m) => `body${m}`).join("; ")} (${
              placeOf(i)
            } answers it as written: not a drift)`,
          });
          return;
        }
        for (const message of messages) {
          error(`${label}: ${where}body${message} (spec: ${spec} ${found.key})`);
        }
      });
    });
    return problems;
  }

  /**
   * The place of the spec's own example a stub's body is, as written (`SPEC paths./pets.get
   * responses.200 application/json examples.dog`), or undefined when it is none of them: the
   * media type's `example` or one of its named `examples`, the schema's `example`, first of
   * `examples` or `default`, or a Swagger 2.0 response's `examples` for the type.
   */
  #ownExample(
    operation: Operation,
    found: { key: string; response: Json },
    response: ResponseSpec,
  ): string | undefined {
    const header = Object.entries(response.headers ?? {}).find(([name]) => name.toLowerCase() === "content-type")?.[1];
    const contentType = (Array.isArray(header) ? header[0] : header)?.split(";")[0].trim().toLowerCase();
    const content = isObject(found.response.content) ? found.response.content : {};
    const types = Object.keys(content).filter(isExactJsonMediaType);
    const chosen = (contentType && types.find((t) => t.split(";")[0].trim().toLowerCase() === contentType)) ??
      types[0];
    if (chosen === undefined) return undefined;
    const media = this.#resolve(content[chosen]);
    if (!isObject(media)) return undefined;
    const schema = this.#resolve(media.schema);
    const swagger = isObject(found.response.examples) ? found.response.examples : {};
    const candidates: [string, unknown][] = [
      ["example", media.example],
      ...Object.entries(isObject(media.examples) ? media.examples : {}).map(([name, raw]): [string, unknown] => {
        const example = this.#resolve(raw);
        return [`examples.${name}`, isObject(example) ? example.value : undefined];
      }),
      ["schema example", isObject(schema) ? schema.example : undefined],
      ["schema examples[0]", isObject(schema) && Array.isArray(schema.examples) ? schema.examples[0] : undefined],
      ["schema default", isObject(schema) ? schema.default : undefined],
      [`examples.${chosen}`, swagger[chosen]],
    ];
    const name = candidates.find(([, value]) => value !== undefined && isDeepStrictEqual(value, response.body))?.[0];
    if (name === undefined) return undefined;
    return `${this.file} paths.${operation.path}.${operation.method.toLowerCase()} responses.${found.key} ${chosen} ${name}`;
  }

  /** Why a response's body does not match its schema, each as ` at /pointer must …`; at most 5 and a count. */
  #bodyProblems(
    operation: Operation,
    found: { key: string; response: Json },
    response: ResponseSpec,
    captures: ReadonlySet<string>,
  ): string[] {
    if (!response.hasBody) return [];
    const header = Object.entries(response.headers ?? {}).find(([name]) => name.toLowerCase() === "content-type")?.[1];
    const contentType = (Array.isArray(header) ? header[0] : header)?.split(";")[0].trim().toLowerCase();
    // A string body under a non-JSON content type is sent as is: there is no JSON to check.
    if (contentType !== undefined && !isExactJsonMediaType(contentType)) return [];
    const validator = this.#validator(operation, found.key, found.response, contentType);
    if (validator === undefined) return [];
    if (typeof validator === "string") return [`: the response schema cannot be used: ${validator}`];
    const body = response.body;
    if (validator(body)) return [];
    const errors = validator.errors ?? [];
    // Inside a failed anyOf/oneOf, every branch's complaints follow; the combinator's own error says it.
    const combinators = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf").map((e) => e.schemaPath);
    const messages: string[] = [];
    for (const e of errors) {
      if (combinators.some((path) => e.schemaPath.startsWith(`${path}/`))) continue;
      const value = atPointer(body, e.instancePath);
      const placeholder = typeof value === "string"
        ? [...value.matchAll(PLACEHOLDER_ANYWHERE)].find((m) => captures.has(m[1]))?.[0]
        : undefined;
      // A placeholder is replaced per request: only its type (always a string) is known now.
      if (placeholder !== undefined && e.keyword !== "type") continue;
      const at = e.instancePath === "" ? "" : ` at ${e.instancePath}`;
      let message: string;
      switch (e.keyword) {
        case "required":
          message = `${at} lacks the required property '${e.params.missingProperty}'`;
          break;
        case "additionalProperties":
          message = `${at} has the property '${e.params.additionalProperty}', which the schema does not allow`;
          break;
        case "type":
          message = placeholder !== undefined
            ? `${at} must be ${e.params.type}, got the placeholder ${
              JSON.stringify(value)
            } (captured values are always strings: write a literal value, or use a response function)`
            : `${at} must be ${e.params.type}, got ${describeValue(value)}`;
          break;
        case "enum":
          message = `${at} must be one of ${(e.params.allowedValues as unknown[]).map(describeValue).join(", ")}, got ${
            describeValue(value)
          }`;
          break;
        default:
          message = `${at} ${e.message ?? `fails '${e.keyword}'`}, got ${describeValue(value)}`;
      }
      if (!messages.includes(message)) messages.push(message);
    }
    if (messages.length > 5) return [...messages.slice(0, 5), `: ${messages.length - 5} more problem(s)`];
    return messages;
  }

  /**
   * What the report misses against the spec: operations no stub covers (a `GET` stub also
   * covers the `HEAD` operation of its path, as it answers `HEAD` requests), and unmatched
   * requests that call an operation the spec describes.
   */
  drift(report: Report): OpenApiDrift {
    const covered = new Set<Operation>();
    for (const stub of report.stubs) {
      const parts = templateParts(stub.path);
      const operation = this.#operationFor(stub.method, parts);
      if (operation) covered.add(operation);
      if (stub.method === "GET") {
        const head = this.#best("HEAD", parts);
        if (head) covered.add(head);
      }
    }
    const unstubbed: UnstubbedRequest[] = [];
    for (const request of report.unmatched_requests) {
      const operation = this.#operationFor(request.method, requestParts(request.path));
      if (!operation) continue;
      unstubbed.push({
        method: request.method,
        path: request.path,
        ...(request.query ? { query: request.query } : {}),
        timestamp: request.timestamp,
        operation: `${operation.method} ${operation.path}`,
      });
    }
    return {
      spec: this.file,
      version: this.version,
      operations: this.#operations.length,
      uncovered_operations: this.#operations.filter((o) => !covered.has(o)).map((o) => ({
        method: o.method,
        path: o.path,
        ...(o.operationId ? { operation_id: o.operationId } : {}),
      })),
      unstubbed_requests: unstubbed,
    };
  }
}

/** Every schema position of the document that a response body may be checked against or reference. */
function eachSchema(doc: Json, visit: (schema: unknown) => void): void {
  const components = isObject(doc.components) ? doc.components : {};
  for (const schema of Object.values(isObject(components.schemas) ? components.schemas : {})) visit(schema);
  // Swagger 2.0 (as swaggerView shapes it): `definitions` and `responses` at the top.
  for (const schema of Object.values(isObject(doc.definitions) ? doc.definitions : {})) visit(schema);
  const responses: unknown[] = [
    ...Object.values(isObject(components.responses) ? components.responses : {}),
    ...Object.values(isObject(doc.responses) ? doc.responses : {}),
  ];
  const parameters: unknown[] = [
    ...Object.values(isObject(components.parameters) ? components.parameters : {}),
    ...Object.values(isObject(doc.parameters) ? doc.parameters : {}),
  ];
  const bodies: unknown[] = Object.values(isObject(components.requestBodies) ? components.requestBodies : {});
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    if (Array.isArray(item.parameters)) parameters.push(...item.parameters);
    for (const method of SPEC_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      if (isObject(operation.responses)) responses.push(...Object.values(operation.responses));
      if (Array.isArray(operation.parameters)) parameters.push(...operation.parameters);
      bodies.push(operation.requestBody);
    }
  }
  for (const parameter of parameters) if (isObject(parameter)) visit(parameter.schema);
  responses.push(...bodies);
  for (const response of responses) {
    if (!isObject(response) || !isObject(response.content)) continue;
    for (const media of Object.values(response.content)) if (isObject(media)) visit(media.schema);
  }
}

/** Keys whose values are maps from names (a property, a status, a media type) to objects. */
const NAME_MAPS = new Set([
  "paths",
  "properties",
  "patternProperties",
  "definitions",
  "$defs",
  "dependentSchemas",
  "schemas",
  "responses",
  "content",
  "headers",
  "parameters",
  "requestBodies",
  "securitySchemes",
  "callbacks",
  "links",
  "encoding",
  "variables",
  "pathItems",
  "webhooks",
]);

/**
 * A copy of the document without example data (`example`, `examples`, `x-` extensions), which
 * ajv would otherwise search for `$id`s (Box's examples hold `$id` keys). Keys under a map of
 * names (`properties`) are names, so a property called `example` stays.
 */
function withoutExamples(node: unknown, names: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutExamples(item, false));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (!names && (key === "example" || key === "examples" || key.startsWith("x-"))) continue;
    out[key] = names
      ? withoutExamples(value, false)
      : VALUE_KEYWORDS.has(key)
      ? value
      : withoutExamples(value, NAME_MAPS.has(key));
  }
  return out;
}

/** Schema keywords whose values are data: copied as they are. */
const VALUE_KEYWORDS = new Set(["default", "enum", "const"]);

/** Media types whose bodies are JSON, as Swagger 2.0's `produces` lists them (`application/json` when it lists none). */
function swaggerProduces(operation: Json, doc: Json): string[] {
  const list = [operation.produces, doc.produces].find(Array.isArray) as unknown[] | undefined;
  return (list ?? ["application/json"]).filter((t): t is string => typeof t === "string");
}

/** Media types of request bodies, as Swagger 2.0's `consumes` lists them (`application/json` when it lists none). */
function swaggerConsumes(operation: Json, doc: Json): string[] {
  const list = [operation.consumes, doc.consumes].find(Array.isArray) as unknown[] | undefined;
  return (list ?? ["application/json"]).filter((t): t is string => typeof t === "string");
}

/**
 * A Swagger response in OpenAPI 3's shape: its `schema` under `content` for each of `types`;
 * a `type: file` one without content, its `label` added to `skipped`.
 */
function swaggerResponse(raw: unknown, types: string[], label: string, skipped: string[]): unknown {
  if (!isObject(raw) || typeof raw.$ref === "string" || !isObject(raw.schema)) return raw;
  const { schema, ...rest } = raw;
  if (schema.type === "file") {
    skipped.push(label);
    return rest;
  }
  return { ...rest, content: Object.fromEntries(types.map((type) => [type, { schema }])) };
}

/** A Swagger parameter in OpenAPI 3's shape: its type keywords under `schema`; the body one as a request body. */
function swaggerParameter(raw: unknown): unknown {
  if (!isObject(raw) || typeof raw.$ref === "string" || raw.in === "body" || isObject(raw.schema)) return raw;
  const { name, in: where, required, description: _, collectionFormat: __, allowEmptyValue: ___, ...schema } = raw;
  return { name, in: where === "formData" ? "x-formData" : where, required, schema };
}

/** `source`'s Swagger parameters onto `target` in OpenAPI 3's shape, the body one as a request body of `types`. */
function withSwaggerParameters(target: Json, source: Json, types: string[]): void {
  if (!Array.isArray(source.parameters)) return;
  const list = source.parameters.map(swaggerParameter);
  const body = list.find((p) => isObject(p) && p.in === "body") as Json | undefined;
  target.parameters = list.filter((p) => p !== body);
  if (body) {
    target.requestBody = {
      required: body.required === true,
      content: Object.fromEntries(types.map((type) => [type, { schema: body.schema }])),
    };
  }
}

/**
 * A Swagger 2.0 document in the shape the drift check reads (OpenAPI 3.0's): each response's
 * `schema` under `content` for each type the operation `produces`, the `basePath` kept for
 * {@link basePaths}, `definitions` and `responses` shared (so `#/definitions/Pet` resolves).
 * A `type: file` response has no JSON to check: it is left without content, and named in
 * `skipped` (`GET /pets/{id}/photo 200`).
 */
function swaggerView(doc: Json): { view: Json; skipped: string[] } {
  const skipped: string[] = [];
  const convert = (raw: unknown, types: string[], label: string) => swaggerResponse(raw, types, label, skipped);
  const consumes = (operation: Json) => swaggerConsumes(operation, doc);
  const topTypes = swaggerProduces({}, doc);
  const responses = Object.fromEntries(
    Object.entries(isObject(doc.responses) ? doc.responses : {}).map((
      [key, response],
    ) => [key, convert(response, topTypes, `responses.${key}`)]),
  );
  const paths: Json = {};
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    const copy: Json = { ...item };
    withSwaggerParameters(copy, item, consumes({}));
    for (const method of SPEC_METHODS) {
      const operation = item[method];
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      const types = swaggerProduces(operation, doc);
      const converted: Json = { ...operation };
      withSwaggerParameters(converted, operation, consumes(operation));
      copy[method] = {
        ...converted,
        responses: Object.fromEntries(
          Object.entries(operation.responses).map((
            [key, response],
          ) => [key, convert(response, types, `${method.toUpperCase()} ${path} ${key}`)]),
        ),
      };
    }
    paths[path] = copy;
  }
  const parameters = Object.fromEntries(
    Object.entries(isObject(doc.parameters) ? doc.parameters : {}).map(([key, p]) => [key, swaggerParameter(p)]),
  );
  return { view: { ...doc, paths, responses, parameters }, skipped };
}

/**
 * An {@link OpenApiSpec} of a document {@link readOpenApiDocument} read (OpenAPI 3.0 or 3.1,
 * or Swagger 2.0, checked as OpenAPI 3.0 reads it: `x-nullable` as `nullable`). Its 3.0 and 2.0
 * schemas are rewritten in place for ajv: convert the document to stubs first. `warnings`
 * names what the check cannot cover (a Swagger `type: file` response).
 */
export async function compileOpenApi(
  file: string,
  original: Record<string, unknown>,
): Promise<OpenApiSpec> {
  let doc = original;
  const warnings: Problem[] = [];
  if (original.swagger !== undefined) {
    const { view, skipped } = swaggerView(original);
    doc = view;
    if (skipped.length) {
      warnings.push({
        level: "warn",
        place: file,
        message: `a Swagger 2.0 'type: file' response has no JSON body to check; stub bodies are not checked for ${
          skipped.length > 3 ? `${skipped.slice(0, 3).join(", ")} and ${skipped.length - 3} more` : skipped.join(", ")
        }`,
      });
    }
  }
  const version = String(doc.openapi ?? doc.swagger);
  const options = {
    strict: false,
    allErrors: true,
    logger: false as const,
    validateSchema: false,
    code: { regExp: linearRegExp },
  };
  let make: (extra: object) => AjvLike;
  if (version.startsWith("3.0") || version.startsWith("2.")) {
    const seen = new WeakSet<object>();
    eachSchema(doc, (schema) => adaptOpenApi30(schema, seen));
    const { Ajv } = await import("ajv");
    make = (extra) => new Ajv({ ...options, ...extra }) as unknown as AjvLike;
  } else {
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    make = (extra) => new Ajv2020({ ...options, ...extra }) as unknown as AjvLike;
  }
  // ajv-formats is CommonJS: its default export is the plugin, or a namespace holding it.
  const formats = await import("ajv-formats") as unknown as {
    default: ((ajv: AjvLike) => unknown) | { default: (ajv: AjvLike) => unknown };
  };
  // ajv walks every key of what it is given looking for `$id`s: example data is data, not schemas.
  const schemas = withoutExamples(doc, false) as Json;
  const build = (extra: object) => {
    const ajv = make(extra);
    (typeof formats.default === "function" ? formats.default : formats.default.default)(ajv);
    for (const [name, format] of Object.entries(OPENAPI_FORMATS)) ajv.addFormat(name, format);
    ajv.addSchema(schemas, SPEC_KEY);
    return ajv;
  };
  // Parameters arrive as text: the requests' validator reads `"5"` as the integer 5, `a` as `["a"]`.
  return new OpenApiSpec(file, doc, build({}), warnings, () => build({ coerceTypes: "array" }));
}
