/**
 * Test helpers: start real servers on port 0 (under each runtime adapter) and send real
 * HTTP to them.
 */
import { connect } from "node:net";
import { type StubServer, stubServer, type StubServerOptions } from "../mod.ts";

/** Both adapters run every server test (STYLE 4: one interface, one conformance suite). */
export const ADAPTERS = ["deno", "node"] as const;

/** A response read whole. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

/** Sends one request and reads the whole answer. */
export async function send(
  server: StubServer,
  method: string,
  path: string,
  init: { body?: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(server.url + path, { method, body: init.body, headers: init.headers });
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: response.status, headers: response.headers, text, json };
}

/** Registers `name` once per adapter, each with a fresh server on port 0. */
export function serverTest(
  name: string,
  fn: (server: StubServer) => Promise<void>,
  options: StubServerOptions = {},
): void {
  for (const adapter of ADAPTERS) {
    Deno.test(`[${adapter}] ${name}`, async () => {
      await using server = await stubServer(0, { ...options, adapter });
      await fn(server);
    });
  }
}

/** One HTTP/1.1 answer as it came off the wire. */
export interface RawAnswer {
  /** The status line, as sent: `HTTP/1.1 200 OK`. */
  statusLine: string;
  /** Header names lower-cased, in the order sent (a name sent twice appears twice). */
  headers: [string, string][];
  /** Everything after the blank line, as Latin-1 text. */
  body: string;
}

/**
 * Sends `request` (request line, headers, blank line, any body) on a fresh TCP connection
 * with node:net and reads until the server closes it: send `connection: close`.
 */
export function rawRequest(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let received = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => received += chunk);
    socket.on("error", reject);
    socket.on("close", () => {
      const end = received.indexOf("\r\n\r\n");
      if (end === -1) return reject(new Error(`no complete answer: ${JSON.stringify(received)}`));
      const [statusLine, ...lines] = received.slice(0, end).split("\r\n");
      const headers = lines.map((line): [string, string] => {
        const colon = line.indexOf(":");
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      });
      resolve({ statusLine, headers, body: received.slice(end + 4) });
    });
  });
}

/** The value of one header of a raw answer (the first, if sent twice), or undefined. */
export function rawHeader(answer: RawAnswer, name: string): string | undefined {
  return answer.headers.find(([n]) => n === name)?.[1];
}
