/**
 * The checks of one response: a plain response or a sequence entry (status, headers,
 * body, `body_file`, `body_base64`, delay), and the status and delay rules the builders share.
 * @module
 */

import type { Delay, HeaderMap, ResponseSpec } from "./model.ts";
import { templateStatus } from "./behaviour.ts";
import { contentTypeOf } from "./media.ts";
import { unknownField } from "../util/hint.ts";
import { checkHeaders, checkJsonValue, describe } from "./checks.ts";
import { type BodyFileOptions, readBodyFile } from "./body_file.ts";
import { isObject } from "../util/json_shape.ts";
import { BASE64, decodeBase64 } from "../util/base64.ts";
import { checkStream } from "./stream_field.ts";

/** The longest delay in milliseconds. */
export const MAX_DELAY_MS = 2_147_483_647; // the largest setTimeout delay
/** Statuses whose answers carry no body (RFC 9110). */
export const NULL_BODY_STATUSES = new Set([204, 205, 304]);

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

/** Checks a delay: milliseconds, `{min, max}` milliseconds, or a lognormal `{median, sigma, max?, plus?}`. */
export function checkDelay(value: unknown, field = "delay"): string | undefined {
  const isMs = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= MAX_DELAY_MS;
  if (typeof value === "number") {
    return isMs(value) ? undefined : `${field} must be milliseconds from 0 to ${MAX_DELAY_MS}, got ${value}`;
  }
  if (!isObject(value)) {
    return `${field} must be milliseconds (250), a range ({min: 100, max: 300}) or a lognormal ` +
      `({median: 100, sigma: 0.5}), got ${describe(value)}`;
  }
  if (Object.hasOwn(value, "median") || Object.hasOwn(value, "sigma")) return checkLognormal(value, field);
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

/** The largest lognormal `sigma`: e^(4·10) already spans 17 orders of magnitude. */
const MAX_SIGMA = 10;

/** Checks a lognormal delay: `median` milliseconds, `sigma` (the spread of its logarithm), `max` and `plus` milliseconds. */
function checkLognormal(value: Record<string, unknown>, field: string): string | undefined {
  const keys = ["median", "sigma", "max", "plus"];
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) return `${field}: ${unknownField("field", key, keys)}`;
  }
  const { median, sigma, max, plus } = value;
  const isMs = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= MAX_DELAY_MS;
  if (!isMs(median)) return `${field}.median must be milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(median)}`;
  if (typeof sigma !== "number" || !Number.isFinite(sigma) || sigma < 0 || sigma > MAX_SIGMA) {
    return `${field}.sigma must be a number from 0 to ${MAX_SIGMA}, got ${describe(sigma)}`;
  }
  if (max !== undefined) {
    if (!isMs(max)) return `${field}.max must be milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(max)}`;
    if ((max as number) < (median as number)) {
      return `${field}.max (${max}) must not be less than the median (${median}): it caps the draws above it`;
    }
  }
  if (plus !== undefined && !isMs(plus)) {
    return `${field}.plus must be milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(plus)}`;
  }
}

/** The reason phrase a status line may carry (RFC 9112: tab, space, visible ASCII and obs-text). */
// deno-lint-ignore no-control-regex -- control characters are exactly what must be caught
const REASON_FORBIDDEN = /[\0-\x08\x0a-\x1f\x7f\u0100-\uffff]/;

/** Checks `status_message`: one line of Latin-1 text. */
function checkStatusMessage(value: unknown, field: string): string | undefined {
  if (typeof value !== "string") return `${field} must be text (the reason phrase), got ${describe(value)}`;
  if (REASON_FORBIDDEN.test(value)) {
    return `${field} must be one line without control characters, each character up to U+00FF, got ${describe(value)}`;
  }
}

/**
 * Validates one response (a plain response or a sequence entry). A plain response's
 * `delay` is the stub's own and is checked by the caller (`withDelay: false`).
 */
