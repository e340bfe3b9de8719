/**
 * The stream answerer: a `stream:` answer (server-sent events) goes out as a
 * `text/event-stream` body that is pulled, not pushed: each event is made when the wire asks
 * for the next chunk, after its `delay_ms`, so a client that stops reading holds the stream
 * still and the server keeps one event for it, whatever the stream's length. Events without
 * captures or templates are encoded once, when the stub is compiled; a `{name}` capture is
 * filled per request, and in a template stub each event's data is rendered when it is due.
 * @module
 */

import type { ResponseSpec, StreamEvent } from "../../stubs/model.ts";
import { compileJson, compileText, render, type Template } from "../../stubs/placeholders.ts";
import { MAX_STREAM_EVENT_BYTES } from "../../stubs/stream_field.ts";
import {
  compileJsonTemplate,
  compileTemplate,
  type JsonTemplate,
  type ResponseTemplate,
  TemplateError,
  type TemplateModel,
} from "../../templating/handlebars.ts";
import { sseDataText, sseEvent, type SseFields } from "../../util/sse.ts";
import type { BodyReader, BodyRecord } from "../body.ts";
import type { Deadlines } from "../deadlines.ts";
import type { Incoming } from "../incoming.ts";
import type { RequestView } from "../request_view.ts";
import {
  type AnswerBody,
  CompiledResponse,
  errorAnswer,
  HEAD_FIRST,
  HeaderValueError,
  type Respond,
  type ResponseHead,
} from "../response.ts";
import { modelOf, TemplateResponse } from "./template.ts";

const UTF8 = new TextEncoder();

/** One event, compiled: its bytes when fixed, else its data's template. */
interface CompiledEvent {
  delayMs?: number;
  /** The whole event on the wire, when nothing in it depends on the request. */
  bytes?: Uint8Array<ArrayBuffer>;
  /** `event`, `id`, `retry` (the data comes from {@link CompiledEvent.data}). */
  fields: Omit<SseFields, "data">;
  /** The data with `{name}` captures (a plain stub) or Handlebars (a template stub). */
  data?: Template | ResponseTemplate | JsonTemplate;
}

/** A `stream:` response, compiled: the head (status and headers) and the events. */
export class StreamResponse {
  readonly delay: ResponseSpec["delay"];
  /** Renders the head: a plain response without a body, or a template one. */
  readonly #head: CompiledResponse | TemplateResponse;
  readonly #events: CompiledEvent[];
  /** Does rendering read the request body (so it is read first)? */
  readonly readsBody: boolean;

