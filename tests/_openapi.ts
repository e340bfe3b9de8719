/**
 * Reading an OpenAPI document on its own terms (not through the converter), for the tests that
 * serve real specs with `serve --openapi SPEC --mock` (tests/cli_serve_openapi_test.ts,
 * tests/cli_serve_openapi_real_test.ts): what each operation answers and its schema's pointer,
 * an ajv validator over the whole document, requests the spec takes and ones it forbids, and
 * {@link exerciseSpec}, which sends them and sorts every answer into checked, failed (ours),
 * the spec's own example breaking its schema (the spec's), and left out with why.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { readOpenApiDocument } from "../src/cli/loaders/openapi_document.ts";
import { stubServer } from "../mod.ts";

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function at(doc: unknown, pointer: string): unknown {
  let value = doc;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    value = isObject(value) ? value[key] : Array.isArray(value) ? value[Number(key)] : undefined;
  }
  return value;
}

/** The pointer `pointer` ends up at once internal `$ref`s are followed. */
export function follow(doc: Json, pointer: string): string {
  for (let value = at(doc, pointer); isObject(value) && typeof value.$ref === "string"; value = at(doc, pointer)) {
    pointer = decodeURIComponent(value.$ref.slice(1));
  }
  return pointer;
}

export const token = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");
export const isJson = (type: string) => /^[^/]+\/(?:[^/;]+\+)?json\s*(?:;|$)/i.test(type);

/** What the spec says an operation answers: status, content type and the pointer of the body's schema. */
export interface Expected {
  method: string;
  /** The path as the spec writes it. */
  path: string;
  /** A request path: each `{param}` filled with a value. */
  target: string;
  status: number;
  contentType?: string;
  schema?: string;
}

/** Every operation with a 2xx (or `default`) response, read from the spec on its own terms (not by the converter). */
export function expectations(doc: Json): { expected: Expected[]; refused: string[] } {
  const expected: Expected[] = [];
  const refused: string[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Json)) {
    for (const method of Object.keys(item as Json)) {
      if (!["get", "put", "post", "delete", "options", "head", "patch"].includes(method)) continue;
      const base = `/paths/${token(path)}/${method}/responses`;
      const keys = Object.keys((at(doc, follow(doc, base)) ?? {}) as Json);
      const key = keys.find((k) => /^2(\d\d|XX)$/i.test(k)) ?? keys.find((k) => k === "default");
      if (key === undefined) {
        refused.push(`${method} ${path}`);
        continue;
      }
      const response = follow(doc, `${follow(doc, base)}/${token(key)}`);
      const target = path.replace(/\{[^}]+\}/g, "1");
      const status = /^\d+$/.test(key) ? Number(key) : 200;
      // A status that carries no body: whatever content the spec describes, the answer has none.
      if ([204, 205, 304].includes(status)) {
        expected.push({ method: method.toUpperCase(), path, target, status });
        continue;
      }
      let contentType: string | undefined;
      let schema: string | undefined;
      if (doc.swagger) {
        const produces = ((at(doc, `/paths/${token(path)}/${method}/produces`) ?? doc.produces) as string[]) ??
          ["application/json"];
        if (at(doc, `${response}/schema`) !== undefined) {
          contentType = produces.find(isJson) ?? produces[0];
          schema = `${response}/schema`;
        }
      } else {
        const content = at(doc, `${response}/content`) as Json | undefined;
        const types = Object.keys(content ?? {});
        contentType = types.find(isJson) ?? types[0];
        if (contentType !== undefined && at(doc, `${response}/content/${token(contentType)}/schema`) !== undefined) {
          schema = `${response}/content/${token(contentType)}/schema`;
        }
      }
      expected.push({ method: method.toUpperCase(), path, target, status, contentType, schema });
    }
  }
  return { expected, refused };
}

