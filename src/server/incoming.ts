/**
 * The request as the handler reads it. Each runtime adapter gives the handler an
 * {@link Incoming}; a fetch `Request` becomes one through {@link requestIncoming}, and the
 * Node adapter builds one straight from `IncomingMessage`, with no `Request` in between.
 * @module
 */

/** Request headers as the runtime holds them: a fetch `Headers`, or Node's parsed header object. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** Some or all of a request body. */
export interface BodyRead {
  /** The bytes read so far (at most the limit asked for). */
  bytes: Uint8Array;
  /** True when that is the whole body. */
  complete: boolean;
}

/** The parts of a request the handler uses. */
export interface Incoming {
  /** The request method as sent (`GET`, `BREW`). */
  readonly method: string;
  /** Path and query as requested, without scheme, host or fragment: `/users/42?x=1`. */
  readonly target: string;
  /** One request header by lower-case name, or null. */
  header(name: string): string | null;
  /** All request headers, names lower-cased (for response functions). */
  headers(): Record<string, string>;
  /**
   * The headers as the runtime holds them, without copying (the journal keeps this and
   * reads it only when asked: copying every request's headers costs ~8% of throughput).
   */
  headerSource(): HeaderSource;
  /** Does the request carry a body (a non-zero content-length, or a chunked one)? */
  hasBody(): boolean;
  /**
   * Reads the body up to `max` bytes. Asked again with a larger `max`, it goes on where it
   * stopped. `complete` is false when the body is longer than `max` (or declares so). Rejects
   * when the client goes away mid-body.
   */
  read(max: number): Promise<BodyRead>;
  /**
   * The whole body as a stream (what {@link Incoming.read} already took, then the rest), or
   * null when the request has none: for passing it on (proxying) without holding it.
   */
  stream(): ReadableStream<Uint8Array<ArrayBuffer>> | null;
  /** The client's address (WireMock's `clientIp`), when the runtime tells it. */
  clientIp?(): string | undefined;
  /**
   * The header lines as sent, names in their case: `[name, value, name, value, …]`, when the
   * wire keeps them (Node's `rawHeaders`; `Deno.serve` gives names lower-cased only).
   */
  headerLines?(): readonly string[] | undefined;
  /**
   * Does some header come on more than one line? Asked before {@link Incoming.headerLines} are
   * walked, so that a request whose headers each come once costs nothing more; a wire
   * without it has its lines walked whenever a header pattern asks.
   */
  repeatsHeaders?(): boolean;
  /**
   * Present when the adapter can turn this request into a WebSocket (it asked for one):
   * the handler calls it with the session, then answers 101, and the adapter upgrades.
   */
  upgrade?: (session: WebSocketSession) => void;
}

/** An open WebSocket as the handler's session sees it, whatever runtime holds it. */
export interface WebSocketPeer {
  /** Sends a text message. */
  send(text: string): void;
  /** Closes with a close frame carrying `code`. */
  close(code: number, reason?: string): void;
  /** Drops the connection without a close handshake (a client that does not read). */
  terminate(): void;
  /** Bytes handed to `send` and not yet written to the socket. */
  readonly bufferedAmount: number;
}

/** What the adapter tells a WebSocket session: the socket opened, a message came, it closed. */
export interface WebSocketSession {
  /** The upgrade is done: `peer` sends and closes from now on. */
  open(peer: WebSocketPeer): void;
  /** A message: text, or the bytes of a binary one. */
  message(data: string | Uint8Array): void;
  /** The connection ended (either side, or cut). */
  close(): void;
}

/** `/p?q` from an absolute URL (`http://host/p?q#f`), without building a URL object. */
export function targetOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const hash = url.indexOf("#", start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}

const EMPTY = new Uint8Array();

/**
 * After an answer that came before the request body was in, how much of that body (in all)
 * is still read and dropped so that a client still sending it gets to read the answer (most
 * write the whole body before they read): four times `--max-body`, and at least 1 MiB. Past
 * that the connection is closed.
 */
export function unreadBodyLimit(maxBody: number): number {
  return Math.max(4 * maxBody, 1024 * 1024);
}

/** While a body is dropped: how long the client may send nothing before the connection is closed. */
export const DISCARD_IDLE_MS = 2_000;

/**
 * Accumulates a body from a source of chunks, reading only as far as asked: the journal
 * takes the first 64 KiB, a stub that needs the whole body asks for up to `--max-body`.
 */
