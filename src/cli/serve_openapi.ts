/**
 * `serve --openapi SPEC [--mock [--strict-requests]]`: the configured stubs checked against an
 * OpenAPI document at start (each drift a `[WARN]` line, as `validate --openapi` words it),
 * and with `--mock` one stub per operation of the spec (src/formats/openapi_import.ts), served
 * in memory below every configured stub, so one command mocks a whole API.
 * @module
 */

import { loadTemplating } from "../templating/engine.ts";
import type { OpenApiConversion } from "../formats/openapi_import.ts";
import type { OpenApiSpec } from "../report/openapi.ts";
import type { CheckAnswer, CheckedRequest, CompiledStub } from "../stubs/model.ts";
import { acceptedType } from "../util/media.ts";
import { isObject } from "../util/json_shape.ts";
import { seededRandom } from "../util/random.ts";
import { NULL_BODY_STATUSES, type Problem, validateConfig } from "../stubs/validate.ts";
import type { ParsedArgs } from "./usage.ts";
import { UsageError } from "./usage.ts";

/** The priority of the spec's stubs: below every configured stub (default 0), whatever its path. */
const MOCK_PRIORITY = -1;

/** What a `Prefer` header asks of a mocked operation. */
export interface Preference {
  code?: number;
  example?: string;
  /** `dynamic=true` (or `false`, to turn `--dynamic` off for one request). */
  dynamic?: boolean;
}

/** `Prefer: code=404, example=cat, dynamic=true` (`;` or `,` between): what it asks for, or undefined. */
export function parsePrefer(header: string | null): Preference | undefined {
  if (header === null) return undefined;
  const wanted: Preference = {};
  for (const piece of header.split(/[,;]/)) {
    const eq = piece.indexOf("=");
    if (eq === -1) continue;
    const name = piece.slice(0, eq).trim().toLowerCase();
    const value = piece.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    if (name === "code" && /^[1-5]\d\d$/.test(value)) wanted.code = Number(value);
    else if (name === "example" && value !== "") wanted.example = value;
    else if (name === "dynamic" && (value === "true" || value === "false")) wanted.dynamic = value === "true";
  }
  return Object.keys(wanted).length ? wanted : undefined;
}

/** A `500` problem: no response of the operation fits the request's `Prefer` (Prism's `NO_RESPONSE_DEFINED`). */
function noResponse(detail: string): CheckAnswer {
  return {
    status: 500,
    headers: { "content-type": "application/problem+json" },
    body: JSON.stringify({
      type: "NO_RESPONSE_DEFINED",
      title: "No response fits the request's Prefer header",
      status: 500,
      detail,
    }),
  };
}

/** A `406` problem: no media type of the response fits the request's `Accept` (Prism's `NOT_ACCEPTABLE`). */
function notAcceptable(accept: string, types: readonly string[]): CheckAnswer {
  return {
    status: 406,
    headers: { "content-type": "application/problem+json" },
    body: JSON.stringify({
      type: "NOT_ACCEPTABLE",
      title: "The server cannot produce a representation for your accept header",
      status: 406,
      detail: `Accept: ${accept.slice(0, 200)} fits none of ${types.join(", ")}`,
    }),
  };
}

/**
 * The answers of one operation a request asks for beside its stub's: Prism's `Prefer: code=`,
 * `example=` and `dynamic=true` (or `dynamic` for every request: `--dynamic`), and an `Accept`
 * the stub's content type does not meet. Bodies are sent as written (never a template); a fixed
 * answer is made once, a dynamic one per request from `random`.
 */
