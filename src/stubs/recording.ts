/**
 * Turning recorded exchanges into a config file (P12.3, `stubtool record`): one stub per
 * distinct method + path + query; a request answered differently over time becomes a
 * `sequence`. JSON bodies become YAML values (when written back compactly they are the
 * same bytes; otherwise the exact bytes go to a body file), text bodies strings with their
 * content type, binary bodies `body_base64`. Response headers kept: `content-type` and
 * those asked for.
 * @module
 */

import { displaySegment } from "./path.ts";

/** One exchange as the proxy saw it. */
export interface Exchange {
  method: string;
  /** Path and query as sent. */
  target: string;
  status: number;
  /** Response headers, names lower-cased (several values of one name as a list). */
  headers: Record<string, string | string[]>;
  /** The whole response body (empty for none). */
  body: Uint8Array;
}

/** What {@link recordedConfig} makes. */
export interface RecordedConfig {
  /** The config document: `{ routes: [...] }`. */
  config: { routes: Record<string, unknown>[] };
  /** Files to write beside the config (path relative to it → bytes), for bodies kept byte for byte. */
  files: Map<string, Uint8Array>;
}

const JSON_TYPE = /^[^;]*(\/json|\+json)\s*(;|$)/i;
const TEXT_TYPE = /^\s*(text\/|application\/(xml|javascript|x-www-form-urlencoded)|[^;]*\+xml)/i;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The path of a stub that matches exactly this request path (no placeholders, nothing misread). */
export function literalPath(pathname: string): string {
  const segments = pathname.slice(1).split("/").map((raw) => {
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      value = raw;
    }
    const shown = displaySegment(value);
    // `:id` and `*` read as mistaken placeholders: write their first character encoded.
    if (shown.startsWith(":")) return "%3A" + shown.slice(1);
    if (shown === "*" || shown.endsWith("*")) return shown.replaceAll("*", "%2A");
    return shown;
  });
  return "/" + segments.join("/");
}

/** The query of a request as required literal values (the first value of a repeated name). */
function literalQuery(rawQuery: string): Record<string, string> | undefined {
  if (rawQuery === "") return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQuery)) if (!Object.hasOwn(out, name)) out[name] = value;
  return Object.keys(out).length ? out : undefined;
}

function headerValue(headers: Exchange["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Standard base64 of bytes. */
function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The answer fields of one exchange: status, the kept headers, and the body in the most readable exact form. */
function answer(
  exchange: Exchange,
  keep: readonly string[],
  file: (extension: string, bytes: Uint8Array) => string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { status: exchange.status };
  const headers: Record<string, string | string[]> = {};
  for (const name of ["content-type", ...keep.map((k) => k.toLowerCase())]) {
    const value = exchange.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  if (Object.keys(headers).length) out.headers = headers;
  const bytes = exchange.body;
  if (bytes.byteLength === 0 || exchange.status === 204 || exchange.status === 304) return out;
  const type = headerValue(exchange.headers, "content-type") ?? "";
  let text: string | undefined;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = undefined;
  }
  if (text !== undefined && JSON_TYPE.test(type)) {
    try {
      const value = JSON.parse(text);
      if (JSON.stringify(value) === text) out.body = value;
      else out.body_file = file("json", bytes); // pretty-printed or escaped JSON: kept as sent
      return out;
    } catch { /* not JSON after all: kept as bytes below */ }
  }
  if (text !== undefined && type !== "" && TEXT_TYPE.test(type) && !JSON_TYPE.test(type)) {
    out.body = text;
    return out;
  }
  out.body_base64 = base64(bytes);
  return out;
}

/**
 * The config for a list of exchanges, oldest first. `keep` names response headers to keep
 * besides `content-type`; `bodies` is the folder (relative to the config) body files go to.
 */
export function recordedConfig(
  exchanges: readonly Exchange[],
  options: { keep?: readonly string[]; bodies?: string } = {},
): RecordedConfig {
  const keep = options.keep ?? [];
  const folder = options.bodies ?? "bodies";
  const files = new Map<string, Uint8Array>();
  const named = new Map<string, string>();
  // The same bytes answered twice are one file (so equal answers stay equal, not a sequence).
  const file = (extension: string, bytes: Uint8Array) => {
    const key = base64(bytes);
    let name = named.get(key);
    if (name === undefined) {
      name = `${folder}/${String(files.size + 1).padStart(4, "0")}.${extension}`;
      files.set(name, bytes);
      named.set(key, name);
    }
    return name;
  };
  const byRequest = new Map<string, Exchange[]>();
  for (const exchange of exchanges) {
    const key = `${exchange.method} ${exchange.target}`;
    const list = byRequest.get(key);
    if (list) list.push(exchange);
    else byRequest.set(key, [exchange]);
  }
  const routes: Record<string, unknown>[] = [];
  for (const list of byRequest.values()) {
    const [first] = list;
    const q = first.target.indexOf("?");
    const stub: Record<string, unknown> = {
      method: first.method,
      path: literalPath(q === -1 ? first.target : first.target.slice(0, q)),
    };
    const query = literalQuery(q === -1 ? "" : first.target.slice(q + 1));
    if (query) stub.query_params = query;
    const answers = list.map((exchange) => answer(exchange, keep, file));
    const distinct = new Set(answers.map((a) => JSON.stringify(a)));
    if (distinct.size === 1) Object.assign(stub, answers[0]);
    else stub.sequence = answers;
    routes.push(stub);
  }
  return { config: { routes }, files };
}