  /** Compiles `spec` (which has a stream); `template`: the stub is a template stub. */
  constructor(spec: ResponseSpec, names: readonly string[], template: boolean) {
    this.delay = spec.delay;
    this.#head = template ? new TemplateResponse(spec) : new CompiledResponse(spec, names);
    let readsBody = this.#head instanceof TemplateResponse && this.#head.readsBody;
    this.#events = (spec.stream as StreamEvent[]).map((event) => {
      const fields: Omit<SseFields, "data"> = {};
      if (event.event !== undefined) fields.event = event.event;
      if (event.id !== undefined) fields.id = event.id;
      if (event.retry !== undefined) fields.retry = event.retry;
      const compiled: CompiledEvent = { fields };
      if (event.delayMs !== undefined) compiled.delayMs = event.delayMs;
      const text = typeof event.data === "string";
      if (template) {
        const data = text ? compileTemplate(event.data as string) : compileJsonTemplate(event.data);
        if (data.dynamic) {
          compiled.data = data;
          readsBody ||= data.readsBody;
          return compiled;
        }
      } else {
        const data = text ? compileText(event.data as string, names) : compileJson(event.data, names);
        if (typeof data !== "string") {
          compiled.data = data;
          return compiled;
        }
      }
      compiled.bytes = UTF8.encode(sseEvent({ ...fields, data: sseDataText(event.data) }));
      return compiled;
    });
    this.readsBody = readsBody;
  }

  /** The head for one request; throws {@link TemplateError} or {@link HeaderValueError}. */
  head(values: readonly string[], raw: readonly string[], model: () => TemplateModel): ResponseHead {
    if (this.#head instanceof TemplateResponse) return this.#head.render(model())[0];
    return this.#head.render(values, raw, (head) => head);
  }

  /**
   * The events as a pulled stream: the next one is made (after its delay) only when the
   * wire asks for it. A template that fails, or renders an event larger than an event may
   * be, ends the stream with an error, so the client sees a cut stream, not a whole one.
   */
  body(values: readonly string[], model: () => TemplateModel, deadlines: Deadlines, stats: StreamStats): AnswerBody {
    const events = this.#events;
    let next = 0;
    let open = true;
    const finish = () => {
      if (open) stats.open--;
      open = false;
    };
    stats.open++;
    const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
      async pull(controller) {
        const event = events[next++];
        if (event.delayMs) await deadlines.sleep(event.delayMs);
        if (!open) return; // cancelled while waiting
        if (deadlines.signal.aborted) {
          finish();
          return controller.close();
        }
        let bytes: Uint8Array<ArrayBuffer>;
        try {
          bytes = event.bytes?.slice() ?? encode(event, values, model);
        } catch (error) {
          finish();
          return controller.error(error);
        }
        stats.sentBytes += bytes.byteLength;
        controller.enqueue(bytes);
        if (next === events.length) {
          finish();
          controller.close();
        }
      },
      cancel: finish,
    }, { highWaterMark: 0 });
    HEAD_FIRST.add(stream);
    return stream;
  }
}

/** An event whose data depends on the request, encoded; throws when it cannot go out. */
function encode(event: CompiledEvent, values: readonly string[], model: () => TemplateModel): Uint8Array<ArrayBuffer> {
  const data = event.data!;
  // A fresh model per event: each event has its own render budget, as a response does.
  const text = typeof data === "string" || !("render" in data) ? render(data, values) : data.render(model());
  const bytes = UTF8.encode(sseEvent({ ...event.fields, data: text }));
  if (bytes.byteLength > MAX_STREAM_EVENT_BYTES) {
    throw new RangeError(
      `a rendered event is ${bytes.byteLength} bytes; an event may be at most ${MAX_STREAM_EVENT_BYTES}`,
    );
  }
  return bytes;
}

/** What the streams of one handler are doing: how many are open, and how many bytes they handed to the wire. */
export interface StreamStats {
  /** Streams started and not yet ended or cancelled. */
  open: number;
  /** Bytes of events handed to the adapter since start. */
  sentBytes: number;
}

/** Answers with event streams. */
export class StreamAnswerer {
  readonly #bodies: BodyReader;
  readonly #deadlines: Deadlines;
  readonly stats: StreamStats = { open: 0, sentBytes: 0 };

  constructor(bodies: BodyReader, deadlines: Deadlines) {
    this.#bodies = bodies;
    this.#deadlines = deadlines;
  }

  /** Reads the body when a template needs it, then answers with the head and the pulled events. */
  answer<R>(
    response: StreamResponse,
    stub: string,
    captures: {
      values: readonly string[];
      raw: readonly string[];
      params: () => [Record<string, string>, Record<string, string>];
    },
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    record: BodyRecord | undefined,
  ): R | Promise<R> {
    const go = () => {
      const model = () => modelOf(view, incoming, ...captures.params());
      let head: ResponseHead;
      try {
        head = response.head(captures.values, captures.raw, model);
      } catch (error) {
        if (error instanceof TemplateError) {
          return respond(...errorAnswer(500, `template failed: ${error.message}`, { stub, helper: error.helper }));
        }
        if (error instanceof HeaderValueError) return respond(...errorAnswer(500, error.message, { stub }));
        throw error;
      }
      return respond(head, response.body(captures.values, model, this.#deadlines, this.stats));
    };
    if (response.readsBody && !view.body) {
      return this.#bodies.whole(incoming, view, record).then((failed) => failed ? respond(...failed) : go());
    }
    return go();
  }
}