/** ajv over the whole document, with OpenAPI's formats; 3.0 and 2.0 schemas read with `nullable`. */
export function validatorFor(doc: Json): (pointer: string, value: unknown) => string | undefined {
  const options = { strict: false, allErrors: true, logger: false as const, validateSchema: false };
  const ajv = String(doc.openapi).startsWith("3.1") ? new Ajv2020(options) : new Ajv(options);
  // 3.1 has no `nullable` (JSON Schema's type lists say it); ReadMe's 3.1 document still writes it.
  if (String(doc.openapi).startsWith("3.1")) ajv.removeKeyword("nullable");
  const addFormats = addFormatsModule as unknown as (ajv: unknown) => void;
  addFormats(ajv);
  for (const name of ["int32", "int64", "float", "double"]) {
    ajv.addFormat(name, {
      type: "number",
      validate: () => true,
    });
  }
  for (const name of ["byte", "binary", "password"]) ajv.addFormat(name, { type: "string", validate: () => true });
  ajv.addSchema(forAjv(doc, !String(doc.openapi).startsWith("3.1"), false) as Json, "spec");
  return (pointer, value) => {
    const validate = ajv.compile({
      $ref: "spec#" + pointer.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g, (c) => encodeURIComponent(c)),
    });
    if (validate(value)) return undefined;
    if (typeof value === "object" && value !== null) lastErrors.set(value, validate.errors ?? []);
    return ajv.errorsText(validate.errors);
  };
}

/** The ajv errors of the last failed check of `value` (an object or array). */
const lastErrors = new WeakMap<object, { instancePath: string }[]>();

/** Keys whose values map names to things: a property called `example` is a name, kept. */
const NAME_MAPS = new Set(["properties", "patternProperties", "definitions", "$defs", "schemas", "paths", "content"]);

/**
 * A copy of the document for ajv: without example data (which ajv would search for `$id`s, as
 * Box's examples hold), and (OpenAPI 3.0, Swagger 2.0) without `nullable` where no `type`
 * says what is nullable: any value, null included, as OpenAPI means it.
 */
function forAjv(node: unknown, nullable: boolean, names: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => forAjv(item, nullable, false));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (!names && (key === "example" || key === "examples" || key.startsWith("x-"))) continue;
    if (!names && nullable && key === "nullable" && node.type === undefined) continue;
    out[key] = ["enum", "default", "const"].includes(key) && !names
      ? value
      : forAjv(value, nullable, !names && NAME_MAPS.has(key));
  }
  return out;
}

/** Every value the spec writes as an example (`example`, `examples` values), and each item of an array one, as JSON text. */
export function exampleValues(doc: Json): Set<string> {
  const found = new Set<string>();
  const add = (value: unknown) => {
    found.add(JSON.stringify(value));
    if (Array.isArray(value)) { for (const item of value) found.add(JSON.stringify(item)); }
  };
  const walk = (node: unknown, names: boolean) => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, false));
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (!names && key === "example") add(value);
      else if (!names && key === "examples" && Array.isArray(value)) value.forEach(add);
      else if (!names && key === "examples" && isObject(value)) {
        for (const entry of Object.values(value)) add(isObject(entry) && "value" in entry ? entry.value : entry);
      } else walk(value, !names && NAME_MAPS.has(key));
    }
  };
  walk(doc, false);
  return found;
}

/**
 * Whether every failure ajv found in `value` (its last failed check) sits at a value the spec
 * itself writes as an example (a property's `example`, an item of one): the spec's examples
 * break its schema, not the mock's answer.
 */
export function failsAtSpecExamples(value: unknown, examples: ReadonlySet<string>): boolean {
  const errors = typeof value === "object" && value !== null ? lastErrors.get(value) : undefined;
  return errors !== undefined && errors.length > 0 &&
    errors.every((e) => examples.has(JSON.stringify(at(value, e.instancePath))));
}

/** A request the spec's operation takes (or faults), and how it was made. */
export interface Asked {
  target: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** The operation's parameters (path item's then its own, by `in:name`), `$ref`s followed, with their pointers. */
export function parametersOf(doc: Json, path: string, method: string): { parameter: Json; pointer: string }[] {
  const found = new Map<string, { parameter: Json; pointer: string }>();
  for (const base of [`/paths/${token(path)}`, `/paths/${token(path)}/${method}`]) {
    const list = at(doc, follow(doc, `${base}/parameters`));
    (Array.isArray(list) ? list : []).forEach((_, i) => {
      const pointer = follow(doc, `${follow(doc, `${base}/parameters`)}/${i}`);
      const parameter = at(doc, pointer);
      if (isObject(parameter)) found.set(`${parameter.in}:${parameter.name}`, { parameter, pointer });
    });
  }
  return [...found.values()];
}

