/**
 * The one stub validator. Config files, inline `--stub`s and the fluent builders all
 * end here, so a rule and its message live in exactly one place. Every problem is
 * returned, not just the first, phrased as `<field> must …, got …`.
 * @module
 */

import { checkProxyAdjust, type ProxyAdjust } from "./proxy_field.ts";
import {
  type CompiledStub,
  type Delay,
  type Dribble,
  type Fault,
  FAULTS,
  type ResponseFunc,
  type ResponseSpec,
  type SequenceMode,
  type StubMethod,
  type WebSocketSpec,
} from "./model.ts";
import { parsePathTemplate, type Segment } from "./path.ts";
import type { ValuePatternSpec } from "./patterns.ts";
import { checkId, checkPriority, checkScope, compileRequest } from "./request.ts";
import { checkBehaviour, checkResponseTemplates, checkWebSocketTemplates } from "./behaviour.ts";
import { checkWebSocket } from "./websocket_field.ts";
import { unknownField } from "../util/hint.ts";
import { checkMethod, describe } from "./checks.ts";
import type { BodyFileOptions } from "./body_file.ts";
import {
  checkDelay,
  checkResponse,
  checkUnusedResponse,
  MAX_DELAY_MS,
  plainResponseFields,
  withNumericStatus,
} from "./validate_response.ts";
import { isObject } from "../util/json_shape.ts";

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
  "proxy_request",
  "fault",
  "throttle",
  "dribble",
  "status_message",
  "scenario",
  "when_state",
  "set_state",
  "template",
  "template_parameters",
  "callbacks",
  "name",
  "head",
  "stream",
  "websocket",
] as const;
const STUB_FIELDS_WITH_FUNC = [...STUB_FIELDS, "response_func"] as const;
/** The fields of a `sequence` entry. */
export const ENTRY_FIELDS = [
  "status",
  "status_message",
  "headers",
  "body",
  "body_file",
  "body_base64",
  "delay",
  "stream",
] as const;
/** What `sequence_mode` may be. */
export const SEQUENCE_MODES: readonly SequenceMode[] = ["repeat-last", "cycle"];

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
export interface ValidateStubOptions extends BodyFileOptions {
  /** Programmatic stubs may carry a `response_func`; config files cannot. */
  allowResponseFunc?: boolean;
}

/**
 * Validates one raw stub (config-file field names). Returns the stub, or every problem
 * found, each a message without the `routes[i]: ` place.
 */
export function validateStub(
  raw: unknown,
  options?: ValidateStubOptions,
): { stub?: CompiledStub; errors: string[] } {
  // A template stub may write its status as a template: the response checks see 200 in its place.
  const statusTemplates: (string | undefined)[] = [];
  if (isObject(raw) && raw.template === true) raw = withNumericStatus(raw, statusTemplates);
  if (!isObject(raw)) {
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
      if (behaviour.parameters) response.templateParameters = behaviour.parameters;
    });
    checkResponseTemplates(answer.responses, answer.isSequence, errors);
    if (answer.websocket) checkWebSocketTemplates(answer.websocket, errors);
  }
  if (raw.websocket !== undefined) checkWebSocketStub(raw, request.method, errors);
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
  const extra = isObject(given) ? given as Record<string, ValuePatternSpec> : undefined;
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
  /** What a proxy stub changes on the way (`proxy_request`, its `headers`). */
  proxyAdjust?: ProxyAdjust;
  responseFunc?: unknown;
  websocket?: WebSocketSpec;
}

