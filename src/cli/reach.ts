/**
 * Reaching a running stubtool server from `wait` and `report`: the default URL, the
 * reserved endpoint URLs, and a fetch that tries every address a host name resolves to
 * (`localhost` may resolve to `::1` first while the server listens on 127.0.0.1, P8.10).
 * @module
 */

import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Env } from "./context.ts";
import { portValue } from "./usage.ts";

/** `http://localhost:$STUBTOOL_PORT`, else `http://localhost:8080`; a bad STUBTOOL_PORT is a usage error. */
export function defaultServerUrl(env: Env, command: string): URL {
  const text = env.STUBTOOL_PORT?.trim();
  const port = text ? portValue(text, "STUBTOOL_PORT", command) : 8080;
  return new URL(`http://localhost:${port}`);
}

/**
 * The URL of a reserved endpoint of the server at `base` (a base URL, as `serverUrlValue`
 * accepts), with `query` parameters if given.
 *
 * @example
 * ```ts
 * import { endpointUrl } from "./reach.ts";
 * const url = endpointUrl(new URL("http://localhost:9000"), "report", { scope: "a b.ts" });
 * console.log(url.href); // "http://localhost:9000/__stubtool__/report?scope=a+b.ts"
 * ```
 */
export function endpointUrl(
  base: URL,
  endpoint: "health" | "report" | "requests",
  query: Record<string, string> = {},
): URL {
  const url = new URL(`/__stubtool__/${endpoint}`, base);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url;
}

/**
 * The URLs to try for `url`: one per address its host resolves to, in resolver order.
 * `localhost` always includes both loopback addresses. HTTPS URLs keep their host name,
 * which the certificate is checked against.
 */
export async function candidateUrls(url: URL): Promise<URL[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (url.protocol !== "http:" || isIP(host)) return [url];
  let addresses: string[] = [];
  try {
    addresses = (await lookup(host, { all: true })).map((a) => a.address);
  } catch (error) {
    if (host !== "localhost") throw error;
  }
  if (host === "localhost") {
    for (const loopback of ["127.0.0.1", "::1"]) if (!addresses.includes(loopback)) addresses.push(loopback);
  }
  if (addresses.length <= 1) return [url];
  return addresses.map((address) => {
    const candidate = new URL(url.href);
    candidate.hostname = isIP(address) === 6 ? `[${address}]` : address;
    return candidate;
  });
}

/**
 * GETs `url`, trying each address of its host in turn until one answers (any status).
 * Throws the last connection error when none does. `timeoutMs` bounds all attempts together.
 */
export async function fetchAnyAddress(url: URL, timeoutMs: number): Promise<Response> {
  const signal = AbortSignal.timeout(timeoutMs);
  let lastError: unknown;
  for (const candidate of await candidateUrls(url)) {
    try {
      return await fetch(candidate, { signal, redirect: "manual" });
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** Why a request failed, in a few words: `connection refused`, `no answer within 2s`. */
export function describeFetchError(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e && parts.length < 4; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: string }).code;
    parts.push(`${(e as { name?: string }).name ?? ""} ${code ?? ""} ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = parts.join(" ");
  if (/TimeoutError|timed out/i.test(text)) return "no answer in time";
  if (/ECONNREFUSED|connection refused/i.test(text)) return "connection refused";
  if (/ENOTFOUND|EAI_AGAIN|dns error|failed to lookup|Name or service not known|getaddrinfo/i.test(text)) {
    return "cannot resolve the host name";
  }
  if (/ECONNRESET|connection reset|connection closed/i.test(text)) return "the connection was closed";
  if (/EHOSTUNREACH|ENETUNREACH|unreachable/i.test(text)) return "host unreachable";
  // Node's fetch says only "fetch failed"; the innermost cause says why.
  let innermost = error;
  for (let n = 0; n < 8 && (innermost as { cause?: unknown })?.cause; n++) {
    innermost = (innermost as { cause: unknown }).cause;
  }
  const message = innermost instanceof Error ? innermost.message : String(innermost);
  return message.split("\n")[0];
}
