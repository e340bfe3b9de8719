/**
 * Outgoing callbacks (webhooks): after a stub's answer is sent, each of its callbacks goes
 * out once, through this queue. Sending never blocks or throws for the caller. At most
 * `maxInFlight` are in flight; more wait in order, and past `maxWaiting` waiting the newest
 * is dropped with a warning. Each ends in a record (status, or error) kept in a bounded
 * list, and one log line. Redirects are never followed, so a receiver cannot send the
 * server on to another host; only http and https URLs are sent. Plain `fetch`: runs on Deno
 * and Node alike.
 * @module
 */

import { messageOf } from "../error_message.ts";

/** A callback to send: method, full URL, headers, body, and how long to wait before sending it. */
export interface OutgoingCallback {
  method: string;
  url: string;
  headers?: Readonly<Record<string, string | readonly string[]>>;
  body?: string | Uint8Array<ArrayBuffer>;
  /** Milliseconds to wait before sending (after the answer went out); default 0. */
  delayMs?: number;
}

/** What became of one callback: the status it got, or why it got none. */
export interface CallbackRecord {
  /** The id of the stub whose callback it is. */
  stub: string;
  /** The callback's method. */
  method: string;
  /** Where it went (without credentials). */
  url: string;
  /** The receiver's status, when it answered. */
  status?: number;
  /** Why it got no answer (refused, timed out, dropped), when it did not. */
  error?: string;
  /** From sending to the answer's status line (or the error), to 0.1 ms. */
  duration_ms: number;
  /** When it was sent, or dropped (ISO 8601). */
  at: string;
}

/** Options of {@link CallbackQueue}. */
export interface CallbackQueueOptions {
  /** Most callbacks in flight at once (default 64). */
  maxInFlight?: number;
  /** Most callbacks waiting for a slot or their delay (default 10,000); past it the newest is dropped. */
  maxWaiting?: number;
  /** How long a receiver has to answer, in ms (default 10,000). */
  timeoutMs?: number;
  /** Records kept, newest last (default 500). */
  keep?: number;
  /** Gets one line per callback sent, and `[WARN]` lines for drops. */
  log?: (line: string) => void;
  /** The fetch to send with (default the global one); tests pass their own. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

/** Default of {@link CallbackQueueOptions.maxInFlight}. */
export const MAX_CALLBACKS_IN_FLIGHT = 64;
/** Default of {@link CallbackQueueOptions.maxWaiting}. */
export const MAX_CALLBACKS_WAITING = 10_000;
/** Default of {@link CallbackQueueOptions.timeoutMs}. */
export const CALLBACK_TIMEOUT_MS = 10_000;
/** Default of {@link CallbackQueueOptions.keep}. */
export const CALLBACK_RECORDS_KEPT = 500;

interface Job {
  stub: string;
  callback: OutgoingCallback;
  /** The delay's timer, while it runs. */
  timer?: ReturnType<typeof setTimeout>;
  controller?: AbortController;
  /** Settles when the job has been sent and recorded. */
  done?: Promise<void>;
}

/** Why a job was aborted: the abort reason is one of these. */
const TIMEOUT = Symbol("timeout");
const SHUTDOWN = Symbol("shutdown");

/**
 * Sends callbacks in the background with bounds on how many are in flight, waiting and
 * recorded.
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
  readonly maxWaiting: number;
  readonly timeoutMs: number;
  readonly keep: number;
  #log: ((line: string) => void) | undefined;
  #fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Jobs waiting for a slot, first at `#head` (a FIFO without the cost of `shift`). */
  #waiting: Job[] = [];
  #head = 0;
  #delayed = new Set<Job>();
  #inFlight = new Set<Job>();
  #ring: CallbackRecord[] = [];
  #next = 0;
  #dropped = 0;
  /** Whether the current spell of a full queue has been warned about. */
  #warned = false;
  #closed = false;
  #idle: (() => void)[] = [];

  constructor(options: CallbackQueueOptions = {}) {
    this.maxInFlight = whole(options.maxInFlight ?? MAX_CALLBACKS_IN_FLIGHT, "maxInFlight", 1);
    this.maxWaiting = whole(options.maxWaiting ?? MAX_CALLBACKS_WAITING, "maxWaiting", 0);
    this.timeoutMs = whole(options.timeoutMs ?? CALLBACK_TIMEOUT_MS, "timeoutMs", 1);
    this.keep = whole(options.keep ?? CALLBACK_RECORDS_KEPT, "keep", 0);
    this.#log = options.log;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
  }

  /** Callbacks in flight now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Callbacks waiting for a slot or for their delay. */
  get waiting(): number {
    return this.#waiting.length - this.#head + this.#delayed.size;
  }

  /** Callbacks dropped so far because too many were waiting, or because the queue was stopped. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Queues `callback` of stub `stubId`: sent now if a slot is free, after its delay if it has
   * one, else when a slot frees up. Never throws and never waits.
   */
  send(stubId: string, callback: OutgoingCallback): void {
    const job: Job = { stub: stubId, callback };
    if (this.#closed) return this.#drop(job, "dropped: the server has stopped");
    const startsNow = !(callback.delayMs! > 0) && this.#inFlight.size < this.maxInFlight;
    if (!startsNow && this.waiting >= this.maxWaiting) {
      this.#dropped++;
      if (!this.#warned) {
        this.#warned = true;
        this.#say(
          `[WARN] callbacks: ${this.maxWaiting} are waiting; dropped ${callback.method} ${shownUrl(callback.url)} ` +
            `of stub ${stubId} (${this.#dropped} dropped so far)`,
        );
      }
      this.#record(job, { error: "dropped: too many callbacks waiting" }, 0, new Date());
      return;
    }
    const delay = callback.delayMs;
    if (delay !== undefined && delay > 0) {
      this.#delayed.add(job);
      job.timer = setTimeout(() => {
        this.#delayed.delete(job);
        job.timer = undefined;
        this.#enqueue(job);
      }, delay);
      return;
    }
    this.#enqueue(job);
  }

