/**
 * Outgoing callbacks (webhooks): after a stub's answer is sent, each of its callbacks goes
 * out once, through this queue. Sending never blocks or throws for the caller.
 *
 * Bounds: at most `maxInFlight` in flight, and at most `maxInFlightPerOrigin` to one origin
 * (scheme, host and port), so one slow receiver cannot hold the slots of the others. The
 * rest wait; waiting (and delayed) callbacks are bounded by count (`maxWaiting`, and
 * `maxWaitingPerOrigin` per origin) and every callback held, in flight or not, by bytes
 * (`maxBytes`: URL, headers and body). Past a bound the oldest waiting callback is dropped
 * (of that origin, for an origin's bound), recorded as dropped and counted in a `[WARN]`.
 * Among waiting callbacks that may start, the oldest starts first.
 *
 * Each ends in a record (status, or error) with the headers and the first 4 KiB of the body
 * it sent, kept in a bounded list, and one log line. Redirects are never followed, so a
 * receiver cannot send the server on to another host; only http and https URLs are sent.
 * Plain `fetch` (runs on Deno and Node alike), or node:https with `ca` to trust.
 * @module
 */

import { messageOf } from "../../error_message.ts";

/** A callback to send: method, full URL, headers, body, and how long to wait before sending it. */
export interface OutgoingCallback {
  method: string;
  url: string;
  headers?: Readonly<Record<string, string | readonly string[]>>;
  body?: string | Uint8Array<ArrayBuffer>;
  /** Milliseconds to wait before sending (after the answer went out); default 0. */
  delayMs?: number;
}

/** What became of one callback: what it sent, and the status it got or why it got none. */
export interface CallbackRecord {
  /** The id of the stub whose callback it is. */
  stub: string;
  /** The callback's method. */
  method: string;
  /** Where it went (without credentials). */
  url: string;
  /** The headers it sent (or would have), a repeated one joined with `, `. */
  headers?: Record<string, string>;
  /** The first 4 KiB of the body it sent (UTF-8), when it had one; GET and HEAD send none. */
  body?: string;
  /** True when `body` is only the start of what was sent. */
  body_truncated?: boolean;
  /** The receiver's status, when it answered. */
  status?: number;
  /** Why it got no answer (refused, timed out, dropped), when it did not. */
  error?: string;
  /** From sending to the answer's status line (or the error), to 0.1 ms. */
  duration_ms: number;
  /** When it was sent, or dropped (ISO 8601). The records are listed in this order. */
  at: string;
}

/** What a sender gives back: the status (and a body to cancel, if any). */
export interface SentAnswer {
  status: number;
  body?: ReadableStream<Uint8Array> | null;
}

/** Sends one callback: fetch's shape, and fetch itself by default. */
export type CallbackSender = (url: string, init: RequestInit) => Promise<SentAnswer>;

/** Options of {@link CallbackQueue}. */
export interface CallbackQueueOptions {
  /** Most callbacks in flight at once (default 64). */
  maxInFlight?: number;
  /** Most callbacks in flight to one origin (default 16). */
  maxInFlightPerOrigin?: number;
  /** Most callbacks waiting for a slot or their delay (default 10,000); past it the oldest waiting is dropped. */
  maxWaiting?: number;
  /** Most waiting for one origin (default 2,000); past it that origin's oldest waiting is dropped. */
  maxWaitingPerOrigin?: number;
  /** Most bytes (URL, headers, body) of all callbacks held, in flight or not (default 32 MiB). */
  maxBytes?: number;
  /** How long a receiver has to answer, in ms (default 10,000). */
  timeoutMs?: number;
  /** Records kept, newest last (default 500). */
  keep?: number;
  /** Gets one line per callback sent, and `[WARN]` lines for drops. */
  log?: (line: string) => void;
  /** PEM certificates to trust for https receivers (`serve --callback-ca`), besides the usual ones. */
  ca?: string;
  /** The sender (default the global fetch, or node:https with `ca`); tests pass their own. */
  fetch?: CallbackSender;
}

