/**
 * WireMock 3's JSON shapes, as its admin API (`/__admin/`) writes them, so that WireMock's
 * own clients read stubtool's answers unchanged: a logged request (`LoggedRequest`), a serve
 * event (one entry of `GET /__admin/requests`), a scenario, the lists around them, WireMock's
 * error document, and a stubtool stub written back as a mapping. Pure: plain data in, plain
 * data out. The shapes were recorded from WireMock 3.13.2 (tests/fixtures/wiremock_admin.json).
 * @module
 */

import { isObject } from "../../util/json_shape.ts";

/** A request as the server kept it, the input of {@link loggedRequest}. */
export interface KeptRequest {
  method: string;
  /** Path with the query string, as requested. */
  target: string;
  /** When it arrived, `Date.now()`. */
  time: number;
  /** The request headers (names as the runtime gives them). */
  headers: Record<string, string>;
  /** The body, or its first part when `bodyTruncated`. */
  body?: Uint8Array;
  bodyTruncated?: boolean;
  /** `http` or `https`. */
  scheme?: string;
  /** The client's address. */
  clientIp?: string;
}

/** WireMock's `LoggedRequest`. */
export interface LoggedRequest {
  url: string;
  absoluteUrl: string;
  method: string;
  clientIp?: string;
  headers: Record<string, string>;
  cookies: Record<string, string>;
  browserProxyRequest: false;
  loggedDate: number;
  bodyAsBase64: string;
  body: string;
  protocol: string;
  scheme: string;
  host: string;
  port: number;
  loggedDateString: string;
  queryParams: Record<string, { key: string; values: string[] }>;
  formParams: Record<string, { key: string; values: string[] }>;
}

/** One entry of `GET /__admin/requests`: a request and how it was answered. */
export interface ServeEvent {
  id: string;
  request: LoggedRequest;
  responseDefinition: { status: number; fromConfiguredStub?: false };
  response: { status: number };
  wasMatched: boolean;
  timing: { addedDelay: number; processTime: number; responseSendTime: number; serveTime: number; totalTime: number };
  subEvents: unknown[];
  stubMapping?: Record<string, unknown>;
}

/** A scenario as `GET /__admin/scenarios` lists it. */
export interface WireMockScenario {
  id: string;
  name: string;
  state: string;
  possibleStates: string[];
  mappings: Record<string, unknown>[];
}

/** One error of WireMock's error document (`{"errors": [...]}`). */
export interface WireMockError {
  code: number;
  title: string;
  detail?: string;
  source?: { pointer?: string };
}

const utf8 = new TextDecoder("utf-8");

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** `name=value` pairs of a query or form body, grouped by name as WireMock lists them. */
function params(text: string): Record<string, { key: string; values: string[] }> {
  const out: Record<string, { key: string; values: string[] }> = {};
  if (text === "") return out;
  for (const [key, value] of new URLSearchParams(text)) (out[key] ??= { key, values: [] }).values.push(value);
  return out;
}