export function checkResponse(
  raw: Record<string, unknown>,
  prefix: string,
  errors: string[],
  withDelay = true,
  options?: BodyFileOptions,
): ResponseSpec {
  // Only an absent status defaults; `status:` left empty in YAML (null) is an error.
  const status = raw.status === undefined ? 200 : raw.status;
  const statusError = checkStatus(status, `${prefix}status`);
  if (statusError && QUOTED_STATUS.has(raw)) {
    errors.push(`${statusError}; write it without quotes (status: ${String(status).trim()}), or render it with {{…}}`);
  } else if (statusError) errors.push(statusError);
  // `content-type: null` sends no content type at all (as WireMock does for a mapping that sets none).
  const noContentType = isObject(raw.headers) &&
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
  if (raw.status_message !== undefined) {
    const messageError = checkStatusMessage(raw.status_message, `${prefix}status_message`);
    if (messageError) errors.push(messageError);
    else spec.statusMessage = raw.status_message as string;
  }
  const bodies = ["body", "body_file", "body_base64"].filter((key) =>
    Object.hasOwn(raw, key) && raw[key] !== undefined
  );
  if (raw.stream !== undefined) return streamResponse(raw, spec, prefix, bodies, errors);
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

/**
 * A `stream:` answer (server-sent events): no body beside it, a status that may carry one,
 * and `content-type: text/event-stream` and `cache-control: no-cache` unless the headers set them.
 */
function streamResponse(
  raw: Record<string, unknown>,
  spec: ResponseSpec,
  prefix: string,
  bodies: string[],
  errors: string[],
): ResponseSpec {
  if (bodies.length) {
    errors.push(`${prefix}stream and ${bodies.join(" and ")} are given; the events are the answer's body: keep one`);
  }
  if (spec.noContentType) {
    errors.push(`${prefix}headers: a stream goes out as text/event-stream; remove content-type: null`);
  }
  if (NULL_BODY_STATUSES.has(spec.status)) {
    errors.push(`${prefix}status ${spec.status} cannot carry a body, so no stream either; use another status`);
  }
  const stream = checkStream(raw.stream, `${prefix}stream`, errors);
  const headers: HeaderMap = { ...spec.headers };
  const names = Object.keys(headers).map((name) => name.toLowerCase());
  if (!names.includes("content-type")) headers["content-type"] = "text/event-stream";
  if (!names.includes("cache-control")) headers["cache-control"] = "no-cache";
  const streamed: ResponseSpec = { status: spec.status, headers, hasBody: false, delay: spec.delay, stream };
  if (spec.statusMessage !== undefined) streamed.statusMessage = spec.statusMessage;
  return streamed;
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
export { BASE64 };

/**
 * A `body_file` (read now, relative to `options.baseDir`) or `body_base64` body: its bytes,
 * and for a file its paths. A file's content type comes from its extension unless the
 * response's headers set one.
 */
function binaryBody(
  raw: Record<string, unknown>,
  prefix: string,
  errors: string[],
  options?: BodyFileOptions,
): Pick<ResponseSpec, "bytes" | "file" | "filePath" | "headers"> | undefined {
  const headers = raw.headers;
  const typed = isObject(headers) && Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
  /** The response's headers with `type` as the content type, unless they set one. */
  const typedAs = (type: string) =>
    typed ? undefined : { ...(raw.headers as HeaderMap | undefined), "content-type": type } as HeaderMap;
  if (raw.body_base64 !== undefined) {
    const text = raw.body_base64;
    if (typeof text !== "string" || !BASE64.test(text)) {
      errors.push(`${prefix}body_base64 must be base64 text (A-Z a-z 0-9 + /, = padding), got ${describe(text)}`);
      return undefined;
    }
    const bytes = decodeBase64(text);
    if (bytes) return { bytes, headers: typedAs("application/octet-stream") };
    errors.push(`${prefix}body_base64 is not valid base64 (its length or padding is wrong)`);
    return undefined;
  }
  if (raw.body_file === undefined) return undefined;
  const file = raw.body_file;
  if (typeof file !== "string" || file === "") {
    errors.push(`${prefix}body_file must be the path of a file, got ${describe(file)}`);
    return undefined;
  }
  const read = readBodyFile(file, prefix, errors, options);
  if (!read) return undefined;
  return { bytes: read.bytes, file, filePath: read.filePath, headers: typedAs(contentTypeOf(file)) };
}

/**
 * Checks the plain-response fields of a stub whose answer comes from elsewhere (a
 * sequence, a proxy, a response function): the conflict is reported, and so is a wrong
 * value in them (`status: "2OO"`), so one run of `validate` shows every fix to make.
 */
export function checkUnusedResponse(raw: Record<string, unknown>, errors: string[], options?: BodyFileOptions): void {
  if (plainResponseFields(raw).length) checkResponse(raw, "", errors, false, options);
}

/** The plain-response fields a stub sets, which a sequence or a response function rules out. */
export function plainResponseFields(raw: Record<string, unknown>): string[] {
  return ["status", "status_message", "headers", "body", "body_file", "body_base64", "stream"].filter((key) =>
    Object.hasOwn(raw, key) && raw[key] !== undefined
  );
}

/** Responses of template stubs whose status is a number in quotes (`status: "201"`), for a message that says so. */
const QUOTED_STATUS = new WeakSet<object>();

/** A copy of `raw` whose template statuses (`"{{…}}"`, its own and its sequence entries') read 200; each kept by entry. */
export function withNumericStatus(raw: Record<string, unknown>, kept: (string | undefined)[]): Record<string, unknown> {
  const numeric = (entry: Record<string, unknown>, i: number) => {
    if (typeof entry.status === "string" && entry.status.trim() !== "" && Number.isInteger(Number(entry.status))) {
      QUOTED_STATUS.add(entry);
    }
    const status = templateStatus(entry.status);
    kept[i] = status;
    return status === undefined ? entry : { ...entry, status: 200 };
  };
  if (Array.isArray(raw.sequence)) {
    return { ...raw, sequence: raw.sequence.map((e, i) => isObject(e) ? numeric(e, i) : e) };
  }
  return numeric(raw, 0);
}