/** Default of {@link CallbackQueueOptions.maxInFlight}. */
export const MAX_CALLBACKS_IN_FLIGHT = 64;
/** Default of {@link CallbackQueueOptions.maxInFlightPerOrigin}. */
export const MAX_CALLBACKS_IN_FLIGHT_PER_ORIGIN = 16;
/** Default of {@link CallbackQueueOptions.maxWaiting}. */
export const MAX_CALLBACKS_WAITING = 10_000;
/** Default of {@link CallbackQueueOptions.maxWaitingPerOrigin}. */
export const MAX_CALLBACKS_WAITING_PER_ORIGIN = 2_000;
/** Default of {@link CallbackQueueOptions.maxBytes}. */
export const MAX_CALLBACK_BYTES = 32 * 1024 * 1024;
/** Default of {@link CallbackQueueOptions.timeoutMs}. */
export const CALLBACK_TIMEOUT_MS = 10_000;
/** Default of {@link CallbackQueueOptions.keep}. */
export const CALLBACK_RECORDS_KEPT = 500;
/** How much of a sent body a record keeps. */
export const RECORDED_BODY_BYTES = 4096;

interface Origin {
  key: string;
  /** Jobs due and waiting for a slot, oldest first. */
  ready: Set<Job>;
  /** Jobs waiting or delayed, oldest first. */
  held: Set<Job>;
  inFlight: number;
}

interface Job {
  stub: string;
  callback: OutgoingCallback;
  origin: Origin;
  bytes: number;
  /** Order of sending: the oldest waiting job has the smallest. */
  seq: number;
  /** The delay's timer, while it runs. */
  timer?: ReturnType<typeof setTimeout>;
  controller?: AbortController;
  /** Settles when the job has been sent and recorded. */
  done?: Promise<void>;
}

/** Why a job was aborted: the abort reason is one of these. */
const TIMEOUT = Symbol("timeout");
const SHUTDOWN = Symbol("shutdown");

const UTF8 = new TextEncoder();
const FROM_UTF8 = new TextDecoder();

/**
 * Sends callbacks in the background with bounds on how many are in flight (in all and per
 * origin), waiting (by count and bytes) and recorded.
 *
 * @example
 * ```ts
 * import { CallbackQueue } from "./callbacks.ts";
 * const queue = new CallbackQueue({
 *   fetch: () => Promise.resolve(new Response(null, { status: 204 })),
 *   log: (line) => console.log(line),
 * });
 * queue.send("order-created", { method: "POST", url: "http://127.0.0.1:9/hook", body: "{}" });
 * console.log(await queue.drain(1000)); // { dropped: 0 }
 * console.log(queue.records()[0].status); // 204
 * ```
 */
export class CallbackQueue {
  readonly maxInFlight: number;
  readonly maxInFlightPerOrigin: number;
  readonly maxWaiting: number;
  readonly maxWaitingPerOrigin: number;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly keep: number;
  #log: ((line: string) => void) | undefined;
  #fetch: CallbackSender;
  readonly #ca: string | undefined;
  #origins = new Map<string, Origin>();
  /** Jobs waiting or delayed, oldest first. */
  #held = new Set<Job>();
  #inFlight = new Set<Job>();
  #bytes = 0;
  #seq = 0;
  /** Records with the order they are listed in, newest at `#next - 1`. */
  #ring: { record: CallbackRecord; order: number }[] = [];
  #next = 0;
  #dropped = 0;
  /** Drops in the current spell of a full queue (it ends when nothing waits). */
  #spell = 0;
  #closed = false;
  #idle: (() => void)[] = [];

