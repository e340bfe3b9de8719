/**
 * The request as the handler reads it. Each runtime adapter gives the handler an
 * {@link Incoming}; a fetch `Request` becomes one through {@link requestIncoming}, and the
 * Node adapter builds one straight from `IncomingMessage`, with no `Request` in between.
 * @module
 */

/** What {@link Incoming.body} returns when the body passes the limit. */
export const TOO_LARGE: unique symbol = Symbol("request body too large");

/** The parts of a request the handler uses. */
export interface Incoming {
  /** The request method as sent (`GET`, `BREW`). */
  readonly method: string;
  /** Path and query as requested, without scheme or host: `/users/42?x=1`. */
  readonly target: string;
  /** One request header by lower-case name, or null. */
  header(name: string): string | null;
  /** All request headers, names lower-cased (for response functions). */
  headers(): Record<string, string>;
  /** Reads the whole body; gives up with {@link TOO_LARGE} as soon as it passes `max` bytes. */
  body(max: number): Promise<Uint8Array | typeof TOO_LARGE>;
}

/** `/p?q` from an absolute URL (`http://host/p?q#f`), without building a URL object. */
export function targetOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const hash = url.indexOf("#", start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}

/** Reads a fetch body stream, giving up as soon as it passes `max` bytes. */
async function readRequestBody(request: Request, max: number): Promise<Uint8Array | typeof TOO_LARGE> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > max) return TOO_LARGE;
  if (!request.body) return new Uint8Array();
  // A declared length within the limit: the runtime's own reader is much faster than a
  // chunk loop, and a body longer than declared is a protocol error it rejects itself.
  if (declared !== null) return new Uint8Array(await request.arrayBuffer());
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return TOO_LARGE;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** A fetch `Request` seen as an {@link Incoming} (one object, methods on the prototype). */
class RequestIncoming implements Incoming {
  readonly method: string;
  readonly target: string;
  readonly #request: Request;

  constructor(request: Request) {
    this.#request = request;
    this.method = request.method;
    this.target = targetOf(request.url);
  }

  header(name: string): string | null {
    return this.#request.headers.get(name);
  }

  headers(): Record<string, string> {
    return Object.fromEntries(this.#request.headers);
  }

  body(max: number): Promise<Uint8Array | typeof TOO_LARGE> {
    return readRequestBody(this.#request, max);
  }
}

/** A fetch `Request` seen as an {@link Incoming}. */
export function requestIncoming(request: Request): Incoming {
  return new RequestIncoming(request);
}