function preferring(
  prefer: OpenApiConversion["sources"][number]["prefer"],
  stubType: string | undefined,
  { dynamic, random }: { dynamic: boolean; random: () => number },
): (request: CheckedRequest) => CheckAnswer | undefined {
  const made = new Map<string, CheckAnswer>();
  return (request) => {
    const wanted = parsePrefer(request.header("prefer")) ?? {};
    const generate = wanted.dynamic ?? dynamic;
    const accept = request.header("accept");
    const otherType = accept !== null && stubType !== undefined && acceptedType(accept, [stubType]) === undefined;
    if (wanted.code === undefined && wanted.example === undefined && !generate && !otherType) return undefined;
    const key = JSON.stringify([wanted.code, wanted.example, accept]);
    const known = generate ? undefined : made.get(key);
    if (known) return known;
    const found = prefer({
      code: wanted.code,
      example: wanted.example,
      ...(accept === null ? {} : { accept }),
      ...(generate ? { random } : {}),
    });
    let answer: CheckAnswer;
    if (typeof found === "string") answer = noResponse(found);
    else if ("notAcceptable" in found) answer = notAcceptable(accept ?? "", found.notAcceptable);
    else {
      const text = found.body === undefined || NULL_BODY_STATUSES.has(found.status)
        ? null
        : typeof found.body === "string"
        ? found.body
        : JSON.stringify(found.body);
      answer = {
        status: found.status,
        headers: text !== null && found.type ? { "content-type": found.type } : {},
        body: text,
      };
    }
    if (!generate && made.size < 100 && key.length < 1024) made.set(key, answer);
    return answer;
  };
}

/** What `--openapi` adds to serve. */
export interface OpenApiServe {
  /** The spec's stubs (`--mock`), each with its place (`SPEC paths./pets.get`). */
  stubs: CompiledStub[];
  places: string[];
  /** The spec's own problems (errors), operations left out and drifts of configured stubs (warnings). */
  problems: Problem[];
  /** Lines for the start banner. */
  banner: string[];
}

/**
 * Reads `--openapi SPEC` for serve; undefined without it. `configured` are the stubs of the
 * config file and `--stub`s, in order, `placeOf` names them (`routes[2]`, `--stub[0]`).
 */
export async function openApiServe(
  values: ParsedArgs["values"],
  configured: readonly CompiledStub[],
  placeOf: (index: number) => string,
): Promise<OpenApiServe | undefined> {
  const file = values.openapi as string | undefined;
  const mock = values.mock === true;
  checkOpenApiFlags(values, file !== undefined);
  if (file === undefined) return undefined;
  const { compileOpenApi } = await import("../report/openapi.ts");
  const { readOpenApiDocument } = await import("./loaders/openapi_document.ts");
  const { doc, problems } = await readOpenApiDocument(file);
  if (!doc) return { stubs: [], places: [], problems, banner: [] };
  // The reader's warnings ($refs not read) first.
  const result: OpenApiServe = { stubs: [], places: [], problems: [...problems], banner: [] };
  const mocked = mock ? await mockOperations(doc, file, values, configured, result) : undefined;
  // After the conversion: compiling rewrites the document's 3.0 and 2.0 schemas for the validator.
  const spec = await compileOpenApi(file, doc);
  result.problems.push(...spec.warnings);
  if (mocked) answerAsTheSpec(spec, result, mocked, values, file);
  // As `validate --openapi` words it: a drift is an error there; a stub answering the spec's own
  // example that breaks its schema is the spec's fault, a warning at that example either way.
  const checked = spec.checkStubs(configured, placeOf);
  result.problems.push(...checked.map((problem) => ({ ...problem, level: "warn" as const })));
  const drifts = checked.filter((problem) => problem.level === "error").length;
  const broken = checked.length - drifts;
  let summary = mocked ? mocked.summary : `OpenAPI ${spec.version}, ${spec.operations.length} operation(s))`;
  if (configured.length) {
    summary += `; ${configured.length} configured stub(s) checked: ` +
      (drifts ? `${drifts} drift(s), see the warnings` : "no drift") +
      (broken ? `; ${broken} answer the spec's own examples that break its schema (see the warnings)` : "");
  }
  result.banner.push(`openapi: ${file} (${summary}`);
  return result;
}