  constructor(options: CallbackQueueOptions = {}) {
    this.maxInFlight = whole(options.maxInFlight ?? MAX_CALLBACKS_IN_FLIGHT, "maxInFlight", 1);
    this.maxInFlightPerOrigin = whole(
      options.maxInFlightPerOrigin ?? Math.min(MAX_CALLBACKS_IN_FLIGHT_PER_ORIGIN, this.maxInFlight),
      "maxInFlightPerOrigin",
      1,
    );
    this.maxWaiting = whole(options.maxWaiting ?? MAX_CALLBACKS_WAITING, "maxWaiting", 0);
    this.maxWaitingPerOrigin = whole(
      options.maxWaitingPerOrigin ?? Math.min(MAX_CALLBACKS_WAITING_PER_ORIGIN, this.maxWaiting),
      "maxWaitingPerOrigin",
      0,
    );
    this.maxBytes = whole(options.maxBytes ?? MAX_CALLBACK_BYTES, "maxBytes", 0);
    this.timeoutMs = whole(options.timeoutMs ?? CALLBACK_TIMEOUT_MS, "timeoutMs", 1);
    this.keep = whole(options.keep ?? CALLBACK_RECORDS_KEPT, "keep", 0);
    this.#log = options.log;
    this.#ca = options.ca;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
  }

  /** Callbacks in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Callbacks waiting for a slot or for their delay. */
  get waiting(): number {
    return this.#held.size;
  }

  /** Bytes (URL, headers, body) of the callbacks held now: waiting, delayed and in flight. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Callbacks dropped so far: past a bound, refused (a loop), or because the queue was stopped. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Callbacks in flight to `origin` (`http://host:port`) now. */
  inFlightTo(origin: string): number {
    return this.#origins.get(origin)?.inFlight ?? 0;
  }

  /**
   * Queues `callback` of stub `stubId`: sent now if a slot is free, after its delay if it has
   * one, else when a slot frees up. Never throws and never waits.
   */
  send(stubId: string, callback: OutgoingCallback): void {
    const key = originOf(callback.url);
    let origin = this.#origins.get(key);
    if (!origin) this.#origins.set(key, origin = { key, ready: new Set(), held: new Set(), inFlight: 0 });
    const job: Job = { stub: stubId, callback, origin, bytes: sizeOf(callback), seq: this.#seq++ };
    if (this.#closed) return this.#drop(job, "dropped: the server has stopped");
    this.#bytes += job.bytes;
    const delay = callback.delayMs;
    if (delay !== undefined && delay > 0) {
      this.#hold(job);
      job.timer = setTimeout(() => {
        job.timer = undefined;
        origin.ready.add(job);
        this.#pump();
      }, delay);
    } else if (this.#inFlight.size < this.maxInFlight && origin.inFlight < this.maxInFlightPerOrigin) {
      this.#start(job);
    } else {
      this.#hold(job);
      origin.ready.add(job);
    }
    this.#bound(job);
  }

  #hold(job: Job): void {
    this.#held.add(job);
    job.origin.held.add(job);
  }

  /** Drops the oldest waiting callbacks while a bound is passed. */
  #bound(job: Job): void {
    const origin = job.origin;
    while (this.#held.size > this.maxWaiting) {
      this.#overflow(first(this.#held)!, `more than ${this.maxWaiting} waiting`);
    }
    while (origin.held.size > this.maxWaitingPerOrigin) {
      this.#overflow(first(origin.held)!, `more than ${this.maxWaitingPerOrigin} waiting for ${origin.key}`);
    }
    while (this.#bytes > this.maxBytes && this.#held.size > 0) {
      this.#overflow(first(this.#held)!, `more than ${this.maxBytes} bytes held`);
    }
  }

