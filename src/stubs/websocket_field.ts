/**
 * A stub's `websocket:` field: `{on_connect: [{send, delay_ms?}], on_message: [{match,
 * send}], close?: {code, after_ms}}`, checked, compiled and bounded here, so a session is
 * refused at load rather than broken at request time.
 * @module
 */

import type { WebSocketMatch, WebSocketRule, WebSocketSend, WebSocketSpec } from "./model.ts";
import { checkJsonValue, describe } from "./checks.ts";
import { unknownField } from "../util/hint.ts";
import { compileJsonPattern, compileValuePattern } from "./patterns.ts";
import { isObject } from "../util/json_shape.ts";

/** The fields of `websocket:`. */
export const WEBSOCKET_FIELDS = ["on_connect", "on_message", "close"] as const;
/** The fields of an `on_connect` item. */
export const ON_CONNECT_FIELDS = ["send", "delay_ms"] as const;
/** The fields of an `on_message` rule. */
export const ON_MESSAGE_FIELDS = ["match", "send"] as const;
/** The fields of `close`. */
export const CLOSE_FIELDS = ["code", "after_ms"] as const;
/** The most `on_connect` items plus `on_message` rules one stub may hold. */
export const MAX_WEBSOCKET_RULES = 1_000;
/** The most messages one `send` may list. */
export const MAX_WEBSOCKET_SENDS = 1_000;
/** The largest message a stub may send, in bytes (a template's rendered message too). */
export const MAX_WEBSOCKET_MESSAGE_BYTES = 1024 * 1024;
const MAX_DELAY_MS = 2_147_483_647; // the largest setTimeout delay
const UTF8 = new TextEncoder();

/**
 * Whether a close code may be sent by a server (RFC 6455 §7.4: 1000–1003, 1007–1014, or
 * 3000–4999 for applications).
 *
 * @example
 * ```ts
 * import { sendableCloseCode } from "./websocket_field.ts";
 * console.log(sendableCloseCode(1000), sendableCloseCode(4001), sendableCloseCode(1005)); // true true false
 * ```
 */
export function sendableCloseCode(code: unknown): code is number {
  if (typeof code !== "number" || !Number.isInteger(code)) return false;
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

/** The text a send item goes out as: text as written, `{json}` as compact JSON. */
export function sendText(item: WebSocketSend): string {
  return "text" in item ? item.text : JSON.stringify(item.json);
}

/**
 * Checks a `websocket:` value; `field` is where it sits. Every problem goes to `errors`; the
 * spec comes back when there is none.
 *
 * @example
 * ```ts
 * import { checkWebSocket } from "./websocket_field.ts";
 * const errors: string[] = [];
 * const spec = checkWebSocket({ on_message: [{ match: "ping", send: ["pong"] }] }, "websocket", errors);
 * console.log(spec?.onMessage[0].send, errors); // [ { text: "pong" } ] []
 * checkWebSocket({ on_mesage: [] }, "websocket", errors);
 * console.log(errors[0]); // "websocket: unknown field 'on_mesage' (did you mean 'on_message'?)"
 * ```
 */
export function checkWebSocket(raw: unknown, field: string, errors: string[]): WebSocketSpec | undefined {
  if (!isObject(raw)) {
    errors.push(
      `${field} must be a mapping like {on_connect: [{send: hello}], on_message: [{match: ping, send: [pong]}]}, got ${
        describe(raw)
      }`,
    );
    return undefined;
  }
  const before = errors.length;
  for (const key of Object.keys(raw)) {
    if (!(WEBSOCKET_FIELDS as readonly string[]).includes(key)) {
      errors.push(`${field}: ${unknownField("field", key, WEBSOCKET_FIELDS)}`);
    }
  }
  const onConnect = listOf(raw.on_connect, `${field}.on_connect`, errors).map((item, i) =>
    connectItem(item, `${field}.on_connect[${i}]`, errors)
  );
  const onMessage = listOf(raw.on_message, `${field}.on_message`, errors).map((item, i) =>
    rule(item, `${field}.on_message[${i}]`, errors)
  );
  if (onConnect.length + onMessage.length > MAX_WEBSOCKET_RULES) {
    errors.push(
      `${field} holds ${
        onConnect.length + onMessage.length
      } on_connect items and on_message rules; a stub holds at most ${MAX_WEBSOCKET_RULES}`,
    );
  }
  const spec: WebSocketSpec = {
    onConnect: onConnect.filter((item) => item !== undefined),
    onMessage: onMessage.filter((item) => item !== undefined),
  };
  if (raw.close !== undefined) {
    const close = closeOf(raw.close, `${field}.close`, errors);
    if (close) spec.close = close;
  }
  if (raw.on_connect === undefined && raw.on_message === undefined && raw.close === undefined) {
    errors.push(`${field} needs on_connect, on_message or close: a session that does nothing`);
  }
  return errors.length === before ? spec : undefined;
}

/** An optional list (absent: empty). */
function listOf(value: unknown, at: string, errors: string[]): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    errors.push(`${at} must be a list, got ${describe(value)}`);
    return [];
  }
  return value;
}

