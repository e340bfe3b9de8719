/**
 * The proxy answerer: a `proxy:` stub's answer is the upstream's, streamed; so is the
 * answer to an unmatched request when `proxy_unmatched` is set.
 * @module
 */

import type { Deadlines } from "../deadlines.ts";
import type { Incoming } from "../incoming.ts";
import { forward, type ForwardTap } from "../proxy/proxy.ts";
import type { RequestView } from "../request_view.ts";
import { errorAnswer, type Respond } from "../response.ts";

/** Watches every proxied exchange (`stubtool record`): the request's method, target and headers give its tap. */
export type ProxyTap = (method: string, target: string, headers: Record<string, string>) => ForwardTap | undefined;

/** Passes requests on to upstreams within the server's deadlines. */
export class ProxyAnswerer {
  readonly #deadlines: Deadlines;
  readonly #tap: ProxyTap | undefined;

  constructor(deadlines: Deadlines, tap: ProxyTap | undefined) {
    this.#deadlines = deadlines;
    this.#tap = tap;
  }

  /**
   * Passes the request on to `base` and its answer back, streamed; 502 when the upstream
   * cannot be reached, 504 when it does not answer within the handler timeout. `onStatus`
   * learns the upstream's status (undefined when it failed); `stub` names the stub in errors.
   */
  async answer<R>(
    base: URL,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    stub: string | undefined,
    onStatus?: (status: number | undefined) => void,
  ): Promise<R> {
    const result = await forward(base, incoming, view.pathname, view.rawQuery, {
      timeoutMs: this.#deadlines.handlerTimeout,
      signal: this.#deadlines.signal,
      tap: this.#tap?.(view.method, incoming.target, incoming.headers()),
    });
    if ("message" in result) {
      onStatus?.(undefined);
      return respond(...errorAnswer(result.status, result.message, stub === undefined ? {} : { stub }));
    }
    onStatus?.(result.head.status);
    return respond(result.head, result.body);
  }
}
