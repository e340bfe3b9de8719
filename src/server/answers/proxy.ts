/**
 * The proxy answerer: a `proxy:` stub's answer is the upstream's, streamed; so is the
 * answer to an unmatched request when `proxy_unmatched` is set.
 * @module
 */

import type { Deadlines } from "../deadlines.ts";
import type { Incoming } from "../incoming.ts";
import { forward, type ForwardTap } from "../proxy/proxy.ts";
import type { RequestView } from "../request_view.ts";
import { errorAnswer, type Respond, type ResponseHead } from "../response.ts";
import type { ProxyAdjust } from "../../stubs/proxy_field.ts";

/** A proxy stub's own headers, added to the upstream's answer as further lines (as WireMock adds them). */
function addHeaders(head: ResponseHead, lines: readonly [string, string][]): void {
  for (const [name, value] of lines) {
    const key = name.toLowerCase();
    const lists = head.lists ??= {};
    if (lists[key]) lists[key].push(value);
    else if (Object.hasOwn(head.headers, key)) {
      lists[key] = [head.headers[key], value];
      delete head.headers[key];
    } else head.headers[key] = value;
  }
}

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
    adjust?: ProxyAdjust,
  ): Promise<R> {
    const prefix = adjust?.stripPrefix;
    const pathname = prefix !== undefined && view.pathname.startsWith(prefix)
      ? view.pathname.slice(prefix.length)
      : view.pathname;
    const result = await forward(base, incoming, pathname, view.rawQuery, {
      timeoutMs: this.#deadlines.handlerTimeout,
      signal: this.#deadlines.signal,
      tap: this.#tap?.(view.method, incoming.target, incoming.headers()),
      ...(adjust?.addHeaders || adjust?.removeHeaders ? { adjust } : {}),
    });
    if ("message" in result) {
      onStatus?.(undefined);
      return respond(...errorAnswer(result.status, result.message, stub === undefined ? {} : { stub }));
    }
    onStatus?.(result.head.status);
    if (adjust?.responseHeaders) addHeaders(result.head, adjust.responseHeaders);
    return respond(result.head, result.body);
  }
}
