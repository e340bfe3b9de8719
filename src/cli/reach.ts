/**
 * Reaching a running stubtool server from `wait`, `report` and `stubs`: the default URL,
 * the reserved endpoint URLs, the admin token, HTTPS with a certificate to trust (`--ca`)
 * or none checked (`--insecure`), and a fetch that tries every address a host name
 * resolves to (`localhost` may resolve to `::1` first while the server listens on
 * 127.0.0.1).
 * @module
 */

import { messageOf } from "../error_message.ts";
import { readFileSync } from "node:fs";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { Buffer } from "node:buffer";
import type { Env } from "./context.ts";
import { describeReadError } from "../stubs/config.ts";
import { type ParsedArgs, portValue, serverUrlValue, UsageError } from "./usage.ts";

/** How to talk to the server beyond its URL. */
export interface ReachOptions {
  /** Sent as `authorization: Bearer TOKEN` (`--admin-token`, `STUBTOOL_ADMIN_TOKEN`). */
  token?: string;
  /** PEM certificates to trust for an https:// server (`--ca FILE`). */
  ca?: string;
  /** Do not check an https:// server's certificate (`--insecure`). */
  insecure?: boolean;
}

/** One request beyond a plain GET. */
export interface ReachRequest {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
}

/** A server to talk to: its base URL and how. */
export interface ServerTarget {
  url: URL;
  reach: ReachOptions;
}

/**
 * The server `--url` (or the default) names, with `--ca`, `--insecure` and the admin token
 * (`--admin-token`, else `STUBTOOL_ADMIN_TOKEN`). Without `--url`, `STUBTOOL_TLS_CERT` makes
 * it `https://localhost:PORT` trusting that certificate. A certificate flag on an http://
 * URL, both certificate flags, or an unreadable `--ca` is a usage error.
 */
export function serverTarget(values: ParsedArgs["values"], env: Env, command: string): ServerTarget {
  const urlText = values.url as string | undefined;
  const url = urlText === undefined ? defaultServerUrl(env, command) : serverUrlValue(urlText, "--url", command);
  const reach: ReachOptions = {};
  const caFile = values.ca as string | undefined;
  const insecure = values.insecure === true;
  if ((caFile !== undefined || insecure) && url.protocol !== "https:") {
    throw new UsageError(
      `${caFile !== undefined ? "--ca" : "--insecure"}: only for an https:// server; --url is ${url.origin}`,
      command,
    );
  }
  if (caFile !== undefined && insecure) {
    throw new UsageError("--ca and --insecure: give one (--ca trusts a certificate, --insecure trusts any)", command);
  }
  if (caFile !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(caFile, "utf8");
    } catch (error) {
      throw new UsageError(`--ca ${caFile}: ${describeReadError(error)}`, command);
    }
    if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
      throw new UsageError(
        `--ca ${caFile}: holds no PEM certificate (-----BEGIN CERTIFICATE-----); serve --tls-cert-out FILE writes one`,
        command,
      );
    }
    reach.ca = pem;
  }
  if (insecure) reach.insecure = true;
  const tlsCert = env.STUBTOOL_TLS_CERT?.trim();
  if (urlText === undefined && tlsCert && caFile === undefined && !insecure) {
    // The server beside us (the container) serves this certificate. `wait` (the health
    // check) only asks whether it is up, so it accepts one that does not name localhost.
    if (command === "wait") reach.insecure = true;
    else {
      try {
        reach.ca = readFileSync(tlsCert, "utf8");
      } catch (error) {
        throw new UsageError(`STUBTOOL_TLS_CERT ${tlsCert}: ${describeReadError(error)}`, command);
      }
    }
  }
  const token = (values["admin-token"] as string | undefined) ?? (env.STUBTOOL_ADMIN_TOKEN?.trim() || undefined);
  if (token !== undefined) {
    if (token === "") throw new UsageError("--admin-token: must not be empty", command);
    reach.token = token;
  }
  return { url, reach };
}

/**
 * `http://localhost:$STUBTOOL_PORT`, else `http://localhost:8080`; `https://` when
 * `STUBTOOL_TLS_CERT` is set (the server beside it serves TLS). A bad STUBTOOL_PORT is a
 * usage error.
 */
export function defaultServerUrl(env: Env, command: string): URL {
  const text = env.STUBTOOL_PORT?.trim();
  const port = text ? portValue(text, "STUBTOOL_PORT", command) : 8080;
  return new URL(`${env.STUBTOOL_TLS_CERT?.trim() ? "https" : "http"}://localhost:${port}`);
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
  endpoint: string,
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
 * Sends one request to `url` (a GET unless `request` says otherwise), trying each address
 * of its host in turn until one answers (any status). Throws the last connection error
 * when none does. `timeoutMs` bounds all attempts together.
 */
export async function fetchAnyAddress(
  url: URL,
  timeoutMs: number,
  reach: ReachOptions = {},
  request: ReachRequest = {},
): Promise<Response> {
  // Loaded for https:// servers only (a plain `wait`, the container's health check, need not pay
  // for it at start), and before the clock starts: loading is not the server's answer time.
  const https = url.protocol === "https:" ? await import("node:https") : undefined;
  const signal = AbortSignal.timeout(timeoutMs);
  const headers = { ...request.headers, ...(reach.token !== undefined && { authorization: `Bearer ${reach.token}` }) };
  const init = { method: request.method ?? "GET", headers, body: request.body, signal };
  if (https) return await fetchHttps(https.request, url, init, reach);
  let lastError: unknown;
  for (const candidate of await candidateUrls(url)) {
    try {
      return await fetch(candidate, { ...init, redirect: "manual" });
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/**
 * One request over node:https, whose `ca` and `rejectUnauthorized` work on Deno and Node
 * alike (fetch takes no certificate on Node, and a Deno-only client on Deno). The answer
 * is read whole: the CLI's answers are small.
 */
function fetchHttps(
  httpsRequest: typeof import("node:https").request,
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
  reach: ReachOptions,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, {
      method: init.method,
      headers: init.body === undefined
        ? init.headers
        : { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) },
      signal: init.signal,
      ...(reach.ca !== undefined && { ca: reach.ca }),
      ...(reach.insecure && { rejectUnauthorized: false }),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const status = res.statusCode ?? 502;
        const empty = status === 204 || status === 304 || init.method === "HEAD";
        resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
      });
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** Why an attempt failed when the server did not answer within its time. */
export const NO_ANSWER = "no answer in time";

/** Why a request failed, in a few words: `connection refused`, `no answer within 2s`. */
export function describeFetchError(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e && parts.length < 4; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: string }).code;
    parts.push(`${(e as { name?: string }).name ?? ""} ${code ?? ""} ${messageOf(e)}`);
  }
  const text = parts.join(" ");
  if (/TimeoutError|timed out/i.test(text)) return NO_ANSWER;
  if (/CERT|certificate|self[- ]signed|UNABLE_TO_VERIFY/i.test(text)) {
    return "its certificate is not trusted (pass --ca FILE with the certificate serve --tls-cert-out wrote, " +
      "or --insecure)";
  }
  if (/wrong version number|EPROTO|packet length too long/i.test(text)) {
    return "it does not speak TLS there (an http:// server?)";
  }
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
  const message = messageOf(innermost);
  return message.split("\n")[0];
}