  /** Drops a waiting job past a bound, with a `[WARN]` at the 1st, 10th, 100th… drop of a spell. */
  #overflow(job: Job, why: string): void {
    this.#unhold(job);
    this.#drop(job, `dropped: ${why}`);
    this.#spell++;
    if (Number.isInteger(Math.log10(this.#spell))) {
      this.#say(
        `[WARN] callbacks: ${why}; dropped the oldest waiting, ${job.callback.method} ${
          shownUrl(job.callback.url)
        } of stub ${job.stub} (${this.#dropped} dropped so far)`,
      );
    }
    this.#forget(job.origin);
  }

  /** Takes a job out of waiting (and its delay), giving back its bytes. */
  #unhold(job: Job): void {
    this.#held.delete(job);
    job.origin.held.delete(job);
    job.origin.ready.delete(job);
    if (job.timer !== undefined) clearTimeout(job.timer);
    job.timer = undefined;
    this.#bytes -= job.bytes;
  }

  /** Forgets an origin with nothing in flight or waiting. */
  #forget(origin: Origin): void {
    if (origin.inFlight === 0 && origin.held.size === 0) this.#origins.delete(origin.key);
  }

  /** Starts the oldest ready jobs while there are free slots; settles `drain` when nothing is left. */
  #pump(): void {
    while (this.#inFlight.size < this.maxInFlight) {
      let oldest: Job | undefined;
      for (const origin of this.#origins.values()) {
        if (origin.inFlight >= this.maxInFlightPerOrigin) continue;
        const head = first(origin.ready);
        if (head && (!oldest || head.seq < oldest.seq)) oldest = head;
      }
      if (!oldest) break;
      this.#held.delete(oldest);
      oldest.origin.held.delete(oldest);
      oldest.origin.ready.delete(oldest);
      this.#start(oldest);
    }
    if (this.#held.size === 0) this.#spell = 0;
    if (this.#inFlight.size === 0 && this.#held.size === 0) {
      const idle = this.#idle;
      this.#idle = [];
      for (const resolve of idle) resolve();
    }
  }

  #start(job: Job): void {
    const controller = job.controller = new AbortController();
    this.#inFlight.add(job);
    job.origin.inFlight++;
    job.done = this.#deliver(job, controller).finally(() => {
      this.#inFlight.delete(job);
      job.origin.inFlight--;
      this.#bytes -= job.bytes;
      this.#forget(job.origin);
      this.#pump();
    });
  }

  async #deliver(job: Job, controller: AbortController): Promise<void> {
    const { method, url, headers, body } = job.callback;
    const at = new Date();
    const order = this.#seq++;
    const start = performance.now();
    const timer = setTimeout(() => controller.abort(TIMEOUT), this.timeoutMs);
    let outcome: { status: number } | { error: string };
    try {
      const target = new URL(url);
      if (target.protocol !== "http:" && target.protocol !== "https:") {
        throw new TypeError(`only http and https URLs are called back, got ${target.protocol}`);
      }
      const init: RequestInit = {
        method,
        headers: headers === undefined ? undefined : toHeaders(headers),
        body: method === "GET" || method === "HEAD" ? undefined : body,
        redirect: "manual",
        signal: controller.signal,
      };
      const response = this.#ca !== undefined && target.protocol === "https:"
        ? await sendTrusting(this.#ca, target, init)
        : await this.#fetch(target.href, init);
      outcome = { status: response.status };
      // Only the status counts: the body is not read, and cancelling it frees the connection.
      await response.body?.cancel().catch(() => {});
    } catch (error) {
      outcome = { error: failure(error, controller.signal, this.timeoutMs, this.#ca !== undefined) };
    } finally {
      clearTimeout(timer);
    }
    const ms = performance.now() - start;
    const record = this.#record(job, outcome, ms, at, order);
    this.#say(
      `callback ${record.method} ${record.url} ${record.status ?? `error: ${record.error}`} [${record.stub}] ${
        ms.toFixed(1)
      }ms`,
    );
  }

  /** Passes a line to `log`; a log that throws loses the line, never the callback. */
  #say(line: string): void {
    try {
      this.#log?.(line);
    } catch {
      // The line is lost; sending and recording go on.
    }
  }

  /** Records a job that is not sent. */
  #drop(job: Job, why: string): void {
    this.#dropped++;
    this.#record(job, { error: why }, 0, new Date(), this.#seq++);
  }

  #record(
    job: Job,
    outcome: { status: number } | { error: string },
    ms: number,
    at: Date,
    order: number,
  ): CallbackRecord {
    const { method, url, headers, body } = job.callback;
    const record = { stub: job.stub, method, url: shownUrl(url) } as CallbackRecord;
    if (headers !== undefined && method !== "") record.headers = joined(headers);
    if (body !== undefined && method !== "GET" && method !== "HEAD") Object.assign(record, recordedBody(body));
    Object.assign(record, outcome);
    record.duration_ms = Math.round(ms * 10) / 10;
    record.at = at.toISOString();
    if (this.keep === 0) return record;
    this.#ring[this.#next] = { record, order };
    this.#next = (this.#next + 1) % this.keep;
    return record;
  }

  /** Records (and logs) a callback of stub `stubId` that could not even be built: its template failed. */
  fail(stubId: string, error: string): void {
    this.#say(`callback of stub ${stubId} not sent: ${error}`);
    this.#record(
      { stub: stubId, callback: { method: "", url: "" }, origin: undefined!, bytes: 0, seq: 0 },
      { error },
      0,
      new Date(),
      this.#seq++,
    );
  }

  /** Records `callback` of stub `stubId` as dropped without sending it (a loop), with a `[WARN]` line. */
  refuse(stubId: string, callback: OutgoingCallback, why: string): void {
    const job: Job = { stub: stubId, callback, origin: undefined!, bytes: 0, seq: 0 };
    this.#drop(job, `dropped: ${why}`);
    this.#say(
      `[WARN] callback ${callback.method} ${shownUrl(callback.url)} of stub ${stubId} dropped: ${why} ` +
        `(${this.#dropped} dropped so far)`,
    );
  }

  /** The kept records, oldest first: by when each was sent (or dropped, or failed to render). */
  records(): CallbackRecord[] {
    return this.#ring.slice().sort((a, b) => a.order - b.order).map((entry) => entry.record);
  }

  /** Forgets the kept records (a reset); callbacks in flight and waiting go on. */
  clearRecords(): void {
    this.#ring = [];
    this.#next = 0;
  }

  /**
   * For shutdown: waits up to `graceMs` for the callbacks in flight, waiting and delayed
   * (those that free up or come due within it are still sent), then aborts those in flight
   * and drops the rest. Resolves once every aborted one is recorded, with how many were
   * dropped or aborted. Callbacks queued after that are dropped.
   */
  async drain(graceMs: number): Promise<{ dropped: number }> {
    if (this.#inFlight.size > 0 || this.#held.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.#idle.push(resolve)),
        new Promise<void>((resolve) => timer = setTimeout(resolve, graceMs)),
      ]);
      clearTimeout(timer);
      this.#idle = [];
    }
    this.#closed = true;
    let dropped = 0;
    for (const job of [...this.#held]) {
      this.#unhold(job);
      this.#drop(job, "dropped at shutdown");
      dropped++;
    }
    const aborted = [...this.#inFlight];
    for (const job of aborted) job.controller!.abort(SHUTDOWN);
    await Promise.all(aborted.map((job) => job.done));
    this.#dropped += aborted.length;
    return { dropped: dropped + aborted.length };
  }
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}

