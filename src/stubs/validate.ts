/**
 * The one stub validator. Config files, inline `--stub`s and the fluent builders all
 * end here, so a rule and its message live in exactly one place. Every problem is
 * returned, not just the first, phrased as `<field> must …, got …`.
 * @module
 */

import {
  type Delay,
  type HeaderMap,
  type ResponseFunc,
  type ResponseSpec,
  type SequenceMode,
  type Stub,
  stubLabel,
  type StubMethod,
} from "./model.ts";
import { parsePathTemplate, PLACEHOLDER_ANYWHERE, type Segment } from "./path.ts";
import type { ValuePatternSpec } from "./patterns.ts";
import { checkId, checkPriority, checkScope, compileRequest } from "./request.ts";
import { findShadowedStubs } from "./shadow.ts";
import { checkBehaviour, checkResponseTemplates, templateStatus } from "./behaviour.ts";
import { unreachableStates } from "./scenario_flow.ts";
import { contentTypeOf } from "./media.ts";
import { unknownField } from "./hint.ts";
import { checkHeaders, checkJsonValue, checkMethod, describe } from "./checks.ts";

export {
  checkHeaders,
  checkJsonValue,
  checkMethod,
  describe,
  HEADER_NAME,
  HEADER_VALUE_FORBIDDEN,
  STUB_METHODS,
} from "./checks.ts";
import { readFileSync } from "node:fs";
import { isAbsolute, resolve as resolvePath } from "node:path";
import { cwd } from "node:process";

export { findShadowedStubs } from "./shadow.ts";
export { didYouMean, unknownField } from "./hint.ts";

/** A problem found in a config, tied to where it is. */
export interface Problem {
  level: "error" | "warn";
  /** `routes[2]`, `--stub[0]`, `port`; absent for problems of the file as a whole. */
  place?: string;
  message: string;
}

/** The fields of a stub in a config file (`schema.ts` describes each, so the two lists cannot drift). */
export const STUB_FIELDS = [
  "method",
  "path",
  "status",
  "headers",
  "body",
  "query_params",
  "delay",
  "sequence",
  "sequence_mode",
  "id",
  "scope",
  "priority",
  "request",
  "body_file",
  "body_base64",
  "proxy",
  "fault",
  "throttle",
  "scenario",
  "when_state",
  "set_state",
  "template",
  "callbacks",
  "name",
  "head",
] as const;
const STUB_FIELDS_WITH_FUNC = [...STUB_FIELDS, "response_func"] as const;
/** The fields of a `sequence` entry. */
export const ENTRY_FIELDS = ["status", "headers", "body", "body_file", "body_base64", "delay"] as const;
/** What `sequence_mode` may be. */
export const SEQUENCE_MODES: readonly SequenceMode[] = ["repeat-last", "cycle"];
/** The longest delay in milliseconds. */
export const MAX_DELAY_MS = 2_147_483_647; // the largest setTimeout delay
/** Statuses whose answers carry no body (RFC 9110). */
export const NULL_BODY_STATUSES = new Set([204, 205, 304]);

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks a status code. */
export function checkStatus(value: unknown, field = "status"): string | undefined {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 100 || value > 599) {
    // A status written as a template is rendered only in a template stub.
    const hint = typeof value === "string" && value.includes("{{")
      ? "; add template: true to render it per request"
      : "";
    return `${field} must be an integer from 100 to 599, got ${describe(value)}${hint}`;
  }
  if (value < 200) {
    return `${field} ${value} is informational (1xx) and cannot be a final response; use 200 to 599`;
  }
}

/** Checks a delay: milliseconds, or `{min, max}` milliseconds. */
export function checkDelay(value: unknown, field = "delay"): string | undefined {
  const isMs = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= MAX_DELAY_MS;
  if (typeof value === "number") {
    return isMs(value) ? undefined : `${field} must be milliseconds from 0 to ${MAX_DELAY_MS}, got ${value}`;
  }
  if (!isMapping(value)) {
    return `${field} must be milliseconds (250) or a range ({min: 100, max: 300}), got ${describe(value)}`;
  }
  for (const key of Object.keys(value)) {
    if (key !== "min" && key !== "max") return `${field}: ${unknownField("field", key, ["min", "max"])}`;
  }
  const { min, max } = value;
  if (!isMs(min) || !isMs(max)) {
    return `${field} needs min and max in milliseconds from 0 to ${MAX_DELAY_MS}, got min ${describe(min)}, max ${
      describe(max)
    }`;
  }
  if ((min as number) > (max as number)) return `${field}.min (${min}) must not be greater than max (${max})`;
}

/**
 * Validates one response (a plain response or a sequence entry). A plain response's
 * `delay` is the stub's own and is checked by the caller (`withDelay: false`).
 */