/** A value the parameter's spec gives (example, examples, schema's example, default, enum), else a sample. */
export async function valueOf(
  doc: Json,
  { parameter, pointer }: { parameter: Json; pointer: string },
): Promise<unknown> {
  if (parameter.example !== undefined) return parameter.example;
  if (isObject(parameter.examples)) {
    const first = Object.keys(parameter.examples)[0];
    const example = first === undefined ? undefined : at(doc, follow(doc, `${pointer}/examples/${token(first)}`));
    if (isObject(example) && example.value !== undefined) return example.value;
  }
  // Swagger 2.0 writes the schema on the parameter itself.
  const schemaAt = parameter.schema === undefined ? pointer : follow(doc, `${pointer}/schema`);
  const schema = at(doc, schemaAt) as Json;
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (typeof schema.pattern === "string") {
    const { patternSample } = await import("../src/formats/openapi_dynamic.ts");
    const text = patternSample(schema.pattern, schema.minLength as number, schema.maxLength as number);
    if (text !== undefined) return text;
  }
  const { sample } = await import("openapi-sampler");
  return sample(schema as never, { skipReadOnly: true }, doc as never);
}

/** The credentials of the operation's first security requirement (an empty one needs none). */
export function credentials(
  doc: Json,
  path: string,
  method: string,
): { headers: Record<string, string>; query: string[] } {
  const requirements = at(doc, `/paths/${token(path)}/${method}/security`) ?? doc.security;
  const headers: Record<string, string> = {};
  const query: string[] = [];
  if (!Array.isArray(requirements) || requirements.length === 0) return { headers, query };
  const schemes = (at(doc, "/components/securitySchemes") ?? doc.securityDefinitions ?? {}) as Json;
  for (const name of Object.keys(requirements[0] as Json)) {
    const scheme = at(
      doc,
      follow(doc, `${doc.swagger ? "/securityDefinitions" : "/components/securitySchemes"}/${token(name)}`),
    );
    if (!isObject(scheme) || !isObject(schemes)) continue;
    if (scheme.type === "apiKey" && scheme.in === "header") headers[String(scheme.name).toLowerCase()] = "k3y";
    else if (scheme.type === "apiKey" && scheme.in === "query") {
      query.push(`${encodeURIComponent(String(scheme.name))}=k3y`);
    } else if (scheme.type === "apiKey" && scheme.in === "cookie") headers.cookie = `${scheme.name}=k3y`;
    else if (scheme.type === "basic" || (scheme.type === "http" && /^basic$/i.test(String(scheme.scheme)))) {
      headers.authorization = "Basic eDp5";
    } else headers.authorization = "Bearer t0ken";
  }
  return { headers, query };
}

/** The pointer of the operation's JSON request body schema (3.x requestBody, 2.0 `in: body`), and whether a body is required. */
export function bodyOf(
  doc: Json,
  path: string,
  method: string,
): { schema?: string; type?: string; example?: unknown; required: boolean } {
  if (doc.swagger) {
    const body = parametersOf(doc, path, method).find(({ parameter }) => parameter.in === "body");
    if (body) {
      return {
        schema: follow(doc, `${body.pointer}/schema`),
        type: "application/json",
        required: body.parameter.required === true,
      };
    }
    const form = parametersOf(doc, path, method).filter(({ parameter }) => parameter.in === "formData");
    return form.length ? { type: "application/x-www-form-urlencoded", required: false } : { required: false };
  }
  const pointer = follow(doc, `/paths/${token(path)}/${method}/requestBody`);
  const body = at(doc, pointer);
  if (!isObject(body)) return { required: false };
  const types = Object.keys(isObject(body.content) ? body.content : {});
  const type = types.find((t) => /^application\/json$/i.test(t)) ?? types[0];
  const schema = type === undefined ? undefined : `${pointer}/content/${token(type)}/schema`;
  const media = type === undefined ? undefined : at(doc, follow(doc, `${pointer}/content/${token(type)}`));
  return {
    schema: schema !== undefined && isJson(type!) && at(doc, schema) !== undefined ? follow(doc, schema) : undefined,
    type,
    example: isObject(media) ? media.example : undefined,
    required: body.required === true,
  };
}