export class ChunkedBody {
  readonly #next: () => Promise<Uint8Array | null>;
  readonly #declared: number | undefined;
  #chunks: Uint8Array[] = [];
  #total = 0;
  #done = false;
  #streamed = false;
  #pending: Promise<void> | undefined;

  /** A body already read whole. */
  static of(bytes: Uint8Array): ChunkedBody {
    const body = new ChunkedBody(() => Promise.resolve(null), bytes.byteLength);
    if (bytes.byteLength) body.#chunks.push(bytes);
    body.#total = bytes.byteLength;
    body.#done = true;
    return body;
  }

  /** `next` yields the next chunk, or null at the end; `declared` is the content-length, if any. */
  constructor(next: () => Promise<Uint8Array | null>, declared: number | undefined) {
    this.#next = next;
    this.#declared = declared;
  }

  /**
   * Reads on until more than `max` bytes are held or the body ends; returns the first `max`
   * bytes and whether that is all. (Whether a declared length is too large to read at all is
   * the caller's decision, made before asking.)
   */
  async read(max: number): Promise<BodyRead> {
    if (this.#streamed) throw new Error("the request body was already passed on as a stream");
    while (!this.#done && this.#total <= max) {
      this.#pending ??= this.#next().then((chunk) => {
        this.#pending = undefined;
        if (chunk === null) this.#done = true;
        else if (chunk.byteLength) {
          this.#chunks.push(chunk);
          this.#total += chunk.byteLength;
        }
      }, (error) => {
        this.#pending = undefined;
        throw error;
      });
      await this.#pending;
    }
    const complete = this.#done && this.#total <= max &&
      (this.#declared === undefined || this.#declared <= max);
    return { bytes: this.#bytes(Math.min(max, this.#total)), complete };
  }

  /** The body was read to its end, or handed on as a stream: nothing is left to drop. */
  get settled(): boolean {
    return this.#done || this.#streamed;
  }

  /**
   * Reads the rest of the body and drops it, holding none of it: true once it ended, false
   * as soon as it passes `limit` bytes in all (at its first chunk when its declared length does), the
   * client sends nothing for `idleMs`, or goes away. Nothing reads the body after this.
   */
  async discard(limit: number, idleMs: number): Promise<boolean> {
    if (this.#streamed) return true;
    // A declared length past the limit is given up on after one chunk, not at once: Deno.serve
    // reads a body nothing read from to its end, however long, when it is cancelled.
    const over = this.#declared !== undefined && this.#declared > limit;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      if (this.#pending) await this.#pending;
      while (!this.#done) {
        if (this.#total > limit || (over && this.#total > 0)) return false;
        const next = this.#next();
        next.catch(() => {}); // left pending when the client goes quiet
        const chunk = await Promise.race([
          next,
          new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), idleMs)),
        ]);
        clearTimeout(timer);
        if (chunk === undefined) return false;
        if (chunk === null) this.#done = true;
        else this.#total += chunk.byteLength;
      }
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The whole body as a stream: what was read so far, then the rest as it arrives, without
   * holding it (a proxied upload goes through, not into memory). Reading with {@link read}
   * afterwards is an error.
   */
  stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    const held = this.#chunks;
    this.#chunks = [];
    this.#streamed = true;
    let index = 0;
    return new ReadableStream<Uint8Array<ArrayBuffer>>({
      pull: async (controller) => {
        if (index < held.length) return controller.enqueue(held[index++] as Uint8Array<ArrayBuffer>);
        if (this.#done) return controller.close();
        await this.#pending;
        const chunk = await this.#next();
        if (chunk === null) {
          this.#done = true;
          controller.close();
        } else controller.enqueue(chunk as Uint8Array<ArrayBuffer>);
      },
    });
  }

  #bytes(length: number): Uint8Array {
    if (length === 0) return EMPTY;
    if (this.#chunks.length > 1) {
      const all = new Uint8Array(this.#total);
      let offset = 0;
      for (const chunk of this.#chunks) {
        all.set(chunk, offset);
        offset += chunk.byteLength;
      }
      this.#chunks = [all];
    }
    const whole = this.#chunks[0];
    return length === whole.byteLength ? whole : whole.subarray(0, length);
  }
}

/** A fetch `Request` seen as an {@link Incoming} (one object, methods on the prototype). */
export class RequestIncoming implements Incoming {
  readonly method: string;
  readonly target: string;
  /** Set by the Deno adapter for a request that asks for a WebSocket. */
  upgrade?: (session: WebSocketSession) => void;
  readonly #request: Request;
  /** Header values already asked for: each `get` on Deno.serve's headers is a call into the runtime. */
  #seen: Map<string, string | null> | undefined;
  #body: ChunkedBody | undefined;
  #reader: ReadableStreamDefaultReader<Uint8Array<ArrayBuffer>> | undefined;
  #discarding = false;