  #enqueue(job: Job): void {
    if (this.#inFlight.size < this.maxInFlight) this.#start(job);
    else this.#waiting.push(job);
  }

  /** Starts waiting jobs while there are free slots; settles `drain` when nothing is left. */
  #pump(): void {
    while (this.#inFlight.size < this.maxInFlight && this.#head < this.#waiting.length) {
      const job = this.#waiting[this.#head];
      this.#waiting[this.#head++] = undefined as unknown as Job;
      this.#start(job);
    }
    if (this.#head === this.#waiting.length) {
      this.#waiting = [];
      this.#head = 0;
      this.#warned = false;
    } else if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
    if (this.#inFlight.size === 0 && this.waiting === 0) {
      const idle = this.#idle;
      this.#idle = [];
      for (const resolve of idle) resolve();
    }
  }

  #start(job: Job): void {
    const controller = job.controller = new AbortController();
    this.#inFlight.add(job);
    job.done = this.#deliver(job, controller).finally(() => {
      this.#inFlight.delete(job);
      this.#pump();
    });
  }

  async #deliver(job: Job, controller: AbortController): Promise<void> {
    const { method, url, headers, body } = job.callback;
    const at = new Date();
    const start = performance.now();
    const timer = setTimeout(() => controller.abort(TIMEOUT), this.timeoutMs);
    let outcome: { status: number } | { error: string };
    try {
      const target = new URL(url);
      if (target.protocol !== "http:" && target.protocol !== "https:") {
        throw new TypeError(`only http and https URLs are called back, got ${target.protocol}`);
      }
      const response = await this.#fetch(target.href, {
        method,
        headers: headers === undefined ? undefined : toHeaders(headers),
        body: method === "GET" || method === "HEAD" ? undefined : body,
        redirect: "manual",
        signal: controller.signal,
      });
      outcome = { status: response.status };
      // Only the status counts: the body is not read, and cancelling it frees the connection.
      await response.body?.cancel().catch(() => {});
    } catch (error) {
      outcome = { error: failure(error, controller.signal, this.timeoutMs) };
    } finally {
      clearTimeout(timer);
    }
    const ms = performance.now() - start;
    const record = this.#record(job, outcome, ms, at);
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
    this.#record(job, { error: why }, 0, new Date());
  }

  #record(job: Job, outcome: { status: number } | { error: string }, ms: number, at: Date): CallbackRecord {
    const record: CallbackRecord = {
      stub: job.stub,
      method: job.callback.method,
      url: shownUrl(job.callback.url),
      ...outcome,
      duration_ms: Math.round(ms * 10) / 10,
      at: at.toISOString(),
    };
    if (this.keep === 0) return record;
    this.#ring[this.#next] = record;
    this.#next = (this.#next + 1) % this.keep;
    return record;
  }

  /** Records (and logs) a callback of stub `stubId` that could not even be built: its template failed. */
  fail(stubId: string, error: string): void {
    this.#say(`callback of stub ${stubId} not sent: ${error}`);
    this.#record({ stub: stubId, callback: { method: "", url: "" } }, { error }, 0, new Date());
  }

  /** The kept records, oldest first. */
  records(): CallbackRecord[] {
    return this.#ring.length < this.keep
      ? this.#ring.slice()
      : [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
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
    if (this.#inFlight.size > 0 || this.waiting > 0) {
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
    for (const job of this.#delayed) {
      clearTimeout(job.timer);
      this.#drop(job, "dropped at shutdown");
      dropped++;
    }
    this.#delayed.clear();
    for (let i = this.#head; i < this.#waiting.length; i++) {
      this.#drop(this.#waiting[i], "dropped at shutdown");
      dropped++;
    }
    this.#waiting = [];
    this.#head = 0;
    const aborted = [...this.#inFlight];
    for (const job of aborted) job.controller!.abort(SHUTDOWN);
    await Promise.all(aborted.map((job) => job.done));
    this.#dropped += aborted.length;
    return { dropped: dropped + aborted.length };
  }
}

function whole(value: number, name: string, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be a whole number of ${min} or more, got ${value}`);
  }
  return value;
}

function toHeaders(map: Readonly<Record<string, string | readonly string[]>>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(map)) {
    if (typeof value === "string") headers.append(name, value);
    else for (const item of value) headers.append(name, item);
  }
  return headers;
}

/** The URL as parsed (control characters and spaces percent-encoded), or the text as JSON when it is not one. */
function shownUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return JSON.stringify(url);
  }
}

/** A short reason for a failed callback, the same on Deno and Node for the common cases. */
function failure(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted && signal.reason === TIMEOUT) return `no answer within ${timeoutMs} ms`;
  if (signal.aborted && signal.reason === SHUTDOWN) return "aborted at shutdown";
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const message = messageOf(error);
  if (cause?.code === "ECONNREFUSED" || /connection refused/i.test(`${message} ${cause?.message}`)) {
    return "connection refused";
  }
  const detail = cause?.message && !message.includes(cause.message) ? `: ${cause.message}` : "";
  return (message + detail).split("\n")[0];
}