/** The header's value, whatever the case of its name. */
function header(headers: Record<string, string>, name: string): string | undefined {
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

/** The request's cookies, `name → value` (WireMock lists the first value). */
function cookies(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const line = header(headers, "cookie");
  if (line === undefined) return out;
  for (const part of line.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out[part.slice(0, eq).trim()] ??= part.slice(eq + 1).trim();
  }
  return out;
}

/**
 * A kept request as WireMock's `LoggedRequest`. The host and port come from the `Host`
 * header (`localhost` and the scheme's port without one); `formParams` is filled for an
 * `application/x-www-form-urlencoded` body, as WireMock does.
 *
 * @example
 * ```ts
 * import { loggedRequest } from "./shapes.ts";
 * const logged = loggedRequest({ method: "GET", target: "/a?x=1", time: 0, headers: { host: "localhost:8080" } });
 * console.log(logged.absoluteUrl, logged.queryParams.x.values); // http://localhost:8080/a?x=1 [ "1" ]
 * ```
 */
export function loggedRequest(kept: KeptRequest): LoggedRequest {
  const scheme = kept.scheme ?? "http";
  const hostHeader = header(kept.headers, "host") ?? "localhost";
  let host = hostHeader;
  let port = scheme === "https" ? 443 : 80;
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(hostHeader);
  if (m) {
    host = m[1];
    if (m[2] !== undefined) port = Number(m[2]);
  }
  const q = kept.target.indexOf("?");
  const body = kept.body ?? new Uint8Array();
  const text = utf8.decode(body);
  const form = /^\s*application\/x-www-form-urlencoded/i.test(header(kept.headers, "content-type") ?? "");
  return {
    url: kept.target,
    absoluteUrl: `${scheme}://${hostHeader}${kept.target}`,
    method: kept.method,
    ...(kept.clientIp === undefined ? {} : { clientIp: kept.clientIp }),
    headers: kept.headers,
    cookies: cookies(kept.headers),
    browserProxyRequest: false,
    loggedDate: kept.time,
    bodyAsBase64: base64(body),
    body: text,
    protocol: "HTTP/1.1",
    scheme,
    host,
    port,
    loggedDateString: new Date(kept.time).toISOString(),
    queryParams: params(q === -1 ? "" : kept.target.slice(q + 1)),
    formParams: form ? params(text) : {},
  };
}

/**
 * A serve event: the logged request, the status it got, whether a stub matched it (and
 * that stub as a mapping, when it still exists). `ms` is the time to the answer.
 */
export function serveEvent(
  id: string,
  request: LoggedRequest,
  status: number,
  ms: number,
  stubMapping: Record<string, unknown> | undefined,
): ServeEvent {
  const time = Math.round(ms);
  const matched = stubMapping !== undefined;
  const event: ServeEvent = {
    id,
    request,
    responseDefinition: matched ? { status } : { status, fromConfiguredStub: false },
    response: { status },
    wasMatched: matched,
    timing: { addedDelay: 0, processTime: time, responseSendTime: 0, serveTime: time, totalTime: time },
    subEvents: [],
  };
  if (stubMapping) event.stubMapping = stubMapping;
  return event;
}

/** `{"mappings": [...], "meta": {"total": N}}`. */
export function mappingList(mappings: readonly Record<string, unknown>[]): Record<string, unknown> {
  return { mappings, meta: { total: mappings.length } };
}

/** WireMock's error document: `{"errors": [{code, title, detail?, source?}]}`. */
export function wireMockErrors(...errors: WireMockError[]): { errors: WireMockError[] } {
  return { errors };
}

/**
 * A mapping with its id written as WireMock writes it back: `id` first and `uuid` after
 * the rest (the same value), so a mapping a client sent reads back as it was sent.
 */
export function withId(mapping: Record<string, unknown>, id: string): Record<string, unknown> {
  const { id: _id, uuid: _uuid, ...rest } = mapping;
  return { id, ...rest, uuid: id };
}

/** A stubtool value pattern (`"text"`, `"{name}"`, `{regex}`, `{absent: true}`) as a WireMock matcher, when one says the same. */
function matcher(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === "string") {
    if (/^\{[A-Za-z0-9_]+\}$/.test(value)) return { matches: "[\\s\\S]*" };
    return /\{[A-Za-z0-9_]+\}/.test(value) ? undefined : { equalTo: value };
  }
  if (!isObject(value)) return undefined;
  if (typeof value.regex === "string") return { matches: value.regex };
  if (value.absent === true) return { absent: true };
  return undefined;
}

function matchers(fields: unknown): Record<string, unknown> | undefined {
  if (!isObject(fields)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const m = matcher(value);
    if (m) out[name] = m;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * A stub in stubtool's config form (`GET /__stubtool__/stubs`'s entries) as a WireMock
 * mapping, best effort: method, path (`urlPath`, or `urlPathTemplate` when it has
 * `{name}` parts), query and header conditions that WireMock's matchers say the same way,
 * the first response (status, headers, `body`/`jsonBody`/`base64Body`/`bodyFileName`),
 * delay and scenario fields. Conditions with no WireMock matcher are left out; `metadata`
 * says where the stub came from.
 */
export function stubToMapping(stub: Record<string, unknown>): Record<string, unknown> {
  const id = String(stub.id);
  const path = String(stub.path ?? "/");
  const request: Record<string, unknown> = {
    [/\{[^}]*\}/.test(path) ? "urlPathTemplate" : "urlPath"]: path,
    method: stub.method ?? "ANY",
  };
  const query = matchers(stub.query_params);
  if (query) request.queryParameters = query;
  const conditions = isObject(stub.request) ? stub.request : {};
  const headers = matchers(conditions.headers);
  if (headers) request.headers = headers;
  const first = Array.isArray(stub.sequence) && isObject(stub.sequence[0]) ? stub.sequence[0] : stub;
  const response: Record<string, unknown> = { status: typeof first.status === "number" ? first.status : 200 };
  if (isObject(first.headers)) response.headers = first.headers;
  if (typeof first.body === "string") response.body = first.body;
  else if (first.body !== undefined && first.body !== null) response.jsonBody = first.body;
  if (typeof first.body_base64 === "string") response.base64Body = first.body_base64;
  if (typeof first.body_file === "string") response.bodyFileName = first.body_file;
  if (typeof first.delay === "number") response.fixedDelayMilliseconds = first.delay;
  if (stub.proxy !== undefined) response.proxyBaseUrl = stub.proxy;
  if (stub.template === true) response.transformers = ["response-template"];
  const mapping: Record<string, unknown> = { id, request, response, uuid: id };
  if (stub.scenario !== undefined) mapping.scenarioName = stub.scenario;
  if (stub.when_state !== undefined) mapping.requiredScenarioState = stub.when_state;
  if (stub.set_state !== undefined) mapping.newScenarioState = stub.set_state;
  mapping.metadata = { stubtool: { source: stub.source } };
  return mapping;
}

/** A scenario as `GET /__admin/scenarios` lists it: `id` is its name. */
export function scenarioShape(
  name: string,
  state: string,
  possibleStates: readonly string[],
  mappings: readonly Record<string, unknown>[],
): WireMockScenario {
  return { id: name, name, state, possibleStates: [...possibleStates], mappings: [...mappings] };
}