function checkResponse(
  raw: Record<string, unknown>,
  prefix: string,
  errors: string[],
  withDelay = true,
  options?: ValidateStubOptions,
): ResponseSpec {
  // Only an absent status defaults; `status:` left empty in YAML (null) is an error.
  const status = raw.status === undefined ? 200 : raw.status;
  const statusError = checkStatus(status, `${prefix}status`);
  if (statusError && QUOTED_STATUS.has(raw)) {
    errors.push(`${statusError}; write it without quotes (status: ${String(status).trim()}), or render it with {{…}}`);
  } else if (statusError) errors.push(statusError);
  // `content-type: null` sends no content type at all (as WireMock does for a mapping that sets none).
  const noContentType = isMapping(raw.headers) &&
    Object.entries(raw.headers).some(([name, value]) => value === null && name.toLowerCase() === "content-type");
  const headers = raw.headers === undefined
    ? undefined
    : checkHeaders(noContentType ? withoutContentType(raw.headers) : raw.headers, `${prefix}headers`, errors);
  if (noContentType && Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "content-type")) {
    errors.push(`${prefix}headers set content-type to null (send none) and to a value; keep one`);
  }
  const hasBody = Object.hasOwn(raw, "body") && raw.body !== undefined;
  if (hasBody) {
    const bodyError = checkJsonValue(raw.body, `${prefix}body`);
    if (bodyError) errors.push(bodyError);
    if (NULL_BODY_STATUSES.has(status as number)) {
      errors.push(`${prefix}status ${status} cannot carry a body; remove ${prefix}body or use another status`);
    }
  }
  let delay: Delay | undefined;
  if (withDelay && raw.delay !== undefined) {
    const delayError = checkDelay(raw.delay, `${prefix}delay`);
    if (delayError) errors.push(delayError);
    else delay = raw.delay as Delay;
  }
  const spec: ResponseSpec = { status: status as number, headers, body: raw.body, hasBody, delay };
  if (noContentType) spec.noContentType = true;
  const bodies = ["body", "body_file", "body_base64"].filter((key) =>
    Object.hasOwn(raw, key) && raw[key] !== undefined
  );
  if (bodies.length > 1) {
    errors.push(`${prefix}${bodies.join(" and ")} are given; a response has one body: keep one of them`);
    return spec;
  }
  const binary = binaryBody(raw, prefix, errors, options);
  if (binary) {
    Object.assign(spec, binary, { hasBody: true, body: undefined });
    if (binary.headers === undefined) spec.headers = headers;
    if (NULL_BODY_STATUSES.has(status as number)) {
      errors.push(`${prefix}status ${status} cannot carry a body; remove ${prefix}${bodies[0]} or use another status`);
    }
  }
  return spec;
}

/** `headers` without its null content type (send none). */
function withoutContentType(headers: unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers as Record<string, unknown>).filter(([name, value]) =>
      value !== null || name.toLowerCase() !== "content-type"
    ),
  );
}

/** What `body_base64` may hold. */
export const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * A `body_file` (read now, relative to `options.baseDir`) or `body_base64` body: its bytes,
 * and for a file its paths. A file's content type comes from its extension unless the
 * response's headers set one.
 */
function binaryBody(
  raw: Record<string, unknown>,
  prefix: string,
  errors: string[],
  options?: ValidateStubOptions,
): Pick<ResponseSpec, "bytes" | "file" | "filePath" | "headers"> | undefined {
  const headers = raw.headers;
  const typed = isMapping(headers) && Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
  /** The response's headers with `type` as the content type, unless they set one. */
  const typedAs = (type: string) =>
    typed ? undefined : { ...(raw.headers as HeaderMap | undefined), "content-type": type } as HeaderMap;
  if (raw.body_base64 !== undefined) {
    const text = raw.body_base64;
    if (typeof text !== "string" || !BASE64.test(text)) {
      errors.push(`${prefix}body_base64 must be base64 text (A-Z a-z 0-9 + /, = padding), got ${describe(text)}`);
      return undefined;
    }
    try {
      const binary = atob(text.replace(/\s+/g, ""));
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      return { bytes, headers: typedAs("application/octet-stream") };
    } catch {
      errors.push(`${prefix}body_base64 is not valid base64 (its length or padding is wrong)`);
      return undefined;
    }
  }
  if (raw.body_file === undefined) return undefined;
  const file = raw.body_file;
  if (typeof file !== "string" || file === "") {
    errors.push(`${prefix}body_file must be the path of a file, got ${describe(file)}`);
    return undefined;
  }
  const read = options?.readFile ?? readFileBytes;
  const filePath = absolutePath(file, options?.baseDir);
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = read(filePath);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === "ENOENT"
      ? "no such file"
      : code === "EISDIR"
      ? "it is a directory"
      : code === "EACCES"
      ? "permission denied"
      : error instanceof Error
      ? error.message
      : String(error);
    errors.push(`${prefix}body_file ${JSON.stringify(file)} cannot be read: ${why} (looked for ${filePath})`);
    return undefined;
  }
  return { bytes, file, filePath, headers: typedAs(contentTypeOf(file)) };
}

