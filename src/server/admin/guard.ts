/**
 * Who may use the reserved endpoints under `/__stubtool__/`: no browser page
 * on another origin may change the server, no DNS-rebound name may read it on a loopback
 * bind, and with an admin token nobody without it may do either. Stub answers are never
 * guarded: the code under test calls them from anywhere.
 * @module
 */

import type { Incoming } from "../incoming.ts";
import { errorAnswer, type ResponseHead } from "../response.ts";

/** Options of {@link ReservedGuard}. */
export interface GuardOptions {
  /**
   * The server listens on a loopback address only: reserved endpoints then answer only a
   * `Host` that names this machine (`localhost`, `*.localhost`, a loopback address) or one
   * of {@link GuardOptions.allowHosts}. A page on a DNS-rebound name gets 403. `stubServer`
   * sets it from its `hostname` unless given.
   */
  loopbackOnly?: boolean;
  /** More `Host` names the reserved endpoints answer on a loopback bind (`--allow-host`). */
  allowHosts?: readonly string[];
  /**
   * Every reserved endpoint but `health` needs `authorization: Bearer TOKEN`
   * (`--admin-token`); the dashboard is opened once with `?token=TOKEN`, which sets a cookie.
   */
  adminToken?: string;
}

/** The cookie the dashboard carries the admin token in (sent only to `/__stubtool__/`, never cross-site). */
export const TOKEN_COOKIE = "stubtool_admin_token";

/** Methods that change the server's state when sent to a reserved endpoint. */
const STATE_CHANGING = new Set(["POST", "PUT", "DELETE", "PATCH"]);

/** `Host` header → its lower-case name without port, brackets or final dot: `[::1]:9000` → `::1`. */
export function hostName(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[")) {
    const end = name.indexOf("]");
    name = end === -1 ? name.slice(1) : name.slice(1, end);
  } else {
    const colon = name.indexOf(":");
    if (colon !== -1 && name.indexOf(":", colon + 1) === -1) name = name.slice(0, colon);
  }
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

/**
 * Does this name (no port) always mean this machine? `localhost`, `*.localhost`,
 * `127.0.0.0/8` and `::1` do; so does the unspecified address a client may copy from a banner.
 *
 * @example
 * ```ts
 * import { isLoopbackName } from "./guard.ts";
 * console.log(isLoopbackName("api.localhost"), isLoopbackName("127.1.2.3"), isLoopbackName("evil.test"));
 * // true true false
 * ```
 */
export function isLoopbackName(name: string): boolean {
  return name === "localhost" || name.endsWith(".localhost") || name === "::1" ||
    name === "0:0:0:0:0:0:0:1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** Do two strings hold the same text? Takes as long for a near miss as for a far one. */
function sameSecret(given: string, expected: string): boolean {
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ given.charCodeAt(i % (given.length || 1));
  return diff === 0;
}

/** The value of one cookie in a `cookie` header, or undefined. */
function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Refuses requests to the reserved endpoints that cross-origin protection, the Host check and the admin token rule out. */
export class ReservedGuard {
  readonly #loopbackOnly: boolean;
  readonly #allowHosts: ReadonlySet<string>;
  readonly #token: string | undefined;

  constructor(options: GuardOptions = {}) {
    this.#loopbackOnly = options.loopbackOnly === true;
    this.#allowHosts = new Set((options.allowHosts ?? []).map(hostName));
    this.#token = options.adminToken || undefined;
  }

  /**
   * The answer that refuses this request to `pathname` (under `/__stubtool__`), or undefined
   * when it may go on. `endpoint` is the part after `/__stubtool__/` (`""` for the dashboard).
   */
  check(
    incoming: Incoming,
    pathname: string,
    endpoint: string,
    rawQuery: string,
  ): [ResponseHead, string | null] | undefined {
    return this.#host(incoming, pathname) ?? this.#origin(incoming, pathname) ??
      this.#tokenCheck(incoming, endpoint, rawQuery);
  }

  #host(incoming: Incoming, pathname: string): [ResponseHead, string] | undefined {
    if (!this.#loopbackOnly) return undefined;
    // HTTP/1.0 clients may send no Host; browsers always do, and they are who rebinding fools.
    const host = incoming.header("host") ?? incoming.header(":authority");
    if (host === null) return undefined;
    const name = hostName(host);
    if (isLoopbackName(name) || this.#allowHosts.has(name)) return undefined;
    return errorAnswer(
      403,
      `${pathname} answers only this machine's names on a loopback server (localhost, 127.0.0.1, ::1), ` +
        `not host '${name}' (a DNS-rebinding page could use it); start serve with --allow-host ${name} to allow it`,
    );
  }

  #origin(incoming: Incoming, pathname: string): [ResponseHead, string] | undefined {
    if (!STATE_CHANGING.has(incoming.method)) return undefined;
    const site = incoming.header("sec-fetch-site");
    const origin = incoming.header("origin");
    let foreign: string | undefined;
    if (site !== null && site !== "same-origin" && site !== "none") foreign = `a ${site} page`;
    else if (origin !== null) {
      const host = incoming.header("host") ?? incoming.header(":authority");
      let originHost: string | null = null;
      try {
        originHost = origin === "null" ? null : new URL(origin).host;
      } catch { /* not a URL: foreign */ }
      if (originHost === null || host === null || originHost !== host.trim().toLowerCase()) {
        foreign = `a page on ${origin}`;
      }
    }
    if (foreign === undefined) return undefined;
    return errorAnswer(
      403,
      `cross-origin ${incoming.method} to ${pathname} refused: ${foreign} may not change this server ` +
        "(test code, curl and the CLI send no Origin and are not affected)",
    );
  }

  #tokenCheck(incoming: Incoming, endpoint: string, rawQuery: string): [ResponseHead, string | null] | undefined {
    const token = this.#token;
    if (token === undefined || endpoint === "health") return undefined;
    const authorization = incoming.header("authorization");
    if (authorization !== null && /^bearer\s/i.test(authorization)) {
      if (sameSecret(authorization.replace(/^bearer\s+/i, "").trim(), token)) return undefined;
    } else {
      const cookie = cookieValue(incoming.header("cookie"), TOKEN_COOKIE);
      if (cookie !== undefined && sameSecret(cookie, encodeURIComponent(token))) return undefined;
      // Opening the dashboard as /__stubtool__/?token=TOKEN: a cookie keeps it for the page's polls.
      const given = endpoint === "" && incoming.method === "GET" ? new URLSearchParams(rawQuery).get("token") : null;
      if (given !== null && sameSecret(given, token)) {
        return [{
          status: 303,
          headers: {
            location: "/__stubtool__/",
            "set-cookie": `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/__stubtool__; HttpOnly; SameSite=Strict`,
          },
        }, null];
      }
    }
    return errorAnswer(
      401,
      authorization === null
        ? "this server needs its admin token: send authorization: Bearer TOKEN (the CLI: --admin-token or " +
          "STUBTOOL_ADMIN_TOKEN; the dashboard: open /__stubtool__/?token=TOKEN once)"
        : "the admin token does not match the server's --admin-token",
      {},
      { "www-authenticate": 'Bearer realm="stubtool"' },
    );
  }
}
