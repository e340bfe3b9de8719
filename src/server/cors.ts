/**
 * CORS for browser apps, off unless asked for (`cors: true`, `cors: {origins}`,
 * `serve --cors`, `stubServer(0, { cors: true })`). A preflight to a path some stub serves
 * is answered here (neither a hit nor unmatched) unless an `OPTIONS` stub matches it; every
 * answer to a request from an allowed origin says so, with its header names exposed.
 * The reserved endpoints never answer with CORS headers.
 * @module
 */

import type { ResponseHead } from "./response.ts";

/** How long a browser may keep a preflight's answer, in seconds. */
const MAX_AGE = "600";

/** The CORS rules of a server. */
export class Cors {
  readonly #origins: ReadonlySet<string> | undefined;

  /** `true`: any origin is allowed (and echoed, so credentials work); a list: those origins only. */
  constructor(setting: true | { origins: readonly string[] }) {
    this.#origins = setting === true ? undefined : new Set(setting.origins);
  }

  /** May a page from `origin` call the stubs? */
  allows(origin: string): boolean {
    return this.#origins === undefined || this.#origins.has(origin);
  }

  /**
   * The `204` answer to a preflight: the stubs' methods on the path, the headers the
   * browser asked for, credentials allowed, cached for 10 minutes.
   */
  preflight(origin: string, methods: readonly string[], requestedHeaders: string | null): ResponseHead {
    const headers: Record<string, string> = {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": methods.join(", "),
      "access-control-allow-credentials": "true",
      "access-control-max-age": MAX_AGE,
      vary: "origin",
    };
    if (requestedHeaders) headers["access-control-allow-headers"] = requestedHeaders;
    return { status: 204, headers };
  }

  /** `head` with the CORS headers of an answer to `origin`, exposing the answer's own header names. */
  decorate(head: ResponseHead, origin: string): ResponseHead {
    const names = Object.keys(head.headers).concat(head.lists ? Object.keys(head.lists) : []);
    const headers: Record<string, string> = Object.assign(Object.create(null), head.headers, {
      "access-control-allow-origin": origin,
      "access-control-allow-credentials": "true",
      vary: head.headers.vary ? `${head.headers.vary}, origin` : "origin",
    });
    if (names.length) headers["access-control-expose-headers"] = names.join(", ");
    return { ...head, headers };
  }
}
