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

/** An event read back from a body, with its end: the byte offset just after its blank line. */
export interface SseParsed extends SseFields {
  /** Bytes (UTF-8) from the start of the body to the end of this event. */
  end: number;
}

const UTF8 = new TextEncoder();

/**
 * The events of an event-stream body written exactly as {@link sseEvent} writes them, so
 * that encoding them again gives back the same bytes; undefined for anything else (a
 * comment line, CRLF line ends, `data:` without its space, fields in another order, an event
 * without data, an empty `event:`, a CR or NUL in `event:`/`id:`, an unfinished last event):
 * such a body cannot be replayed event by event byte for byte.
 *
 * @example
 * ```ts
 * import { parseSseEvents } from "./sse.ts";
 * console.log(parseSseEvents("event: note\ndata: a\ndata: b\n\ndata: [DONE]\n\n"));
 * // [ { data: "a\nb", event: "note", end: 29 }, { data: "[DONE]", end: 43 } ]
 * console.log(parseSseEvents(": ping\n\ndata: x\n\n")); // undefined
 * ```
 */
export function parseSseEvents(text: string): SseParsed[] | undefined {
  if (!text.endsWith("\n\n")) return undefined;
  const events: SseParsed[] = [];
  let end = 0;
  for (const block of text.slice(0, -2).split("\n\n")) {
    const fields: SseFields = { data: "" };
    const data: string[] = [];
    for (const line of block.split("\n")) {
      const colon = line.indexOf(": ");
      if (colon === -1) return undefined;
      const name = line.slice(0, colon);
      const value = line.slice(colon + 2);
      if (name === "data") data.push(value);
      else if ((name === "event" || name === "id") && !/[\r\0]/.test(value) && (name === "id" || value !== "")) {
        fields[name] = value;
      } else if (name === "retry" && /^\d{1,9}$/.test(value)) fields.retry = Number(value);
      else return undefined;
    }
    if (data.length === 0) return undefined;
    fields.data = data.join("\n");
    const wire = sseEvent(fields);
    if (wire !== `${block}\n\n`) return undefined;
    end += UTF8.encode(wire).byteLength;
    events.push({ ...fields, end });
  }
  return events;
}