/** `path` against `base` (or the working directory) unless it is absolute. */
function absolutePath(path: string, base: string | undefined): string {
  return isAbsolute(path) ? path : resolvePath(base ?? cwd(), path);
}

/** Reads a whole file (node:fs: the stub language runs on Deno and Node alike). */
function readFileBytes(path: string): Uint8Array<ArrayBuffer> {
  const buffer = readFileSync(path);
  return new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer);
}

/**
 * Checks the plain-response fields of a stub whose answer comes from elsewhere (a
 * sequence, a proxy, a response function): the conflict is reported, and so is a wrong
 * value in them (`status: "2OO"`), so one run of `validate` shows every fix to make.
 */
function checkUnusedResponse(raw: Record<string, unknown>, errors: string[], options?: ValidateStubOptions): void {
  if (plainResponseFields(raw).length) checkResponse(raw, "", errors, false, options);
}

/** The plain-response fields a stub sets, which a sequence or a response function rules out. */
function plainResponseFields(raw: Record<string, unknown>): string[] {
  return ["status", "headers", "body", "body_file", "body_base64"].filter((key) =>
    Object.hasOwn(raw, key) && raw[key] !== undefined
  );
}

/** An upstream URL (`proxy`, `proxy_unmatched`): http or https, no query or fragment; a problem, or undefined. */
export function checkUpstream(value: unknown, field: string): string | undefined {
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
    return `${field} must be an http:// or https:// URL without ?query or #fragment (the request's own path and query are added), got ${
      describe(value)
    }`;
  }
  return undefined;
}

/** Options for {@link validateStub}. */
export interface ValidateStubOptions {
  /** Programmatic stubs may carry a `response_func`; config files cannot. */
  allowResponseFunc?: boolean;
  /** Where relative `body_file` paths start: the config file's folder (default: the working directory). */
  baseDir?: string;
  /** Reads a `body_file` (default `node:fs` `readFileSync`); tests pass their own. */
  readFile?: (path: string) => Uint8Array<ArrayBuffer>;
}

/**
 * Validates one raw stub (config-file field names). Returns the stub, or every problem
 * found, each a message without the `routes[i]: ` place.
 */
export function validateStub(
  raw: unknown,
  options?: ValidateStubOptions,
): { stub?: Stub; errors: string[] } {
  // A template stub may write its status as a template: the response checks see 200 in its place.
  const statusTemplates: (string | undefined)[] = [];
  if (isMapping(raw) && raw.template === true) raw = withNumericStatus(raw, statusTemplates);
  if (!isMapping(raw)) {
    return { errors: [`must be a mapping with at least method and path, got ${describe(raw)}`] };
  }
  const errors: string[] = [];
  const behaviour = checkBehaviour(raw, errors);
  const known: readonly string[] = options?.allowResponseFunc ? STUB_FIELDS_WITH_FUNC : STUB_FIELDS;
  for (const key in raw) { // for-in with hasOwn: Object.keys without the array
    if (Object.hasOwn(raw, key) && !known.includes(key)) errors.push(unknownField("field", key, known));
  }
  const request = checkRequestPart(raw, errors);
  const answer = checkAnswerPart(raw, errors, options);
  const delivery = checkDeliveryPart(raw, errors, answer);
  if (behaviour.template) {
    if (answer.responseFunc !== undefined || answer.proxy !== undefined) {
      errors.push(
        `template applies to a stub's own answer, not to a ${
          answer.proxy !== undefined ? "proxy" : "response function"
        }`,
      );
    }
    answer.responses.forEach((response, i) => {
      if (statusTemplates[i] !== undefined) response.statusTemplate = statusTemplates[i];
    });
    checkResponseTemplates(answer.responses, answer.isSequence, errors);
  }
  if (errors.length) return { errors };
  return { stub: buildStub(raw, request, answer, delivery, behaviour), errors };
}

/** What a stub's request part (method, path, query, conditions, identity) checks out to. */
interface RequestPart {
  method?: StubMethod;
  segments: Segment[];
  path: string;
  query?: Record<string, ValuePatternSpec>;
  compiled: ReturnType<typeof compileRequest>;
}

