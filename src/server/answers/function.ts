/**
 * The response-function answerer: a stub whose answer a function computes per request
 * (`.responseFunc()`). The function runs in a sandbox of sorts: whatever it throws, returns
 * or however long it takes, the server answers (500, 504) and keeps serving.
 * @module
 */

import { messageOf } from "../../error_message.ts";
import type { ResponseFunc, ResponseFuncArgs } from "../../stubs/model.ts";
import type { BodyReader, BodyRecord } from "../body.ts";
import type { Deadlines } from "../deadlines.ts";
import type { Incoming } from "../incoming.ts";
import { type BodyView, MAX_JSON_DEPTH, type RequestView } from "../request_view.ts";
import { answerFromResult, errorAnswer, type Respond, type ResponseHead } from "../response.ts";

/** What the function answerer needs of the matched stub. */
export interface FunctionMatch {
  /** The function. */
  fn: ResponseFunc;
  /** `METHOD /path`, as errors name the stub. */
  stub: string;
  /** Capture names, in the order of `values`. */
  names: readonly string[];
  /** Captured values. */
  values: readonly string[];
}

/** Runs response functions with the request's parts, within the handler timeout. */
export class FunctionAnswerer {
  readonly #bodies: BodyReader;
  readonly #deadlines: Deadlines;

  constructor(bodies: BodyReader, deadlines: Deadlines) {
    this.#bodies = bodies;
    this.#deadlines = deadlines;
  }

  /** Reads the whole body, calls the function and answers with what it returned. */
  async answer<R>(
    match: FunctionMatch,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    record: BodyRecord | undefined,
  ): Promise<R> {
    const failed = await this.#bodies.whole(incoming, view, record);
    if (failed) return respond(...failed);
    const { stub } = match;
    const args = functionArgs(match, view, incoming, view.body!);
    const outcome = await this.#deadlines.run(() => match.fn(args));
    if ("timeout" in outcome) {
      return respond(
        ...(this.#deadlines.signal.aborted
          ? errorAnswer(503, "the server shut down before the response function answered", { stub })
          : errorAnswer(
            504,
            `response function did not answer within ${this.#deadlines.handlerTimeout} ms (--handler-timeout)`,
            { stub },
          )),
      );
    }
    if ("error" in outcome) {
      return respond(...errorAnswer(500, `response function threw: ${messageOf(outcome.error)}`, { stub }));
    }
    return respond(...resultAnswer(outcome.value, stub));
  }
}

/**
 * What the function is called with. The payload is parsed on first access: a function that
 * never reads it never pays for parsing a large body.
 */
function functionArgs(match: FunctionMatch, view: RequestView, incoming: Incoming, body: BodyView): ResponseFuncArgs {
  const params: Record<string, string> = {};
  for (let i = 0; i < match.names.length; i++) params[match.names[i]] = match.values[i];
  let headers: Record<string, string> | undefined;
  let queryParams: Record<string, string[]> | undefined;
  return {
    get payload(): unknown {
      if (body.tooDeep) {
        throw new TypeError(
          `the request body is nested deeper than ${MAX_JSON_DEPTH} levels, so it is not parsed; read body (the text) instead`,
        );
      }
      return body.json()?.value ?? null;
    },
    get body(): string {
      return body.text();
    },
    get headers(): Record<string, string> {
      return headers ??= incoming.headers();
    },
    params,
    get queryParams(): Record<string, string[]> {
      return queryParams ??= view.query.lists();
    },
  };
}

/** The answer the function's result makes, or a 500 naming what is wrong with it. */
function resultAnswer(result: unknown, stub: string): [ResponseHead, string | null] {
  let answer: ReturnType<typeof answerFromResult>;
  try {
    answer = answerFromResult(result);
  } catch (error) { // a getter or proxy in the result threw while it was read
    answer = `returned a value that threw when read: ${messageOf(error)}`;
  }
  return typeof answer === "string" ? errorAnswer(500, `response function ${answer}`, { stub }) : answer;
}