/** A value `check` rejects among a few of every JSON type, or undefined when it takes them all. */
export function rejected(check: (value: unknown) => string | undefined): unknown {
  return [42, "x", null, [], {}, true, -1.5].find((value) => check(value) !== undefined);
}

/** The path, query and header parameters a request sends (the required ones, and every path one), as text. */
export async function filled(
  doc: Json,
  check: (pointer: string, value: unknown) => string | undefined,
  path: string,
  method: string,
  leaveOut?: string,
) {
  let target = path;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const unusable: string[] = [];
  for (const entry of parametersOf(doc, path, method)) {
    const { parameter } = entry;
    const key = `${parameter.in}:${parameter.name}`;
    if (key === leaveOut || !["path", "query", "header", "cookie"].includes(String(parameter.in))) continue;
    if (parameter.in !== "path" && parameter.required !== true) continue;
    const value = await valueOf(doc, entry);
    const schemaAt = parameter.schema === undefined ? undefined : follow(doc, `${entry.pointer}/schema`);
    const wrong = schemaAt === undefined ? undefined : check(schemaAt, value);
    if (wrong !== undefined) {
      unusable.push(`${parameter.in} parameter ${parameter.name}'s example or sample fails its schema`);
    }
    if (typeof value === "object" && value !== null && (parameter.in !== "query" || !Array.isArray(value))) {
      unusable.push(
        `${parameter.in} parameter ${parameter.name} is ${
          Array.isArray(value) ? "an array" : "an object"
        } (style not read)`,
      );
    }
    const texts = (Array.isArray(value) ? value : [value]).map((v) => typeof v === "string" ? v : JSON.stringify(v));
    const name = String(parameter.name);
    if (parameter.in === "path") target = target.replace(`{${name}}`, encodeURIComponent(texts.join(",")));
    else if (parameter.in === "query") {
      query.push(...texts.map((t) => `${encodeURIComponent(name)}=${encodeURIComponent(t)}`));
    } else if (parameter.in === "header") headers[name.toLowerCase()] = texts.join(",");
    else if (parameter.in === "cookie") {
      headers.cookie = [headers.cookie, `${name}=${encodeURIComponent(texts.join(","))}`].filter(Boolean).join("; ");
    }
  }
  const auth = credentials(doc, path, method);
  query.push(...auth.query);
  return {
    target: target + (query.length ? `?${query.join("&")}` : ""),
    headers: { ...auth.headers, ...headers },
    unusable,
  };
}

/** The kinds of invalid request {@link exerciseSpec} sends with `faults: "each"`. */
export type FaultKind = "required" | "path" | "array" | "json";

/** How {@link exerciseSpec} asks. */
export interface ExerciseOptions {
  /** Ask every Nth operation of the spec (in document order) only: a deterministic sample. */
  every?: number;
  /**
   * `one` (the default): one invalid request per operation (a required query or header
   * parameter left out, else a JSON body its schema rejects, else no body where one is
   * required). `each`: every kind that applies: a required query parameter left out, a path
   * parameter its schema rejects, a JSON array where the body must be an object, and JSON that
   * does not parse.
   */
  faults?: "one" | "each";
}

/**
 * The spec's own example `value` is, as written, in the media object at `media` (or the
 * Swagger 2.0 response at `response`): `example`, `examples.NAME`, the schema's `example` or
 * `default`; undefined when it is none.
 */
export function ownExample(doc: Json, media: string, value: unknown): string | undefined {
  const found = at(doc, media);
  if (!isObject(found)) return undefined;
  const schema = at(doc, follow(doc, `${media}/schema`));
  const candidates: [string, unknown][] = [
    ["example", found.example],
    ...Object.keys(isObject(found.examples) ? found.examples : {}).map((name): [string, unknown] => {
      const example = at(doc, follow(doc, `${media}/examples/${token(name)}`));
      // Swagger 2.0: a response's `examples` map media types to values.
      return [`examples.${name}`, isObject(example) && "value" in example ? example.value : example];
    }),
    ["schema example", isObject(schema) ? schema.example : undefined],
    ["schema default", isObject(schema) ? schema.default : undefined],
  ];
  return candidates.find(([, candidate]) => candidate !== undefined && isDeepStrictEqual(candidate, value))?.[0];
}