/** Refuses the flags that shape `--openapi` and `--mock` without them, and a `--seed` out of range. */
function checkOpenApiFlags(values: ParsedArgs["values"], hasSpec: boolean): void {
  const mock = values.mock === true;
  if (!hasSpec) {
    if (mock) throw new UsageError("--mock answers the operations of an OpenAPI document: add --openapi SPEC", "serve");
    if (values["strict-requests"] === true) {
      throw new UsageError("--strict-requests shapes the stubs of --openapi SPEC --mock: add them", "serve");
    }
    if (values["no-validate-requests"] === true) {
      throw new UsageError("--no-validate-requests is for the stubs of --openapi SPEC --mock: add them", "serve");
    }
    if (values.dynamic === true || values.seed !== undefined) {
      throw new UsageError("--dynamic and --seed shape the answers of --openapi SPEC --mock: add them", "serve");
    }
    return;
  }
  if ((values.dynamic === true || values.seed !== undefined) && !mock) {
    throw new UsageError("--dynamic and --seed shape the answers --mock makes: add --mock", "serve");
  }
  const seedText = values.seed as string | undefined;
  if (seedText !== undefined && !/^\d{1,10}$/.test(seedText)) {
    throw new UsageError(
      `--seed: must be a whole number from 0 to 4294967295, got ${JSON.stringify(seedText)}`,
      "serve",
    );
  }
  if (seedText !== undefined && Number(seedText) > 0xffffffff) {
    throw new UsageError(`--seed: must be a whole number from 0 to 4294967295, got ${seedText}`, "serve");
  }
  if (values["no-validate-requests"] === true && !mock) {
    throw new UsageError("--no-validate-requests is for the stubs --mock makes: add --mock", "serve");
  }
  if (values["strict-requests"] === true && !mock) {
    throw new UsageError("--strict-requests shapes the stubs --mock makes: add --mock", "serve");
  }
}

/** What {@link mockOperations} made: each stub's operation and content type, and the banner's summary. */
interface MockedOperations {
  sources: OpenApiConversion["sources"];
  stubTypes: (string | undefined)[];
  summary: string;
}

/**
 * `--mock`: one stub per operation of the spec into `result` (and a twin under each server
 * URL's path), below every configured stub, with the converter's and validator's problems.
 */
async function mockOperations(
  doc: Record<string, unknown>,
  file: string,
  values: ParsedArgs["values"],
  configured: readonly CompiledStub[],
  result: OpenApiServe,
): Promise<MockedOperations> {
  // The operations' stubs are converted and checked synchronously: the template engine loads first.
  const [{ openApiToConfig }] = await Promise.all([import("../formats/openapi_import.ts"), loadTemplating()]);
  const converted = openApiToConfig(doc, file, { strictRequests: values["strict-requests"] === true });
  for (const { place, message } of [...converted.fixes, ...converted.warnings]) {
    result.problems.push({ level: "warn", place, message: message.slice(place.length + 2) });
  }
  // An operationId a configured stub already uses as its id stays unnamed here.
  const taken = new Set(configured.flatMap((stub) => stub.id === undefined ? [] : [stub.id]));
  for (const route of converted.routes) {
    if (typeof route.id === "string" && taken.has(route.id)) delete route.id;
    route.priority = MOCK_PRIORITY;
  }
  const { config, problems: invalid } = validateConfig({ routes: converted.routes }, { uniqueIds: true });
  // Errors only: the converter refused each stub the validator would; its warnings are about
  // example text the spec holds (a `{name}` sent as written), not the user's stubs.
  for (const problem of invalid.filter((p) => p.level === "error")) {
    const index = /^routes\[(\d+)\]/.exec(problem.place ?? "")?.[1];
    result.problems.push({ ...problem, place: index === undefined ? file : converted.places[Number(index)] });
  }
  result.stubs = config?.routes ?? [];
  // Near misses name the operation a stub mocks, not `inline`.
  for (const stub of result.stubs) stub.place = `openapi ${stub.method} ${stub.path} of ${file}`;
  result.places = config ? converted.places : [];
  const stubTypes = converted.routes.map((route) => {
    const headers = route.headers;
    return isObject(headers) && typeof headers["content-type"] === "string" ? headers["content-type"] : undefined;
  });
  const mocked = result.stubs.length;
  // Each operation answers under every server URL's path (`/v1/pets`) as well as without it.
  const prefixes = await fixedBasePaths(doc);
  if (config && prefixes.length) addUnderBasePaths(prefixes, converted, result);
  const summary = `${converted.version}, ${converted.operations} operation(s)): ${mocked} mocked ` +
    `(configured stubs win)` +
    (converted.warnings.length ? `, ${converted.warnings.length} left out (see the warnings)` : "") +
    (prefixes.length ? `, under ${prefixes.join(", ")} too` : "");
  return { sources: converted.sources, stubTypes, summary };
}

