/**
 * The server-sent events wire format (WHATWG HTML §9.2): one event as the lines a client's
 * parser reads. One home for the rule, so the validator measures an event exactly as the
 * server sends it.
 * @module
 */

/** The fields of one event, as text. */
export interface SseFields {
  /** The data; one `data:` line per line of it (`\r\n`, `\r` and `\n` all end a line). */
  data: string;
  /** `event:` (the event type). */
  event?: string;
  /** `id:` (the last event id). */
  id?: string;
  /** `retry:` (reconnection time, milliseconds). */
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * The text of a data value: an object, a list or another JSON value as compact JSON, text as written.
 *
 * @example
 * ```ts
 * import { sseDataText } from "./sse.ts";
 * console.log(sseDataText({ a: [1, 2] })); // '{"a":[1,2]}'
 * console.log(sseDataText("[DONE]")); // "[DONE]"
 * ```
 */
export function sseDataText(data: unknown): string {
  return typeof data === "string" ? data : JSON.stringify(data);
}

/**
 * One event on the wire: `event:`, `id:`, `retry:` then a `data:` line per line of data,
 * and the blank line that dispatches it.
 *
 * @example
 * ```ts
 * import { sseEvent } from "./sse.ts";
 * console.log(JSON.stringify(sseEvent({ data: "a\nb", event: "note" })));
 * // "event: note\ndata: a\ndata: b\n\n"
 * ```
 */
export function sseEvent(fields: SseFields): string {
  let out = "";
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}\n`;
  for (const line of fields.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  return out + "\n";
}