  readonly #clientIp: string | undefined;

  constructor(request: Request, clientIp?: string) {
    this.#request = request;
    this.#clientIp = clientIp;
    this.method = request.method;
    this.target = targetOf(request.url);
  }

  clientIp(): string | undefined {
    return this.#clientIp;
  }

  header(name: string): string | null {
    const seen = this.#seen ??= new Map();
    let value = seen.get(name);
    if (value === undefined) seen.set(name, value = this.#request.headers.get(name));
    return value;
  }

  headers(): Record<string, string> {
    return Object.fromEntries(this.#request.headers);
  }

  headerSource(): HeaderSource {
    return this.#request.headers;
  }

  hasBody(): boolean {
    // Deno.serve hands no body to GET and HEAD requests. A declared length answers the rest
    // without the `body` getter: it builds a ReadableStream, which also takes `arrayBuffer()`
    // off the runtime's path for an already-buffered body (S7 cost 6 µs more per request).
    // The same rule as the Node adapter: `content-length: 0` is no body.
    if (this.method === "GET" || this.method === "HEAD") return false;
    const declared = this.header("content-length");
    if (declared !== null) return declared !== "0";
    return this.#request.body !== null;
  }

  read(max: number): Promise<BodyRead> {
    if (!this.#body) {
      // A declared length within the limit: the runtime's own reader is much faster than a
      // chunk loop (and a body longer than declared is a protocol error it rejects itself).
      const declared = this.header("content-length");
      if (declared !== null && Number(declared) <= max) {
        return this.#request.arrayBuffer().then((buffer) => {
          const bytes = new Uint8Array(buffer);
          this.#body = ChunkedBody.of(bytes);
          return { bytes, complete: true };
        });
      }
      this.#body = this.#chunked();
    }
    return this.#body.read(max);
  }

  stream(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (!this.hasBody()) return null;
    this.#body ??= this.#chunked();
    return this.#body.stream();
  }

  /**
   * Once answered: reads what is left of the body and drops it (see {@link ChunkedBody.discard}),
   * so a client still sending it is not reset before it reads the answer. Past `limit` bytes
   * the body is cancelled, and Deno.serve closes the connection after the answer. When the
   * client goes quiet it is cancelled too, but the read still waiting holds the connection
   * until the client sends more or leaves (or the server stops).
   */
  discardRest(limit: number): void {
    if (this.#discarding || this.method === "GET" || this.method === "HEAD") return;
    this.#discarding = true;
    // bodyUsed with no #body: the runtime's own reader has the body and reads it to its end.
    if (this.#body ? this.#body.settled : !this.hasBody() || this.#request.bodyUsed) return;
    this.#body ??= this.#chunked();
    this.#body.discard(limit, DISCARD_IDLE_MS).then((whole) => {
      // Not before Deno.serve has taken the answer: cancelled earlier, it reads the whole
      // body itself, however long, and keeps the connection.
      if (!whole) setTimeout(() => this.#reader?.cancel().catch(() => {}));
    });
  }

  #chunked(): ChunkedBody {
    const stream = this.#request.body;
    const declared = this.header("content-length");
    const reader = this.#reader = stream?.getReader();
    return new ChunkedBody(
      reader ? () => reader.read().then((r) => r.done ? null : r.value) : () => Promise.resolve(null),
      declared === null ? undefined : Number(declared),
    );
  }
}

/** A fetch `Request` seen as an {@link Incoming}. */
export function requestIncoming(request: Request, clientIp?: string): RequestIncoming {
  return new RequestIncoming(request, clientIp);
}

/**
 * Request headers from a {@link HeaderSource}, names lower-cased, several values joined by
 * `, `. A plain object; `Object.fromEntries` makes a header named `__proto__` an own key.
 */
export function headerRecord(source: HeaderSource): Record<string, string> {
  if (source instanceof Headers) return Object.fromEntries(source);
  const pairs: [string, string][] = [];
  for (const name in source) {
    const value = source[name];
    // HTTP/2 pseudo-headers (`:method`, `:path`) are not headers of the request.
    if (value !== undefined && name[0] !== ":") pairs.push([name, Array.isArray(value) ? value.join(", ") : value]);
  }
  return Object.fromEntries(pairs);
}
