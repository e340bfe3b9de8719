/**
 * Passing requests on to a real service: a stub's `proxy: URL`, or `proxy_unmatched` for
 * every request no stub matches. The request goes to the URL plus its own path and query,
 * with its method, headers (hop-by-hop ones dropped, `host` the upstream's, and
 * `accept-encoding: identity` in place of the client's) and body; the upstream's status,
 * headers and body come back as they arrive, byte for byte.
 *
 * On Deno a request without a body goes through `fetch`: asked for `identity`, Deno's fetch
 * hands the body over untouched even when the upstream compresses it anyway (it decompresses
 * only what the request accepted), and a fetched body goes out of `Deno.serve` without
 * passing through JavaScript. Everything else goes through `node:http`/`node:https`: a body
 * (fetch would send a sized upload chunked), the methods fetch refuses (`TRACE`) and the
 * ports it blocks; and every request on Node, whose fetch decompresses even when asked for
 * `identity`.
 * @module
 */

import type { Incoming } from "../incoming.ts";
import { fetchCarries, forwardByFetch } from "./proxy_fetch.ts";
import { forwardByNode } from "./proxy_node.ts";
import { type Forwarded, type ForwardFailure, type ForwardOptions, upstreamUrl } from "./upstream.ts";

export type { Forwarded, ForwardFailure, ForwardTap } from "./upstream.ts";
export { upstreamUrl } from "./upstream.ts";

/**
 * Sends the request to `base` + its path and query and resolves with the upstream's head
 * and streaming body, or a failure: unreachable (502), or no answer within `timeoutMs`
 * (504). `signal` aborts it (shutdown).
 */
export function forward(
  base: URL,
  incoming: Incoming,
  pathname: string,
  rawQuery: string,
  options: ForwardOptions,
): Promise<Forwarded | ForwardFailure> {
  const url = upstreamUrl(base, pathname, rawQuery);
  const shown = `${url.origin}${url.pathname}${url.search}`;
  // fetch joins a header's lines: a request with added header lines goes by node:http.
  return options.adjust === undefined && fetchCarries(url, incoming)
    ? forwardByFetch(url, shown, incoming, options)
    : forwardByNode(url, shown, incoming, options);
}