/** Checks what a stub matches: method, path, query parameters, request conditions, id, scope, priority, name, head. */
function checkRequestPart(raw: Record<string, unknown>, errors: string[]): RequestPart {
  const { method, error: methodError } = checkMethod(raw.method);
  if (methodError) errors.push(methodError);

  let segments: Segment[] = [];
  let path = "";
  let query: Record<string, ValuePatternSpec> | undefined;
  if (typeof raw.path !== "string") {
    errors.push(
      raw.path === undefined
        ? "path is required, for example /users/{id}"
        : `path must be a string, got ${describe(raw.path)}`,
    );
  } else {
    const parsed = parsePathTemplate(raw.path);
    for (const problem of parsed.problems) errors.push(problem);
    if (parsed.template) ({ segments, path, query } = parsed.template);
  }
  query = mergeQueryParams(raw.query_params, query, errors);

  // Query values, request conditions and their captures (one name, one capture).
  const compiled = compileRequest(segments, query, raw.request, errors);
  for (const [field, check] of [["id", checkId], ["scope", checkScope], ["priority", checkPriority]] as const) {
    if (raw[field] === undefined) continue;
    const problem = check(raw[field]);
    if (problem) errors.push(problem);
  }
  if (raw.name !== undefined && (typeof raw.name !== "string" || raw.name === "" || raw.name.length > 200)) {
    errors.push(`name must be text of 1 to 200 characters, got ${describe(raw.name)}`);
  }
  if (raw.head !== undefined && (raw.head !== false || method !== "GET")) {
    errors.push(
      raw.head !== false
        ? `head can only be false (a GET stub then does not answer HEAD), got ${describe(raw.head)}`
        : "head: false applies to GET stubs only (other methods never answer HEAD)",
    );
  }
  return { method, segments, path, query, compiled };
}

/** `query_params` merged into the path's `?query` part (the same name in both is an error). */
function mergeQueryParams(
  given: unknown,
  query: Record<string, ValuePatternSpec> | undefined,
  errors: string[],
): Record<string, ValuePatternSpec> | undefined {
  if (given === undefined) return query;
  const extra = isMapping(given) ? given as Record<string, ValuePatternSpec> : undefined;
  if (!extra) {
    errors.push(
      `query_params must be a mapping of names to values (text, {name}, {regex: …} or {absent: true}), got ${
        describe(given)
      }`,
    );
    return query;
  }
  query ??= Object.create(null) as Record<string, ValuePatternSpec>;
  for (const [key, value] of Object.entries(extra)) {
    if (key === "") {
      errors.push("query_params has an empty parameter name");
    } else if (Object.hasOwn(query, key)) {
      errors.push(`query parameter '${key}' is set both in path and in query_params; keep one`);
    } else {
      // YAML users write `page: 2` and mean the text "2".
      query[key] = typeof value === "number" || typeof value === "boolean" ? String(value) : value;
    }
  }
  return Object.keys(query).length === 0 ? undefined : query;
}

/** What a stub's answer checks out to: one of written responses (maybe a sequence), a function, a proxy. */
interface AnswerPart {
  responses: ResponseSpec[];
  isSequence: boolean;
  sequenceMode: SequenceMode;
  delay?: Delay;
  proxy?: string;
  responseFunc?: unknown;
}

/** Checks how a stub answers: `proxy`, `response_func`, `sequence` or a plain response, never two of them. */
function checkAnswerPart(
  raw: Record<string, unknown>,
  errors: string[],
  options: ValidateStubOptions | undefined,
): AnswerPart {
  const isSequence = raw.sequence !== undefined;
  // Where response functions are not allowed, `response_func` is only an unknown field.
  const responseFunc = options?.allowResponseFunc ? raw.response_func : undefined;
  let responses: ResponseSpec[] = [];
  let delay: Delay | undefined;
  if (raw.delay !== undefined) {
    const delayError = checkDelay(raw.delay);
    if (delayError) errors.push(delayError);
    else delay = raw.delay as Delay;
  }

  let proxy: string | undefined;
  if (raw.proxy !== undefined) {
    const problem = checkUpstream(raw.proxy, "proxy");
    if (problem) errors.push(problem);
    else proxy = raw.proxy as string;
    const answers = [...plainResponseFields(raw), ...(raw.sequence !== undefined ? ["sequence"] : [])];
    if (answers.length) errors.push(`a proxy stub passes the upstream's answer on; remove ${answers.join(", ")}`);
    checkUnusedResponse(raw, errors, options);
    if (responseFunc !== undefined) errors.push("use either a response function or proxy, not both");
  } else if (responseFunc !== undefined) {
    const hasPlain = plainResponseFields(raw);
    if (typeof responseFunc !== "function") {
      errors.push(`response_func must be a function, got ${describe(responseFunc)}`);
    }
    if (isSequence) errors.push("use either a response function or sequence, not both");
    if (hasPlain.length) errors.push(`a response function computes the response; remove ${hasPlain.join(", ")}`);
    checkUnusedResponse(raw, errors, options);
  } else if (isSequence) {
    responses = checkSequence(raw, delay, errors, options);
  } else {
    const response = checkResponse(raw, "", errors, false, options);
    response.delay = delay;
    responses = [response];
  }

  let sequenceMode: SequenceMode = "repeat-last";
  if (raw.sequence_mode !== undefined) {
    if (!SEQUENCE_MODES.includes(raw.sequence_mode as SequenceMode)) {
      errors.push(`sequence_mode must be 'repeat-last' or 'cycle', got ${describe(raw.sequence_mode)}`);
    } else if (!isSequence) {
      errors.push("sequence_mode only applies to a stub with a sequence; add sequence or remove sequence_mode");
    } else sequenceMode = raw.sequence_mode as SequenceMode;
  }
  return { responses, isSequence, sequenceMode, delay, proxy, responseFunc };
}