/** Unknown keys of a mapping, each one problem. */
function unknownKeys(item: Record<string, unknown>, known: readonly string[], at: string, errors: string[]): void {
  for (const key of Object.keys(item)) {
    if (!known.includes(key)) errors.push(`${at}: ${unknownField("field", key, known)}`);
  }
}

/** One `on_connect` item. */
function connectItem(item: unknown, at: string, errors: string[]): WebSocketSpec["onConnect"][number] | undefined {
  if (!isObject(item)) {
    errors.push(`${at} must be a mapping like {send: hello, delay_ms: 100}, got ${describe(item)}`);
    return undefined;
  }
  const before = errors.length;
  unknownKeys(item, ON_CONNECT_FIELDS, at, errors);
  const send = sends(item.send, `${at}.send`, errors);
  const out: WebSocketSpec["onConnect"][number] = { send: send ?? [] };
  if (item.delay_ms !== undefined) {
    const delay = item.delay_ms;
    if (typeof delay !== "number" || !Number.isFinite(delay) || delay < 0 || delay > MAX_DELAY_MS) {
      errors.push(`${at}.delay_ms must be milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(delay)}`);
    } else out.delayMs = delay;
  }
  return errors.length === before ? out : undefined;
}

/** One `on_message` rule. */
function rule(item: unknown, at: string, errors: string[]): WebSocketRule | undefined {
  if (!isObject(item)) {
    errors.push(`${at} must be a mapping like {match: ping, send: [pong]}, got ${describe(item)}`);
    return undefined;
  }
  const before = errors.length;
  unknownKeys(item, ON_MESSAGE_FIELDS, at, errors);
  const match = item.match === undefined
    ? (errors.push(`${at}.match is required: a text pattern ('ping', {regex: …}) or {json: {…}}`), undefined)
    : matchOf(item.match, `${at}.match`, errors);
  const send = item.send === undefined ? [] : sends(item.send, `${at}.send`, errors);
  return errors.length === before && match && send ? { match, send } : undefined;
}

/** A rule's `match`: `{json: …}` (a sub-document the message's JSON must contain) or a text value pattern. */
function matchOf(spec: unknown, at: string, errors: string[]): WebSocketMatch | undefined {
  if (isObject(spec) && Object.hasOwn(spec, "json")) {
    if (Object.keys(spec).length !== 1) {
      errors.push(`${at}: {json: …} stands alone; remove ${Object.keys(spec).filter((k) => k !== "json").join(", ")}`);
      return undefined;
    }
    const problems: string[] = [];
    const pattern = compileJsonPattern(spec.json, [], problems);
    if (problems.length) {
      for (const problem of problems) errors.push(`${at}.json ${problem}`);
      return undefined;
    }
    return { kind: "json", spec, pattern };
  }
  const { pattern, problem } = compileValuePattern(spec);
  if (!pattern) {
    errors.push(`${at} ${problem}; or {json: {…}} for a JSON message`);
    return undefined;
  }
  if (pattern.absent || pattern.multi) {
    errors.push(`${at}: a message is always there and is one value; use text, {regex}, {contains}… or {json}`);
    return undefined;
  }
  return { kind: "text", spec, pattern };
}