/** What a `websocket:` stub may not have: another method than GET, a fault, a throttle, callbacks. */
function checkWebSocketStub(raw: Record<string, unknown>, method: StubMethod | undefined, errors: string[]): void {
  if (method !== undefined && method !== "GET") {
    errors.push(`websocket applies to GET stubs (a WebSocket opens with a GET request), got method ${method}`);
  }
  for (const key of ["fault", "throttle", "callbacks"]) {
    if (raw[key] !== undefined) errors.push(`${key} applies to an HTTP answer, not to a websocket session; remove it`);
  }
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
  let proxyAdjust: ProxyAdjust | undefined;
  if (raw.websocket !== undefined) {
    const websocket = checkWebSocket(raw.websocket, "websocket", errors);
    const others = [
      ...plainResponseFields(raw),
      ...["sequence", "sequence_mode", "proxy", "delay"].filter((key) => raw[key] !== undefined),
      ...(responseFunc !== undefined ? ["response_func"] : []),
    ];
    if (others.length) {
      errors.push(
        `a websocket stub answers with its session (the upgrade, then messages); remove ${
          others.join(", ")
        } (pace messages with delay_ms)`,
      );
    }
    return { responses: [], isSequence: false, sequenceMode: "repeat-last", websocket };
  }
  if (raw.proxy_request !== undefined && raw.proxy === undefined) {
    errors.push("proxy_request changes what a proxy stub passes on; add proxy: URL or remove it");
  }
  if (raw.proxy !== undefined) {
    const problem = checkUpstream(raw.proxy, "proxy");
    if (problem) errors.push(problem);
    else proxy = raw.proxy as string;
    // headers are added to the upstream's answer (as WireMock does); the rest is the upstream's.
    const answers = [
      ...plainResponseFields(raw).filter((k) => k !== "headers"),
      ...(raw.sequence !== undefined ? ["sequence"] : []),
    ];
    if (answers.length) errors.push(`a proxy stub passes the upstream's answer on; remove ${answers.join(", ")}`);
    checkUnusedResponse(raw, errors, options);
    if (responseFunc !== undefined) errors.push("use either a response function or proxy, not both");
    proxyAdjust = checkProxyAdjust(raw, errors);
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
  return { responses, isSequence, sequenceMode, delay, proxy, responseFunc, ...(proxyAdjust ? { proxyAdjust } : {}) };
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
    if (!isObject(entry)) {
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

/** How a stub's answers go out, as {@link checkDeliveryPart} checked it. */
type DeliveryPart = { fault?: Fault; throttle?: number; dribble?: Dribble };

/** Checks `dribble`: `{chunks, ms}`, whole numbers. */
function checkDribble(value: unknown, errors: string[]): Dribble | undefined {
  const shape = "dribble must be {chunks: N, ms: M} (the body in N pieces spread over M milliseconds)";
  if (!isObject(value)) {
    errors.push(`${shape}, got ${describe(value)}`);
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key !== "chunks" && key !== "ms") {
      errors.push(`dribble: ${unknownField("field", key, ["chunks", "ms"])}`);
      return undefined;
    }
  }
  const { chunks, ms } = value;
  if (typeof chunks !== "number" || !Number.isInteger(chunks) || chunks < 1 || chunks > MAX_DRIBBLE_CHUNKS) {
    errors.push(`dribble.chunks must be a whole number from 1 to ${MAX_DRIBBLE_CHUNKS}, got ${describe(chunks)}`);
    return undefined;
  }
  if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 0 || ms > MAX_DELAY_MS) {
    errors.push(`dribble.ms must be whole milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(ms)}`);
    return undefined;
  }
  return { chunks, ms };
}

/** The most pieces a dribble may cut a body into. */
const MAX_DRIBBLE_CHUNKS = 10_000;

/** Checks how the answer goes out: `fault`, `throttle` and `dribble`, which apply to a stub's own answer only. */
function checkDeliveryPart(
  raw: Record<string, unknown>,
  errors: string[],
  answer: AnswerPart,
): DeliveryPart {
  const fault = raw.fault;
  if (fault !== undefined && !(FAULTS as readonly unknown[]).includes(fault)) {
    errors.push(`fault must be one of ${FAULTS.map((f) => `'${f}'`).join(", ")}, got ${describe(fault)}`);
  }
  const throttle = raw.throttle;
  if (throttle !== undefined && (typeof throttle !== "number" || !Number.isInteger(throttle) || throttle < 1)) {
    errors.push(`throttle must be a whole number of bytes per second (1 or more), got ${describe(throttle)}`);
  }
  const dribble = raw.dribble === undefined ? undefined : checkDribble(raw.dribble, errors);
  const set = (["fault", "throttle", "dribble"] as const).filter((key) => raw[key] !== undefined);
  if (set.length > 1) {
    errors.push(`${set.join(" and ")} are given; an answer goes out one way: keep one of them`);
  }
  const field = set[0];
  if (field !== undefined && (answer.proxy !== undefined || answer.responseFunc !== undefined)) {
    errors.push(
      `${field} applies to a stub's own answer, not to a ${answer.proxy !== undefined ? "proxy" : "response function"}`,
    );
  }
  if (field !== undefined && answer.responses.some((response) => response.stream)) {
    errors.push(`${field} applies to a body answer, not to a stream: pace the events with delay_ms`);
  }
  return { fault: fault as Fault | undefined, throttle: throttle as number | undefined, dribble };
}

/** The stub from its checked parts (only called when there were no errors). */
function buildStub(
  raw: Record<string, unknown>,
  request: RequestPart,
  answer: AnswerPart,
  delivery: DeliveryPart,
  behaviour: ReturnType<typeof checkBehaviour>,
): CompiledStub {
  const { responseFunc, proxy, delay } = answer;
  const stub: CompiledStub = {
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
    if (answer.proxyAdjust) stub.proxyAdjust = answer.proxyAdjust;
  }
  if (delivery.fault !== undefined) stub.fault = delivery.fault;
  if (delivery.throttle !== undefined) stub.throttle = delivery.throttle;
  if (delivery.dribble !== undefined) stub.dribble = delivery.dribble;
  if (behaviour.step) {
    stub.scenario = behaviour.step.scenario;
    if (behaviour.step.whenState !== undefined) stub.whenState = behaviour.step.whenState;
    if (behaviour.step.setState !== undefined) stub.setState = behaviour.step.setState;
  }
  if (behaviour.template) stub.template = true;
  if (behaviour.parameters) stub.templateParameters = behaviour.parameters;
  if (behaviour.callbacks) stub.callbacks = behaviour.callbacks;
  if (answer.websocket) stub.websocket = answer.websocket;
  return stub;
}

/** The fields of a request pattern (`requests/find`): a stub without its answer. */
export const PATTERN_FIELDS = ["method", "path", "query_params", "request", "scope"] as const;

/** A validated request pattern: what it matches, as a stub; `anyPath` when it names no path. */
export interface RequestPattern {
  stub: CompiledStub;
  anyPath: boolean;
}

/**
 * Validates a request pattern (`method`, `path`, `query_params`, `request`, `scope`; each
 * optional: no method matches every method, no path every path), with the messages of
 * {@link validateStub}.
 */
export function validatePattern(raw: unknown): { pattern?: RequestPattern; errors: string[] } {
  if (!isObject(raw)) {
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