/** Checks a `sequence` and its entries; an entry without its own delay takes the stub's. */
function checkSequence(
  raw: Record<string, unknown>,
  delay: Delay | undefined,
  errors: string[],
  options: ValidateStubOptions | undefined,
): ResponseSpec[] {
  const responses: ResponseSpec[] = [];
  const hasPlain = plainResponseFields(raw);
  if (hasPlain.length) {
    errors.push(`use either sequence or ${hasPlain.join("/")}, not both: move them into the sequence entries`);
    checkUnusedResponse(raw, errors, options);
  }
  if (!Array.isArray(raw.sequence) || raw.sequence.length === 0) {
    errors.push(
      `sequence must be a non-empty list of responses ({status, headers, body, delay}), got ${describe(raw.sequence)}`,
    );
    return responses;
  }
  raw.sequence.forEach((entry, i) => {
    const prefix = `sequence[${i}].`;
    if (!isMapping(entry)) {
      errors.push(`${prefix.slice(0, -1)} must be a mapping like {status: 200, body: {...}}, got ${describe(entry)}`);
      return;
    }
    for (const key of Object.keys(entry)) {
      if (!(ENTRY_FIELDS as readonly string[]).includes(key)) {
        errors.push(`${prefix.slice(0, -1)}: ${unknownField("field", key, ENTRY_FIELDS)}`);
      }
    }
    const response = checkResponse(entry, prefix, errors, true, options);
    response.delay ??= delay;
    responses.push(response);
  });
  return responses;
}

/** Checks how the answer goes out: `fault` and `throttle`, which apply to a stub's own answer only. */
function checkDeliveryPart(
  raw: Record<string, unknown>,
  errors: string[],
  answer: AnswerPart,
): { fault?: Stub["fault"]; throttle?: number } {
  const fault = raw.fault;
  if (fault !== undefined && fault !== "disconnect" && fault !== "truncate") {
    errors.push(`fault must be 'disconnect' or 'truncate', got ${describe(fault)}`);
  }
  const throttle = raw.throttle;
  if (throttle !== undefined && (typeof throttle !== "number" || !Number.isInteger(throttle) || throttle < 1)) {
    errors.push(`throttle must be a whole number of bytes per second (1 or more), got ${describe(throttle)}`);
  }
  if (
    (fault !== undefined || throttle !== undefined) && (answer.proxy !== undefined || answer.responseFunc !== undefined)
  ) {
    errors.push(
      `${fault !== undefined ? "fault" : "throttle"} applies to a stub's own answer, not to a ${
        answer.proxy !== undefined ? "proxy" : "response function"
      }`,
    );
  }
  return { fault: fault as Stub["fault"], throttle: throttle as number | undefined };
}

/** The stub from its checked parts (only called when there were no errors). */
function buildStub(
  raw: Record<string, unknown>,
  request: RequestPart,
  answer: AnswerPart,
  delivery: { fault?: Stub["fault"]; throttle?: number },
  behaviour: ReturnType<typeof checkBehaviour>,
): Stub {
  const { responseFunc, proxy, delay } = answer;
  const stub: Stub = {
    method: request.method!,
    path: request.path,
    segments: request.segments,
    responses: responseFunc || proxy ? [] : answer.responses,
    isSequence: answer.isSequence,
    sequenceMode: answer.sequenceMode,
  };
  const { query, compiled } = request;
  if (query) stub.query = query;
  if (raw.id !== undefined) stub.id = raw.id as string;
  if (raw.name !== undefined) stub.name = raw.name as string;
  if (raw.head === false) stub.head = false;
  if (raw.scope !== undefined) stub.scope = raw.scope as string;
  if (raw.priority !== undefined && raw.priority !== 0) stub.priority = raw.priority as number;
  if (compiled?.request) stub.request = compiled.request;
  if (compiled && Object.keys(compiled.match).length) stub.match = compiled.match;
  if (responseFunc) {
    stub.responseFunc = responseFunc as ResponseFunc;
    stub.delay = delay;
  }
  if (proxy) {
    stub.proxy = proxy;
    stub.delay = delay;
  }
  if (delivery.fault !== undefined) stub.fault = delivery.fault;
  if (delivery.throttle !== undefined) stub.throttle = delivery.throttle;
  if (behaviour.step) {
    stub.scenario = behaviour.step.scenario;
    if (behaviour.step.whenState !== undefined) stub.whenState = behaviour.step.whenState;
    if (behaviour.step.setState !== undefined) stub.setState = behaviour.step.setState;
  }
  if (behaviour.template) stub.template = true;
  if (behaviour.callbacks) stub.callbacks = behaviour.callbacks;
  return stub;
}