/** The spec's server URL paths that are fixed prefixes (`/v1`); a variable without a default (`/{region}`) is not. */
async function fixedBasePaths(doc: Record<string, unknown>): Promise<string[]> {
  const { basePaths } = await import("../report/openapi.ts");
  return basePaths(doc).filter((base) => base.length && !base.some((s) => /[{}]/.test(s)))
    .map((base) => `/${base.map(encodeURIComponent).join("/")}`);
}

/** Adds to `result` a twin of each converted stub under each of `prefixes` (`/v1/pets`). */
function addUnderBasePaths(prefixes: string[], converted: OpenApiConversion, result: OpenApiServe): void {
  const under = prefixes.flatMap((prefix) =>
    converted.routes.map((route) => {
      const { id: _, ...copy } = route;
      return { ...copy, path: `${prefix}${route.path === "/" ? "" : route.path}` };
    })
  );
  const { config: twins } = validateConfig({ routes: under });
  // A twin names the operation it mocks, as its original does (`openapi GET /pets of petstore.yaml`).
  const originals = result.stubs;
  twins?.routes.forEach((twin, j) => twin.place = originals[j % originals.length]?.place);
  result.stubs = [...originals, ...twins?.routes ?? []];
  result.places = [...result.places, ...prefixes.flatMap(() => converted.places)];
}

/**
 * Each mocked stub (and its twin under a base path) checks the requests it matches against its
 * operation, then answers what a `Prefer` header asks for.
 */
function answerAsTheSpec(
  spec: OpenApiSpec,
  result: OpenApiServe,
  { sources, stubTypes }: MockedOperations,
  values: ParsedArgs["values"],
  file: string,
): void {
  const validate = values["no-validate-requests"] !== true;
  const seedText = values.seed as string | undefined;
  // One stream of choices for the whole server: with --seed, the same requests in the same order get the same data.
  const seed = seedText === undefined ? crypto.getRandomValues(new Uint32Array(1))[0] : Number(seedText);
  const random = seededRandom(seed);
  const dynamic = values.dynamic === true;
  const preferences = sources.map((source, i) => preferring(source.prefer, stubTypes[i], { dynamic, random }));
  // A schema ajv cannot compile (a pattern no linear-time engine runs, `nullable` without a
  // `type`, a 3.0 `exclusiveMaximum: true` in 3.1) leaves that operation's checks out, with a [WARN].
  const checks = sources.map((source, i) => {
    if (!validate) return undefined;
    try {
      return spec.requestCheck(source.path, source.method, source.captures);
    } catch (error) {
      result.problems.push({
        level: "warn",
        place: result.places[i] ?? file,
        message: `requests are not checked: ${(error as Error).message}`,
      });
      return undefined;
    }
  });
  result.stubs.forEach((stub, i) => {
    const check = checks[i % sources.length];
    const prefer = preferences[i % sources.length];
    stub.requestCheck = {
      readsBody: check?.readsBody ?? false,
      validates: validate,
      check: (request) => check?.check(request) ?? prefer(request),
    };
  });
}