function whole(value: number, name: string, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be a whole number of ${min} or more, got ${value}`);
  }
  return value;
}

/** The origin a callback goes to, the key of its per-origin bounds. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "null";
  }
}

/** What a callback holds, in bytes (a string counted by its length). */
function sizeOf(callback: OutgoingCallback): number {
  let bytes = callback.url.length + callback.method.length;
  for (const name in callback.headers) {
    const value = callback.headers[name];
    bytes += name.length + (typeof value === "string" ? value.length : value.join(", ").length);
  }
  const body = callback.body;
  return bytes + (body === undefined ? 0 : typeof body === "string" ? body.length : body.byteLength);
}

function toHeaders(map: Readonly<Record<string, string | readonly string[]>>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(map)) {
    if (typeof value === "string") headers.append(name, value);
    else for (const item of value) headers.append(name, item);
  }
  return headers;
}

function joined(map: Readonly<Record<string, string | readonly string[]>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(map)) out[name] = typeof value === "string" ? value : value.join(", ");
  return out;
}

/** The first {@link RECORDED_BODY_BYTES} of a body as text, and whether that is all of it. */
function recordedBody(body: string | Uint8Array): { body: string; body_truncated?: true } {
  let text: string;
  let cut: boolean;
  if (typeof body === "string") {
    const room = new Uint8Array(RECORDED_BODY_BYTES);
    const { read, written } = UTF8.encodeInto(
      body.length > RECORDED_BODY_BYTES ? body.slice(0, RECORDED_BODY_BYTES) : body,
      room,
    );
    text = FROM_UTF8.decode(room.subarray(0, written));
    cut = read < body.length;
  } else {
    text = FROM_UTF8.decode(body.subarray(0, RECORDED_BODY_BYTES));
    cut = body.byteLength > RECORDED_BODY_BYTES;
  }
  return cut ? { body: text, body_truncated: true } : { body: text };
}

/** The URL as parsed (control characters and spaces percent-encoded), or the text as JSON when it is not one. */
function shownUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return JSON.stringify(url);
  }
}

/**
 * One https callback over node:https trusting `ca` as well as the usual roots (fetch takes no
 * certificate on Node, and a Deno-only client on Deno). Only the status is read.
 */
async function sendTrusting(ca: string, url: URL, init: RequestInit): Promise<SentAnswer> {
  const { request } = await import("node:https");
  const { rootCertificates } = await import("node:tls");
  const headers: Record<string, string> = {};
  (init.headers as Headers | undefined)?.forEach((value, name) => headers[name] = value);
  const body = init.body as string | Uint8Array | undefined | null;
  const bytes = body == null ? undefined : typeof body === "string" ? UTF8.encode(body) : body;
  if (bytes !== undefined) headers["content-length"] = String(bytes.byteLength);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: init.method,
      headers,
      signal: init.signal ?? undefined,
      ca: [...rootCertificates, ca],
    }, (res) => {
      resolve({ status: res.statusCode ?? 502 });
      res.destroy();
    });
    req.on("error", reject);
    req.end(bytes);
  });
}

/** A short reason for a failed callback, the same on Deno and Node for the common cases. */
function failure(error: unknown, signal: AbortSignal, timeoutMs: number, trusting: boolean): string {
  if (signal.aborted && signal.reason === TIMEOUT) return `no answer within ${timeoutMs} ms`;
  if (signal.aborted && signal.reason === SHUTDOWN) return "aborted at shutdown";
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const message = messageOf(error);
  const text = `${message} ${cause?.code ?? ""} ${cause?.message ?? ""} ${(error as { code?: string })?.code ?? ""}`;
  if (cause?.code === "ECONNREFUSED" || /connection refused|ECONNREFUSED/i.test(text)) {
    return "connection refused";
  }
  const detail = cause?.message && !message.includes(cause.message) ? `: ${cause.message}` : "";
  const reason = (message + detail).split("\n")[0];
  if (/certificate|UnknownIssuer|self[- ]signed|UNABLE_TO_VERIFY|CERT_/i.test(text)) {
    return `${reason} (the receiver's certificate is not trusted: ${
      trusting ? "is it in the file" : "pass its PEM certificate with"
    } serve --callback-ca FILE${trusting ? "?" : ""})`;
  }
  return reason;
}