/** A copy of `raw` whose template statuses (`"{{…}}"`, its own and its sequence entries') read 200; each kept by entry. */
/** Responses of template stubs whose status is a number in quotes (`status: "201"`), for a message that says so. */
const QUOTED_STATUS = new WeakSet<object>();

function withNumericStatus(raw: Record<string, unknown>, kept: (string | undefined)[]): Record<string, unknown> {
  const numeric = (entry: Record<string, unknown>, i: number) => {
    if (typeof entry.status === "string" && entry.status.trim() !== "" && Number.isInteger(Number(entry.status))) {
      QUOTED_STATUS.add(entry);
    }
    const status = templateStatus(entry.status);
    kept[i] = status;
    return status === undefined ? entry : { ...entry, status: 200 };
  };
  if (Array.isArray(raw.sequence)) {
    return { ...raw, sequence: raw.sequence.map((e, i) => isMapping(e) ? numeric(e, i) : e) };
  }
  return numeric(raw, 0);
}

/** CORS as configured: on for any origin, or for a list of origins. */
export type CorsSetting = boolean | { origins: readonly string[] };

/** A validated config file. */
export interface Config {
  routes: Stub[];
  port?: number;
  /** `cors:`, when the file sets it. */
  cors?: CorsSetting;
  /** `proxy_unmatched:`: where requests no stub matches go. */
  proxyUnmatched?: string;
  /** `wiremock:`: WireMock root folders whose mappings load as stubs, made absolute against the config's folder. */
  wiremock?: string[];
}

/** The top-level keys of a config file. */
export const CONFIG_FIELDS = ["routes", "port", "cors", "proxy_unmatched", "wiremock"] as const;

/** An origin `cors:` may list: scheme, host and port, no path. */
export const ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s]+$/;

/** `true`/`false`, or `{origins: [...]}`: a problem, or undefined. */
export function checkCors(value: unknown): string | undefined {
  if (typeof value === "boolean") return undefined;
  if (isMapping(value)) {
    const keys = Object.keys(value);
    const origins = value.origins;
    if (keys.length === 1 && keys[0] === "origins" && Array.isArray(origins)) {
      const bad = origins.find((o) => typeof o !== "string" || !ORIGIN.test(o));
      if (bad === undefined) return undefined;
      return `must list origins like https://app.example:3000 (scheme, host and port; no path), got ${describe(bad)}`;
    }
  }
  return `must be true, false or {origins: [https://app.example, …]}, got ${describe(value)}`;
}

/** Options for {@link validateConfig}. */
export interface ValidateConfigOptions extends Pick<ValidateStubOptions, "baseDir" | "readFile"> {
  /**
   * Two stubs with the same `id` are an error. Set for config files; the admin API leaves
   * it to the server, which answers a duplicate with `409` and names the stub holding the id.
   */
  uniqueIds?: boolean;
}

/**
 * Validates a parsed config document (`{routes: [...], port?}`). Returns the config when
 * there is no error; `problems` holds every error: unknown top-level keys, then `port`,
 * then each route in order. Shadow warnings are added only when there is no error.
 */
