/**
 * What happens after a stub has answered: its callbacks (webhooks), rendered from the
 * request and queued, never delaying the answer. The handler calls {@link AfterAnswer.wrap}
 * for a stub that has callbacks; the queue's records and its drain at shutdown live here too.
 * @module
 */

import { messageOf } from "../error_message.ts";
import { modelOf, paramsOf } from "./answers/template.ts";
import { CallbackQueue, type CallbackRecord } from "./callbacks.ts";
import type { Incoming } from "./incoming.ts";
import type { RequestView } from "./request_view.ts";
import type { Respond } from "./response.ts";
import type { Route } from "./route.ts";
import type { Match } from "./router.ts";

/** The after-answer hook of one server: its callback queue and its log. */
export class AfterAnswer {
  readonly #queue: CallbackQueue;
  readonly #log: ((line: string) => void) | undefined;

  /** `log` gets one line per callback, and a `[WARN]` line when callbacks are dropped. */
  constructor(log: ((line: string) => void) | undefined) {
    this.#log = log;
    this.#queue = new CallbackQueue({ log });
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
      for (const callback of outgoing) this.#queue.send(route.id, callback);
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
