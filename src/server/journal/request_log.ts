/**
 * The request log and the journal: one record per stub request, filled in as the handler
 * learns each field (stub, near misses, body) and written once, when the answer goes out.
 * @module
 */

import type { Incoming } from "../incoming.ts";
import type { Journal, JournalRecord } from "./journal.ts";
import type { RequestView } from "../request_view.ts";
import type { Respond } from "../response.ts";

/** One line of the request log. */
export interface RequestLogEntry {
  /** The request method as sent. */
  method: string;
  /** Path with the query string, as requested. */
  target: string;
  /** The status answered (404 when no stub matched). */
  status: number;
  /** The matched stub (`GET /users/{id}`), or undefined when nothing matched. */
  stub?: string;
  /** The matched stub's id. */
  id?: string;
  /** When nothing matched: the ids of the stubs that came closest (the 404's `closest`). */
  closest?: string[];
  /** The scenario move the stub made, `cart: Started → has-item`; undefined when it moved none. */
  transition?: string;
  /** Time from arrival to the response, in milliseconds. */
  ms: number;
}

/** One request's record while it is answered; present only when a request log or the journal is on. */
export interface LogState extends JournalRecord {
  /** The answer went out (the record is in the journal). */
  done: boolean;
  /** When timing started (`performance.now()`), or 0 while the answer is not timed. */
  since: number;
  /** The scenario move the stub made (the request log shows it), `cart: Started → has-item`. */
  transition: string | undefined;
}

/** Writes each answered stub request to the request log (`onRequest`) and the journal. */
export class RequestLog {
  readonly #onRequest: ((entry: RequestLogEntry) => void) | undefined;
  readonly #journal: Journal | undefined;

  constructor(onRequest: ((entry: RequestLogEntry) => void) | undefined, journal: Journal | undefined) {
    this.#onRequest = onRequest;
    this.#journal = journal;
  }

  /** Is anything recorded? When not, requests are answered without a record. */
  get on(): boolean {
    return this.#onRequest !== undefined || this.#journal !== undefined;
  }

  /** Does the journal keep request bodies (so a body is read before matching)? */
  get keepsBodies(): boolean {
    return this.#journal !== undefined;
  }

  /** Starts the record of one request (journaled and logged by {@link RequestLog.responder}'s answer). */
  start(incoming: Incoming, view: RequestView): LogState {
    return {
      method: incoming.method,
      target: incoming.target,
      time: Date.now(),
      status: 0,
      ms: 0,
      stub: undefined,
      id: undefined,
      closest: undefined,
      scope: view.scope,
      headers: this.#journal ? incoming.headerSource() : undefined,
      clientIp: this.#journal ? incoming.clientIp?.() : undefined,
      headerLines: this.#journal ? incoming.headerLines?.() : undefined,
      body: undefined,
      bodyTruncated: false,
      done: false,
      since: this.#onRequest ? performance.now() : 0,
      transition: undefined,
    };
  }

  /** `respond` that first completes `log`: its status and time, into the journal and the request log. */
  responder<R>(log: LogState, respond: Respond<R>): Respond<R> {
    const onRequest = this.#onRequest;
    const journal = this.#journal;
    return (head, body) => {
      if (!log.done) {
        log.done = true;
        log.status = head.status;
        if (log.since !== 0) log.ms = performance.now() - log.since;
        journal?.add(log);
        onRequest?.({
          method: log.method,
          target: log.target,
          status: log.status,
          stub: log.stub,
          id: log.id,
          closest: log.closest?.map((c) => c.id!),
          ...(log.transition === undefined ? {} : { transition: log.transition }),
          ms: log.ms,
        });
      }
      return respond(head, body);
    };
  }

  /**
   * Called once the synchronous part of answering is done. Clock reads are most of what
   * recording costs (performance.now() is ~0.1 µs on Deno): without a request log, the
   * journal times only answers that come later (delays, response functions, bodies); one
   * given at once took microseconds and is journaled as 0 ms. The request log times every one.
   */
  settle(log: LogState): void {
    if (log.status === 0 && log.since === 0) log.since = performance.now();
  }
}