export function validateConfig(
  raw: unknown,
  options?: ValidateConfigOptions,
): { config?: Config; problems: Problem[] } {
  const problems: Problem[] = [];
  if (!isMapping(raw)) {
    problems.push({ level: "error", message: `the config must be a mapping with a routes list, got ${describe(raw)}` });
    return { problems };
  }
  for (const key of Object.keys(raw)) {
    if (!(CONFIG_FIELDS as readonly string[]).includes(key)) {
      problems.push({ level: "error", message: unknownField("top-level key", key, CONFIG_FIELDS) });
    }
  }
  let port: number | undefined;
  if (raw.port !== undefined) {
    if (typeof raw.port !== "number" || !Number.isInteger(raw.port) || raw.port < 0 || raw.port > 65535) {
      problems.push({
        level: "error",
        place: "port",
        message: `must be an integer from 0 to 65535, got ${describe(raw.port)}`,
      });
    } else port = raw.port;
  }
  let proxyUnmatched: string | undefined;
  if (raw.proxy_unmatched !== undefined) {
    const problem = checkUpstream(raw.proxy_unmatched, "proxy_unmatched");
    if (problem) {
      problems.push({ level: "error", place: "proxy_unmatched", message: problem.replace(/^proxy_unmatched /, "") });
    } else proxyUnmatched = raw.proxy_unmatched as string;
  }
  let cors: CorsSetting | undefined;
  if (raw.cors !== undefined) {
    const problem = checkCors(raw.cors);
    if (problem) problems.push({ level: "error", place: "cors", message: problem });
    else cors = raw.cors as CorsSetting;
  }
  let wiremock: string[] | undefined;
  if (raw.wiremock !== undefined) {
    const list = typeof raw.wiremock === "string" ? [raw.wiremock] : raw.wiremock;
    if (!Array.isArray(list) || list.length === 0 || list.some((dir) => typeof dir !== "string" || dir === "")) {
      problems.push({
        level: "error",
        place: "wiremock",
        message: `must be a WireMock root folder (or a list of them), got ${describe(raw.wiremock)}`,
      });
    } else wiremock = (list as string[]).map((dir) => absolutePath(dir, options?.baseDir));
  }
  // A config that only names WireMock folders needs no routes.
  const items = raw.routes === undefined && raw.wiremock !== undefined ? [] : raw.routes;
  if (!Array.isArray(items)) {
    problems.push({
      level: "error",
      message: raw.routes === undefined
        ? "routes is required: a list of stubs, each with method and path"
        : `routes must be a list of stubs, got ${describe(raw.routes)}`,
    });
    return { problems };
  }
  const routes: Stub[] = [];
  /** Where each id was first given, when ids must be unique. */
  const holders = options?.uniqueIds ? new Map<string, [index: number, stub: Stub]>() : undefined;
  for (let i = 0; i < items.length; i++) {
    const { stub, errors } = validateStub(items[i], options);
    for (const message of errors) problems.push({ level: "error", place: `routes[${i}]`, message });
    if (!stub) continue;
    routes.push(stub);
    if (holders && stub.id !== undefined) {
      const holder = holders.get(stub.id);
      if (!holder) holders.set(stub.id, [i, stub]);
      else {
        problems.push({
          level: "error",
          place: `routes[${i}]`,
          message: `id '${stub.id}' is already used by routes[${holder[0]}] (${
            stubLabel(holder[1])
          }); give each stub its own id`,
        });
      }
    }
  }
  if (problems.some((p) => p.level === "error")) return { problems };
  problems.push(...findShadowedStubs(routes, (i) => `routes[${i}]`));
  for (const unreachable of unreachableStates(routes.map(scenarioStep))) {
    problems.push({ level: "warn", place: `routes[${unreachable.stubIndex}]`, message: unreachable.message });
  }
  routes.forEach((stub, i) => {
    const entry = stub.responses.findIndex(holdsJsonText);
    if (entry === -1) return;
    problems.push({
      level: "warn",
      place: stub.isSequence ? `routes[${i}].sequence[${entry}]` : `routes[${i}]`,
      message: "body is a string that holds JSON, so it goes out as one JSON string (double-encoded): " +
        "write the value itself (body: {id: 1}, not body: '{\"id\": 1}'), or set a text content-type to send it as written",
    });
  });
  routes.forEach((stub, i) => {
    // In a template stub {{…}} is rendered and {name} is plain text by design.
    if (stub.template) return;
    stub.responses.forEach((response, entry) => {
      const stray = strayPlaceholder(response, captureNames(stub));
      if (!stray) return;
      problems.push({
        level: "warn",
        place: stub.isSequence ? `routes[${i}].sequence[${entry}]` : `routes[${i}]`,
        message: stray,
      });
    });
  });
  if ("Deno" in globalThis) {
    routes.forEach((stub, i) => {
      if (stub.fault !== "disconnect") return;
      problems.push({
        level: "warn",
        place: `routes[${i}]`,
        message: "fault: disconnect on Deno sends the status line and headers before the connection closes " +
          "(Deno.serve cannot drop a connection before answering); the npm package on Node closes it before any byte",
      });
    });
  }
  const config: Config = { routes, port };
  if (cors !== undefined) config.cors = cors;
  if (proxyUnmatched !== undefined) config.proxyUnmatched = proxyUnmatched;
  if (wiremock !== undefined) config.wiremock = wiremock;
  return { config, problems };
}

