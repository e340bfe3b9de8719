/**
 * A stub's `stream:` field (server-sent events): a list of events `{data, event?, id?,
 * retry?, delay_ms?}`, checked and bounded here, so a stream is refused at load rather than
 * cut short at request time.
 * @module
 */

import type { StreamEvent } from "./model.ts";
import { checkJsonValue, describe } from "./checks.ts";
import { unknownField } from "../util/hint.ts";
import { sseDataText, sseEvent } from "../util/sse.ts";

/** The fields of one event. */
export const STREAM_EVENT_FIELDS = ["data", "event", "id", "retry", "delay_ms"] as const;
/** The most events one stream may hold. */
export const MAX_STREAM_EVENTS = 10_000;
/** The largest event on the wire, in bytes (its `event:`, `id:`, `retry:` and `data:` lines). */
export const MAX_STREAM_EVENT_BYTES = 1024 * 1024;
const MAX_DELAY_MS = 2_147_483_647; // the largest setTimeout delay
const LINE_BREAK = /[\r\n\0]/;
const UTF8 = new TextEncoder();

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks a `stream:` value; `field` is where it sits (`stream`, `sequence[1].stream`). Every
 * problem goes to `errors`; the events come back when there is none.
 *
 * @example
 * ```ts
 * import { checkStream } from "./stream_field.ts";
 * const errors: string[] = [];
 * console.log(checkStream([{ data: { n: 1 }, delay_ms: 10 }, { data: "[DONE]" }], "stream", errors));
 * // [ { data: { n: 1 }, delayMs: 10 }, { data: "[DONE]" } ]
 * console.log(checkStream([{ dta: 1 }], "stream", errors), errors);
 * ```
 */
export function checkStream(raw: unknown, field: string, errors: string[]): StreamEvent[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    errors.push(
      `${field} must be a non-empty list of events ({data, event?, id?, retry?, delay_ms?}), got ${
        Array.isArray(raw) ? "an empty list" : describe(raw)
      }`,
    );
    return undefined;
  }
  if (raw.length > MAX_STREAM_EVENTS) {
    errors.push(`${field} holds ${raw.length} events; a stream holds at most ${MAX_STREAM_EVENTS}`);
    return undefined;
  }
  const before = errors.length;
  const events: StreamEvent[] = [];
  raw.forEach((item, i) => {
    const at = `${field}[${i}]`;
    const event = checkEvent(item, at, errors);
    if (event) events.push(event);
  });
  return errors.length === before ? events : undefined;
}

/** One event, or undefined with its problems in `errors`. */
function checkEvent(item: unknown, at: string, errors: string[]): StreamEvent | undefined {
  if (!isMapping(item)) {
    errors.push(`${at} must be a mapping like {data: {...}, delay_ms: 100}, got ${describe(item)}`);
    return undefined;
  }
  const before = errors.length;
  for (const key of Object.keys(item)) {
    if (!(STREAM_EVENT_FIELDS as readonly string[]).includes(key)) {
      errors.push(`${at}: ${unknownField("field", key, STREAM_EVENT_FIELDS)}`);
    }
  }
  const event: StreamEvent = { data: item.data };
  if (item.data === undefined) errors.push(`${at}.data is required: text, or an object or list sent as JSON`);
  else {
    const problem = checkJsonValue(item.data, `${at}.data`);
    if (problem) errors.push(problem);
  }
  for (const name of ["event", "id"] as const) {
    let value = item[name];
    if (value === undefined) continue;
    if (name === "id" && typeof value === "number" && Number.isInteger(value)) value = String(value);
    if (typeof value !== "string" || LINE_BREAK.test(value) || (name === "event" && value === "")) {
      errors.push(`${at}.${name} must be one line of text (no CR, LF or NUL), got ${describe(item[name])}`);
    } else event[name] = value;
  }
  if (item.retry !== undefined) {
    const retry = item.retry;
    if (typeof retry !== "number" || !Number.isInteger(retry) || retry < 0) {
      errors.push(`${at}.retry must be a whole number of milliseconds (0 or more), got ${describe(retry)}`);
    } else event.retry = retry;
  }
  if (item.delay_ms !== undefined) {
    const delay = item.delay_ms;
    if (typeof delay !== "number" || !Number.isFinite(delay) || delay < 0 || delay > MAX_DELAY_MS) {
      errors.push(`${at}.delay_ms must be milliseconds from 0 to ${MAX_DELAY_MS}, got ${describe(delay)}`);
    } else event.delayMs = delay;
  }
  if (errors.length !== before) return undefined;
  const bytes = UTF8.encode(sseEvent({ ...event, data: sseDataText(event.data) })).byteLength;
  if (bytes > MAX_STREAM_EVENT_BYTES) {
    errors.push(
      `${at} is ${bytes} bytes on the wire; an event may be at most ${MAX_STREAM_EVENT_BYTES} bytes: split it into several`,
    );
    return undefined;
  }
  return event;
}