/**
 * The answers of the operations of the spec `file` served by `serve --openapi SPEC --mock`:
 * what failed (our fault), which answers are the spec's own examples breaking its schema (the
 * spec's fault), what was checked, what was left out and why.
 */
export async function exerciseSpec(file: string, options: ExerciseOptions = {}) {
  const { openApiServe } = await import("../src/cli/serve_openapi.ts");
  const mocked = await openApiServe({ openapi: file, mock: true }, [], (i) => `routes[${i}]`);
  const { doc } = await readOpenApiDocument(file);
  const check = validatorFor(doc!);
  const examples = exampleValues(doc!);
  const failures: string[] = [];
  /** Answers that fail their schema because they are the spec's own example as written. */
  const own: string[] = [];
  const leftOut: string[] = [...mocked!.problems.map((p) => `${p.place}: ${p.message}`)];
  let valid = 0;
  let invalid = 0;
  const faults: Record<FaultKind, number> = { required: 0, path: 0, array: 0, json: 0 };
  await using server = await stubServer(0, { stubs: mocked!.stubs });
  const send = async ({ target, method, headers, body }: Asked) => {
    const answer = await fetch(server.url + target, { method, headers, body });
    return { status: answer.status, type: answer.headers.get("content-type"), text: await answer.text() };
  };
  const { expected, refused } = expectations(doc!);
  leftOut.push(...refused.map((op) => `${op}: no 2xx or default response`));
  const unchecked = new Set(
    mocked!.problems.filter((p) => p.message.startsWith("requests are not checked: ")).map((p) => p.place),
  );
  // An operation the mock leaves out (its [WARN] says why) is not asked.
  const left = new Set(mocked!.problems.filter((p) => / is not supported: /.test(p.message)).map((p) => p.place));
  const every = options.every ?? 1;
  const asked = expected.filter((o) => !left.has(`${file} paths.${o.path}.${o.method.toLowerCase()}`))
    .filter((_, i) => i % every === 0);
  for (const operation of asked) {
    const label = `${operation.method} ${operation.path}`;
    const names = operation.path.match(/\{[^}]+\}/g) ?? [];
    if (new Set(names).size !== names.length) {
      leftOut.push(`${label}: the path names a parameter twice`);
      continue;
    }
    try {
      const { valid: ok, invalid: faulted } = await exerciseOperation(operation);
      valid += ok;
      invalid += faulted;
    } catch (error) {
      leftOut.push(`${label}: ajv cannot compile its schemas: ${(error as Error).message}`);
    }
  }
  return {
    failures,
    own,
    valid,
    invalid,
    faults,
    leftOut,
    operations: expected.length + refused.length,
    asked: asked.length,
    /** What the mock said at start: each operation left out, each fix, each operation whose requests are unchecked. */
    problems: mocked!.problems,
    doc: doc!,
  };

  async function exerciseOperation({ method, path, status, contentType, schema }: Expected) {
    let valid = 0;
    let invalid = 0;
    const lower = method.toLowerCase();
    const label = `${method} ${path}`;
    const body = bodyOf(doc!, path, lower);
    const { target, headers, unusable } = await filled(doc!, check, path, lower);
    const asked: Asked = { target, method, headers };
    // What the test cannot send as the spec means it: left out, with why.
    if (unusable.length) {
      leftOut.push(`${label}: ${unusable.join(", ")}`);
      return { valid, invalid };
    }
    if ((method === "GET" || method === "HEAD") && body.type !== undefined) {
      leftOut.push(`${label}: a request body on ${method} (fetch cannot send one)`);
      return { valid, invalid };
    }
    if (body.schema !== undefined) {
      const value = body.example ?? await sampleOf(doc!, body.schema);
      const wrong = check(body.schema, value);
      if (wrong !== undefined) {
        leftOut.push(`${label}: the body example or sample fails its own schema (${wrong.slice(0, 120)})`);
        return { valid, invalid };
      }
      asked.body = JSON.stringify(value);
      headers["content-type"] = body.type!;
    } else if (body.required && body.type !== undefined) {
      asked.body = isJson(body.type) ? JSON.stringify(body.example ?? {}) : "a=1";
      headers["content-type"] = body.type;
    }
    const answer = await send(asked);
    if (answer.status !== status) {
      failures.push(`${label} (${target}): status ${answer.status}, want ${status}: ${answer.text.slice(0, 300)}`);
    } else if (method !== "HEAD" && schema !== undefined) {
      if (answer.type !== contentType) failures.push(`${label}: content type ${answer.type}, want ${contentType}`);
      const value = isJson(contentType!) ? JSON.parse(answer.text) : answer.text;
      const problem = check(schema, value);
      // The spec's own example as written: its fault, listed apart; anything else is ours.
      const example = problem === undefined ? undefined : ownExample(doc!, schema.replace(/\/schema$/, ""), value);
      if (problem && example !== undefined) own.push(`${label}: the spec's ${example} breaks its schema`);
      else if (problem && failsAtSpecExamples(value, examples)) {
        own.push(`${label}: the spec's property examples break its schema (${problem.slice(0, 120)})`);
      } else if (problem) failures.push(`${label}: ${problem}: ${answer.text.slice(0, 200)}`);
      else valid++;
    } else valid++;

    if (unchecked.has(`${file} paths.${path}.${lower}`)) {
      leftOut.push(`invalid ${label}: its requests are not checked (see the [WARN])`);
      return { valid, invalid };
    }
    const tries = options.faults === "each"
      ? await everyFault(asked, path, lower, body)
      : [await oneFault(asked, path, lower, body)].filter((t) => t !== undefined);
    for (const { kind, fault, wanted } of tries) {
      const faulted = await send(fault);
      const problem = faulted.type === "application/problem+json" ? JSON.parse(faulted.text) : undefined;
      const prism = kind === "json"
        ? faulted.status === 400 && isObject(problem) && problem.type === "BAD_REQUEST" &&
          problem.title === "The request body is not valid JSON" && problem.status === 400 &&
          problem.detail === `${method} ${path} takes a JSON body`
        : faulted.status === 422 && isObject(problem) && problem.type === "UNPROCESSABLE_ENTITY" &&
          problem.title === "Invalid request" && problem.status === 422 &&
          problem.detail === `the request does not match ${method} ${path} in the spec`;
      if (!prism || !Array.isArray(problem.validation) || !wanted(problem.validation)) {
        failures.push(
          `invalid ${label} (${kind}: ${fault.target} ${fault.body ?? ""}): ${faulted.status} ${
            faulted.text.slice(0, 300)
          }`,
        );
      } else {
        invalid++;
        faults[kind]++;
      }
    }
    return { valid, invalid };
  }

  /** A required query or header parameter left out, else a JSON body its schema rejects, else no body where one is required. */
  async function oneFault(asked: Asked, path: string, lower: string, body: ReturnType<typeof bodyOf>) {
    const required = parametersOf(doc!, path, lower).find(({ parameter }) =>
      (parameter.in === "query" || parameter.in === "header") && parameter.required === true &&
      !["accept", "content-type", "authorization"].includes(String(parameter.name).toLowerCase())
    )?.parameter;
    if (required) {
      const fault = { ...asked, ...await filled(doc!, check, path, lower, `${required.in}:${required.name}`) };
      if (asked.body !== undefined) fault.headers["content-type"] = asked.headers["content-type"];
      return { kind: "required" as const, fault, wanted: missing(required) };
    }
    if (body.schema !== undefined && rejected((value) => check(body.schema!, value)) !== undefined) {
      return {
        kind: "array" as const,
        fault: { ...asked, body: JSON.stringify(rejected((value) => check(body.schema!, value))) },
        wanted: (validation: Json[]) => validation.every((v) => (v.location as string[])[0] === "body"),
      };
    }
    if (body.required) {
      return {
        kind: "required" as const,
        fault: { ...asked, body: undefined },
        wanted: (validation: Json[]) =>
          JSON.stringify(validation) ===
            JSON.stringify([{ location: ["body"], severity: "Error", code: "required", message: "must have a body" }]),
      };
    }
    return undefined;
  }

  /** Each kind of invalid request that applies to the operation (see {@link ExerciseOptions.faults}). */
  async function everyFault(asked: Asked, path: string, lower: string, body: ReturnType<typeof bodyOf>) {
    const tries: { kind: FaultKind; fault: Asked; wanted: (validation: Json[]) => boolean }[] = [];
    const parameters = parametersOf(doc!, path, lower);
    const query = parameters.find(({ parameter }) => parameter.in === "query" && parameter.required === true)
      ?.parameter;
    if (query) {
      const fault = { ...asked, ...await filled(doc!, check, path, lower, `query:${query.name}`) };
      if (asked.body !== undefined) fault.headers["content-type"] = asked.headers["content-type"];
      tries.push({ kind: "required", fault, wanted: missing(query) });
    }
    // A path parameter whose schema takes no "x": an integer, number or boolean, or an enum without it.
    const typed = parameters.find(({ parameter, pointer }) => {
      if (parameter.in !== "path") return false;
      const schema = at(doc!, parameter.schema === undefined ? pointer : follow(doc!, `${pointer}/schema`));
      return isObject(schema) && (["integer", "number", "boolean"].includes(String(schema.type)) ||
        (Array.isArray(schema.enum) && !schema.enum.includes("x")));
    })?.parameter;
    if (typed) {
      const name = String(typed.name);
      const segments = path.split("/");
      const fault = { ...asked, headers: { ...asked.headers } };
      // The same target with that one segment replaced: the other values stay valid.
      const index = segments.indexOf(`{${name}}`);
      const parts = asked.target.split("?");
      const sent = parts[0].split("/");
      sent[index] = "x";
      fault.target = [sent.join("/"), ...parts.slice(1)].join("?");
      tries.push({
        kind: "path",
        fault,
        wanted: (validation) =>
          validation.some((v) =>
            JSON.stringify((v.location as string[]).slice(0, 2)) === JSON.stringify(["path", name]) &&
            v.severity === "Error"
          ),
      });
    }
    if (body.schema !== undefined && check(body.schema, []) !== undefined && check(body.schema, {}) === undefined) {
      tries.push({
        kind: "array",
        fault: { ...asked, body: "[]" },
        wanted: (validation) => validation.some((v) => JSON.stringify(v.location) === '["body"]' && v.code === "type"),
      });
    }
    if (body.schema !== undefined) {
      tries.push({
        kind: "json",
        fault: { ...asked, body: "{nope" },
        wanted: (validation) =>
          JSON.stringify(validation) ===
            JSON.stringify([{ location: ["body"], severity: "Error", code: "json", message: "must be valid JSON" }]),
      });
    }
    return tries;
  }
}

