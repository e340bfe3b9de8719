/**
 * Reading request bodies: once, up to a limit, into the request view (for conditions and
 * response functions) and the journal record (what was sent). A body over `--max-body` is
 * answered 413 and never matched on.
 * @module
 */

import { messageOf } from "../error_message.ts";
import type { Incoming } from "./incoming.ts";
import { JOURNAL_BODY_MAX } from "./journal/journal.ts";
import { BodyView, type RequestView } from "./request_view.ts";
import { errorAnswer, type Respond } from "./response.ts";

/** Default request body limit: 10 MiB (`--max-body`). */
export const DEFAULT_MAX_BODY = 10 * 1024 * 1024;

/** An error answer, as `respond` takes it. */
export type ErrorAnswer = Parameters<Respond<unknown>>;

/** Where the journal keeps a request's body: its first 64 KiB, and whether it was cut. */
export interface BodyRecord {
  body: Uint8Array | undefined;
  bodyTruncated: boolean;
}

/** The 413 text for a body over `maxBody` bytes. */
export function tooLargeMessage(maxBody: number): string {
  return `request body is larger than ${maxBody} bytes (--max-body)`;
}

/** Reads request bodies for one server, within its `--max-body`. */
export class BodyReader {
  readonly maxBody: number;

  constructor(maxBody = DEFAULT_MAX_BODY) {
    this.maxBody = maxBody;
  }

  /**
   * The 413 answer. It says `connection: close` on both runtimes: the rest of the body is
   * read and dropped (up to a bound), then the connection ends, whether or not the runtime
   * would have noticed the unread body by the time the answer went out.
   */
  tooLarge(): ErrorAnswer {
    return errorAnswer(413, tooLargeMessage(this.maxBody), {}, { connection: "close" });
  }

  /** Does the request declare a body longer than `--max-body`? */
  declaresTooMuch(incoming: Incoming): boolean {
    const declared = incoming.header("content-length");
    return declared !== null && Number(declared) > this.maxBody;
  }

  /**
   * Reads the body up to `max` bytes into `view` (when complete and within `--max-body`)
   * and `record` (for the journal). Resolves with an error answer when the client went
   * away mid-body.
   */
  async read(
    incoming: Incoming,
    max: number,
    view: RequestView,
    record: BodyRecord | undefined,
  ): Promise<ErrorAnswer | undefined> {
    let read;
    try {
      read = await incoming.read(max);
    } catch (error) {
      if (record && record.body === undefined) record.bodyTruncated = true;
      return errorAnswer(400, `could not read the request body: ${messageOf(error)}`);
    }
    if (record && record.body === undefined) {
      record.body = read.bytes.subarray(0, JOURNAL_BODY_MAX);
      record.bodyTruncated = !read.complete || read.bytes.byteLength > JOURNAL_BODY_MAX;
    }
    // A body over --max-body is never matched on or handed to a function, even when the journal has it whole.
    if (read.complete && read.bytes.byteLength <= this.maxBody) {
      view.body = new BodyView(read.bytes, true, incoming.header("content-type"));
    }
    return undefined;
  }

  /**
   * Makes sure `view.body` holds the whole body (up to `--max-body`): an answer when it is
   * too large (413) or could not be read (400), else undefined.
   */
  async whole(incoming: Incoming, view: RequestView, record: BodyRecord | undefined): Promise<ErrorAnswer | undefined> {
    if (view.body) return undefined;
    if (!incoming.hasBody()) {
      view.body = new BodyView(new Uint8Array(), true, incoming.header("content-type"));
      return undefined;
    }
    if (this.declaresTooMuch(incoming)) return this.tooLarge();
    const failed = await this.read(incoming, this.maxBody, view, record);
    if (failed) return failed;
    return view.body ? undefined : this.tooLarge();
  }
}
