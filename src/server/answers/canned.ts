/**
 * The canned answerer: a stub's written response (or the next entry of its sequence),
 * with captures filled in.
 * @module
 */

import type { BodyReader } from "../body.ts";
import type { Incoming } from "../incoming.ts";
import { type CompiledResponse, errorAnswer, HeaderValueError, type Respond } from "../response.ts";

/** Renders written responses. */
export class CannedAnswerer {
  readonly #bodies: BodyReader;

  constructor(bodies: BodyReader) {
    this.#bodies = bodies;
  }

  /**
   * A request declaring a body over `--max-body` gets 413 even from a stub that never reads
   * it; undefined when the canned answer may go out.
   */
  refuse<R>(method: string, incoming: Incoming, respond: Respond<R>): R | undefined {
    if (method === "GET" || method === "HEAD" || !this.#bodies.declaresTooMuch(incoming)) return undefined;
    return respond(...this.#bodies.tooLarge());
  }

  /**
   * Renders `response` with the captures. A header value that cannot go out throws before
   * `respond` is called: a 500 for this request only, answered and journaled once. An error
   * from `respond` itself is the adapter's.
   */
  answer<R>(
    response: CompiledResponse,
    values: readonly string[],
    raw: readonly string[],
    stub: string,
    respond: Respond<R>,
  ): R {
    try {
      return response.render(values, raw, respond);
    } catch (error) {
      if (!(error instanceof HeaderValueError)) throw error;
      return respond(...errorAnswer(500, error.message, { stub }));
    }
  }
}