/** The check that a 422's validation names `parameter` as missing. */
function missing(parameter: Json): (validation: Json[]) => boolean {
  return (validation) =>
    validation.some((v) =>
      JSON.stringify(v) === JSON.stringify({
        location: [parameter.in],
        severity: "Error",
        code: "required",
        message: `must have required property '${parameter.name}'`,
      })
    );
}

/** A sample of the schema at `pointer`, as openapi-sampler makes one. */
export async function sampleOf(doc: Json, pointer: string): Promise<unknown> {
  const { sample } = await import("openapi-sampler");
  return sample(at(doc, pointer) as never, { skipReadOnly: true }, doc as never);
}

/** Why an operation (or its invalid request) is not asked: each left out names one of these. */
export const LEFT_OUT_BECAUSE = [
  /: no 2xx or default response$/, // the test's own reading
  /: 'responses' is not supported: /, // the converter's [WARN] for the same operations
  /: '#' is not supported: /, // a path with a fragment: never requested
  /: 'schema' is not supported: the example generated from its schema would hold more than /, // the converter's bound
  /: requests are not checked: /, // serve's [WARN]: a schema ajv cannot compile (the request is still answered)
  /^invalid .*: its requests are not checked/,
  /: the body example or sample fails its own schema /, // openapi-sampler's sample of oneOf/allOf, readOnly, …
  /: \w+ parameter \S+'s example or sample fails its schema/,
  /: \w+ parameter \S+ is an (array|object) \(style not read\)/, // path/header style serialization
  /: a request body on GET/,
  /: the path names a parameter twice$/,
  /: ajv cannot compile its schemas: /, // the test's ajv (3.0 `nullable` without `type`, 3.1 exclusiveMaximum: true)
];
