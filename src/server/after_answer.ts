/**
 * What happens after a stub has answered: its callbacks (webhooks), rendered from the
 * request and queued, never delaying the answer. The handler calls {@link AfterAnswer.wrap}
 * for a stub that has callbacks; the queue's records and its drain at shutdown live here too.
 *
 * Loops: every callback carries `stubtool-callback-depth` (one more than the request that
 * caused it), so a chain of callbacks through this server (or other stubtool servers) that
 * comes back is cut after {@link MAX_CALLBACK_DEPTH} hops: the callbacks of a request at
 * that depth are recorded as dropped, with a `[WARN]`.
 * @module
 */

import { messageOf } from "../error_message.ts";
import { modelOf, paramsOf } from "./answers/template.ts";
import { CallbackQueue, type CallbackRecord, type OutgoingCallback } from "./callbacks/callbacks.ts";
import type { Incoming } from "./incoming.ts";
import type { RequestView } from "./request_view.ts";
import type { Respond } from "./response.ts";
import type { Route } from "./matching/route.ts";
import type { Match } from "./matching/router.ts";

/** The header that counts the hops of a callback chain. */
export const CALLBACK_DEPTH_HEADER = "stubtool-callback-depth";
/** The longest chain of callbacks: the callbacks of a request that is the 4th hop are not sent. */
export const MAX_CALLBACK_DEPTH = 4;

/** The after-answer hook of one server: its callback queue and its log. */
export class AfterAnswer {
  readonly #queue: CallbackQueue;
  readonly #log: ((line: string) => void) | undefined;

  /**
   * `log` gets one line per callback, and a `[WARN]` line when callbacks are dropped; `ca`
   * is PEM certificates to trust for https receivers (`--callback-ca`).
   */
  constructor(log: ((line: string) => void) | undefined, ca?: string) {
    this.#log = log;
    this.#queue = new CallbackQueue({ log, ca });
  }

  /** Records that `route`'s callbacks were not sent for a request, and why. */
  notSent(route: Route, why: string): void {
    this.#queue.fail(route.id, why);
  }

  /**
   * `respond`, then the stub's callbacks, rendered from this request and queued; an answer
   * that is an error of the server's own (5xx with `stub`) still sends them, as WireMock does
   * once a stub is chosen.
   */
  wrap<R>(route: Route, match: Match<Route>, view: RequestView, incoming: Incoming, respond: Respond<R>): Respond<R> {
    const callbacks = route.callbacks!;
    return (head, body) => {
      const answer = respond(head, body);
      let outgoing;
      try {
        const model = callbacks.templated
          ? modelOf(
            view,
            incoming,
            paramsOf(route.names, match.values),
            paramsOf(route.names, match.raw, route.pathCaptures),
          )
          : undefined;
        outgoing = callbacks.render(match.values, model);
      } catch (error) {
        this.#queue.fail(route.id, `could not render the callback: ${messageOf(error)}`);
        return answer;
      }
      const depth = depthOf(incoming.header(CALLBACK_DEPTH_HEADER));
      for (const callback of outgoing) {
        const sent = withDepth(callback, depth + 1);
        if (depth >= MAX_CALLBACK_DEPTH) {
          this.#queue.refuse(
            route.id,
            sent,
            `a callback loop: the request was hop ${depth} of a callback chain (${CALLBACK_DEPTH_HEADER}), at most ${MAX_CALLBACK_DEPTH}`,
          );
        } else this.#queue.send(route.id, sent);
      }
      return answer;
    };
  }

  /** The callbacks sent (and failed), oldest first (`GET /__stubtool__/callbacks`). */
  records(): CallbackRecord[] {
    return this.#queue.records();
  }

  /**
   * Waits up to `graceMs` for callbacks in flight, then drops the rest and says so; resolves
   * with how many were dropped (shutdown).
   */
  async drain(graceMs: number): Promise<{ dropped: number }> {
    const result = await this.#queue.drain(graceMs);
    if (result.dropped > 0) {
      this.#log?.(
        `[WARN] ${result.dropped} callback(s) dropped at shutdown: still on their way when the grace period ended`,
      );
    }
    return result;
  }
}

/** The depth a request's header says (0 without one, or with one that is not a count). */
function depthOf(header: string | null): number {
  if (header === null || !/^\d{1,9}$/.test(header.trim())) return 0;
  return Number(header.trim());
}

/** `callback` with the depth header set (replacing one its headers give, in any case). */
function withDepth(callback: OutgoingCallback, depth: number): OutgoingCallback {
  const headers: Record<string, string | readonly string[]> = {};
  for (const name in callback.headers) {
    if (name.toLowerCase() !== CALLBACK_DEPTH_HEADER) headers[name] = callback.headers[name];
  }
  headers[CALLBACK_DEPTH_HEADER] = String(depth);
  return { ...callback, headers };
}
