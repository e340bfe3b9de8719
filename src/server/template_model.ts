/**
 * The request as a response template reads it (`request.method`, `request.query.NAME`,
 * `params.NAME`, …), with WireMock's names and shapes. Each part is worked out only when a
 * template reads it, so rendering never pays for a header parse or a body decode it does not
 * use. Every part is data: own properties of plain objects, never code.
 * @module
 */

import { documentCache, type TemplateModel, Values } from "../stubs/handlebars.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan, QueryParams } from "./request_view.ts";

/** What the model is built from; the handler adapts its request view to this. */
export interface TemplateRequest {
  /** The method as sent. */
  readonly method: string;
  /** The path and query as sent (`/a%20b?x=1`). */
  readonly target: string;
  /** The path as sent (percent-encoded), without the query. */
  readonly pathname: string;
  /** The query as sent, without `?`. */
  readonly rawQuery: string;
  /** `http` or `https`. */
  readonly scheme: string;
  /** One header by lower-case name (several values joined by `, `), or null. */
  header(name: string): string | null;
  /** Every header, by lower-case name. */
  headers(): Record<string, string>;
  /** The body as text ("" when there is none); the handler reads the body first when the template needs it. */
  bodyText(): string;
  /** The body parsed as JSON, or null; when absent the model parses `bodyText()` itself. */
  bodyJson?(): { value: unknown } | null;
  /** Every capture of the matched stub, by name. */
  readonly params: Readonly<Record<string, string>>;
}

function decodePath(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A null-prototype object of lists, read by lower-case name however the template spells it. */
function caseless(entries: Record<string, Values>): Record<string, Values> {
  return new Proxy(entries, {
    get: (target, name) =>
      typeof name === "string"
        ? Object.hasOwn(target, name.toLowerCase()) ? target[name.toLowerCase()] : undefined
        : undefined,
    has: (target, name) => typeof name === "string" && Object.hasOwn(target, name.toLowerCase()),
    getOwnPropertyDescriptor: (target, name) =>
      typeof name === "string" && Object.hasOwn(target, name.toLowerCase())
        ? { value: target[name.toLowerCase()], enumerable: true, configurable: true, writable: false }
        : undefined,
  });
}

function cookiesOf(header: string | null): Record<string, Values> {
  const cookies: Record<string, Values> = Object.create(null);
  if (!header) return cookies;
  for (const piece of header.split(";")) {
    const eq = piece.indexOf("=");
    if (eq === -1) continue;
    const name = piece.slice(0, eq).trim();
    const value = piece.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    (cookies[name] ??= new Values()).push(value);
  }
  return cookies;
}

/**
 * Builds the model a template renders against: `{ request, params }`. `request` has
 * `method`, `url`, `path` (decoded), `pathSegments`, `query`, `headers` (any case),
 * `cookies`, `body`, `json`, `scheme`, `host`, `port` and `baseUrl`; query, header and
 * cookie values are lists that print as their first value (`.[1]` reads the second).
 *
 * @example
 * ```ts
 * import { templateModel } from "./template_model.ts";
 * import { compileTemplate } from "../stubs/handlebars.ts";
 * const model = templateModel({
 *   method: "GET", target: "/users/7?x=1", pathname: "/users/7", rawQuery: "x=1", scheme: "http",
 *   header: () => null, headers: () => ({}), bodyText: () => "", params: { id: "7" },
 * });
 * compileTemplate("{{request.query.x}} {{params.id}}").render(model); // "1 7"
 * ```
 */
export function templateModel(source: TemplateRequest): TemplateModel {
  let path: string | undefined;
  let segments: string[] | undefined;
  let query: Record<string, Values> | undefined;
  let headers: Record<string, Values> | undefined;
  let cookies: Record<string, Values> | undefined;
  let body: string | undefined;
  let json: { value: unknown } | null | undefined;
  const hostPort = (): [string, string] => {
    const host = source.header("host") ?? "";
    const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
    return [m?.[1] ?? host, m?.[2] ?? (source.scheme === "https" ? "443" : "80")];
  };
  const parsed = (): { value: unknown } | null => {
    if (json !== undefined) return json;
    if (source.bodyJson) return json = source.bodyJson();
    const text = request.body;
    if (text === "" || nestedDeeperThan(text, MAX_JSON_DEPTH)) return json = null;
    try {
      return json = { value: JSON.parse(text) };
    } catch {
      return json = null;
    }
  };
  const request = {
    method: source.method,
    url: source.target,
    get path(): string {
      return path ??= source.pathname.split("/").map(decodePath).join("/");
    },
    get pathSegments(): string[] {
      return segments ??= source.pathname.split("/").filter((s) => s !== "").map(decodePath);
    },
    get query(): Record<string, Values> {
      if (query) return query;
      const params = new QueryParams(source.rawQuery);
      const lists = params.lists();
      query = Object.create(null) as Record<string, Values>;
      for (const name of Object.keys(lists)) query[name] = Values.from(lists[name]) as Values;
      return query;
    },
    get headers(): Record<string, Values> {
      if (headers) return headers;
      const all: Record<string, Values> = Object.create(null);
      for (const [name, value] of Object.entries(source.headers())) {
        all[name.toLowerCase()] = Values.of(value) as Values;
      }
      return headers = caseless(all);
    },
    get cookies(): Record<string, Values> {
      return cookies ??= cookiesOf(source.header("cookie"));
    },
    get body(): string {
      return body ??= source.bodyText();
    },
    get json(): unknown {
      return parsed()?.value ?? null;
    },
    scheme: source.scheme,
    get host(): string {
      return hostPort()[0];
    },
    get port(): string {
      return hostPort()[1];
    },
    get baseUrl(): string {
      return `${source.scheme}://${source.header("host") ?? ""}`;
    },
  };
  const params: Record<string, string> = Object.create(null);
  for (const name of Object.keys(source.params)) params[name] = source.params[name];
  const model = { request, params };
  documentCache.set(model, {
    text: () => request.body,
    json: () => {
      const found = parsed();
      return found === null ? undefined : found.value;
    },
  });
  return model;
}