/** The names a stub captures: path placeholders, then those of its query and request conditions. */
function captureNames(stub: Stub): string[] {
  const names: string[] = [];
  for (const segment of stub.segments) if (segment.param) names.push(segment.name);
  const { match } = stub;
  if (!match) return names;
  for (const list of [match.query, match.headers, match.cookies, match.form]) {
    for (const [, pattern] of list ?? []) names.push(...pattern.names);
  }
  names.push(...match.jsonNames ?? []);
  names.push(...match.pathRegex?.names ?? [], ...match.urlRegex?.names ?? []);
  return names;
}

const HANDLEBARS = /\{\{[^{}]*\}\}/;

/**
 * A warning for the first body string or header value of `response` holding `{name}` with
 * a name the stub does not capture (`{uuid}`, `{now}`) or a `{{…}}` template: both are sent
 * exactly as written, which is rarely what their author expects.
 */
function strayPlaceholder(response: ResponseSpec, names: readonly string[]): string | undefined {
  const check = (text: string, where: string): string | undefined => {
    if (!text.includes("{")) return undefined;
    const template = HANDLEBARS.exec(text);
    if (template) {
      return `${where} holds ${template[0]}, which is sent as written: {{…}} is template syntax, rendered only ` +
        "in a stub with template: true; {name} fills in a capture of the stub";
    }
    const unknown = [...text.matchAll(PLACEHOLDER_ANYWHERE)].map((m) => m[1]).filter((n) => !names.includes(n));
    if (!unknown.length) return undefined;
    const captures = names.length ? `its captures are ${names.map((n) => `{${n}}`).join(", ")}` : "it captures none";
    return `${where} holds {${unknown[0]}}, which names no capture of this stub (${captures}), so it is sent as ` +
      "written; values made per request (ids, times) are for response templates (template: true)";
  };
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    for (const [k, text] of values.entries()) {
      // String(): a binary body's headers are kept as written, where `x-count: 5` is a number.
      const problem = check(String(text), Array.isArray(value) ? `headers.${name}[${k}]` : `headers.${name}`);
      if (problem) return problem;
    }
  }
  if (!response.hasBody || response.bytes) return undefined;
  const walk = (value: unknown, where: string): string | undefined => {
    if (typeof value === "string") return check(value, where);
    if (typeof value !== "object" || value === null) return undefined;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const problem = walk(value[i], `${where}[${i}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const problem = walk((value as Record<string, unknown>)[key], `${where}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  };
  return walk(response.body, "body");
}

/**
 * Is this answer a string body holding a JSON object or array, sent as JSON (no content
 * type, or a JSON one)? It would go out as a JSON string: almost always a quoting slip.
 */
function holdsJsonText(spec: ResponseSpec): boolean {
  if (!spec.hasBody || typeof spec.body !== "string") return false;
  const text = spec.body.trim();
  if (!(text.startsWith("{") && text.endsWith("}")) && !(text.startsWith("[") && text.endsWith("]"))) return false;
  const type = Object.entries(spec.headers ?? {}).find(([name]) => name.toLowerCase() === "content-type")?.[1];
  if (type !== undefined && !/json/i.test(String(type))) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The fields of a request pattern (`requests/find`): a stub without its answer. */
export const PATTERN_FIELDS = ["method", "path", "query_params", "request", "scope"] as const;

/** A validated request pattern: what it matches, as a stub; `anyPath` when it names no path. */
export interface RequestPattern {
  stub: Stub;
  anyPath: boolean;
}

/**
 * Validates a request pattern (`method`, `path`, `query_params`, `request`, `scope`; each
 * optional: no method matches every method, no path every path), with the messages of
 * {@link validateStub}.
 */
export function validatePattern(raw: unknown): { pattern?: RequestPattern; errors: string[] } {
  if (!isMapping(raw)) {
    return { errors: [`must be a mapping of ${PATTERN_FIELDS.join(", ")}, got ${describe(raw)}`] };
  }
  const errors: string[] = [];
  for (const key of Object.keys(raw)) {
    if (!(PATTERN_FIELDS as readonly string[]).includes(key)) {
      errors.push(`${unknownField("field", key, PATTERN_FIELDS)}; a pattern has no answer`);
    }
  }
  const anyPath = raw.path === undefined;
  const { stub, errors: stubErrors } = validateStub({
    ...raw,
    method: raw.method ?? "ANY",
    path: raw.path ?? "/",
  });
  errors.push(...stubErrors);
  return errors.length ? { errors } : { pattern: { stub: stub!, anyPath }, errors };
}

/** A stub's place in a scenario, for the reachability check. */
function scenarioStep(stub: Stub): { scenario: string; whenState?: string; setState?: string } | undefined {
  if (stub.scenario === undefined) return undefined;
  return { scenario: stub.scenario, whenState: stub.whenState, setState: stub.setState };
}
