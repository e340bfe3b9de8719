/**
 * Test helpers: start real servers on port 0 (under each runtime adapter) and send real
 * HTTP to them.
 */
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