/** A `send`: one message or a list of them, each text or `{json: …}`. */
function sends(value: unknown, at: string, errors: string[]): WebSocketSend[] | undefined {
  if (value === undefined) {
    errors.push(`${at} is required: a message (text or {json: …}) or a list of them`);
    return undefined;
  }
  const items = Array.isArray(value) ? value : [value];
  if (items.length > MAX_WEBSOCKET_SENDS) {
    errors.push(`${at} lists ${items.length} messages; a send lists at most ${MAX_WEBSOCKET_SENDS}`);
    return undefined;
  }
  const before = errors.length;
  const out: WebSocketSend[] = [];
  items.forEach((item, i) => {
    const where = Array.isArray(value) ? `${at}[${i}]` : at;
    let send: WebSocketSend;
    if (typeof item === "string") send = { text: item };
    else if (typeof item === "number" || typeof item === "boolean") send = { text: String(item) };
    else if (isObject(item) && Object.keys(item).length === 1 && Object.hasOwn(item, "json")) {
      const problem = checkJsonValue(item.json, `${where}.json`);
      if (problem) return void errors.push(problem);
      send = { json: item.json };
    } else {
      return void errors.push(`${where} must be text or {json: …} (a JSON value sent as JSON), got ${describe(item)}`);
    }
    const bytes = UTF8.encode(sendText(send)).byteLength;
    if (bytes > MAX_WEBSOCKET_MESSAGE_BYTES) {
      return void errors.push(
        `${where} is ${bytes} bytes; a message may be at most ${MAX_WEBSOCKET_MESSAGE_BYTES} bytes: split it into several`,
      );
    }
    out.push(send);
  });
  return errors.length === before ? out : undefined;
}

/** `close: {code, after_ms}`. */
function closeOf(value: unknown, at: string, errors: string[]): WebSocketSpec["close"] {
  if (!isObject(value)) {
    errors.push(`${at} must be a mapping like {code: 1000, after_ms: 5000}, got ${describe(value)}`);
    return undefined;
  }
  const before = errors.length;
  unknownKeys(value, CLOSE_FIELDS, at, errors);
  const code = value.code ?? 1000;
  if (!sendableCloseCode(code)) {
    errors.push(
      `${at}.code must be a close code a server may send (1000–1003, 1007–1014, 3000–4999), got ${
        describe(value.code)
      }`,
    );
  }
  const after = value.after_ms ?? 0;
  if (typeof after !== "number" || !Number.isFinite(after) || after < 0 || after > MAX_DELAY_MS) {
    errors.push(`${at}.after_ms must be milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(value.after_ms)}`);
  }
  return errors.length === before ? { code: code as number, afterMs: after as number } : undefined;
}

/**
 * `spec` as a config file writes it (for `GET /__stubtool__/stubs`).
 *
 * @example
 * ```ts
 * import { checkWebSocket, webSocketConfig } from "./websocket_field.ts";
 * const spec = checkWebSocket({ on_message: [{ match: "ping", send: "pong" }] }, "websocket", []);
 * console.log(JSON.stringify(webSocketConfig(spec!))); // '{"on_connect":[],"on_message":[{"match":"ping","send":["pong"]}]}'
 * ```
 */
export function webSocketConfig(spec: WebSocketSpec): Record<string, unknown> {
  const send = (items: WebSocketSend[]) => items.map((item) => "text" in item ? item.text : { json: item.json });
  const out: Record<string, unknown> = {
    on_connect: spec.onConnect.map((item) =>
      item.delayMs === undefined ? { send: send(item.send) } : { send: send(item.send), delay_ms: item.delayMs }
    ),
    on_message: spec.onMessage.map((rule) => ({ match: rule.match.spec, send: send(rule.send) })),
  };
  if (spec.close) out.close = { code: spec.close.code, after_ms: spec.close.afterMs };
  return out;
}
