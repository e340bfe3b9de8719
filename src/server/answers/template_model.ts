/**
 * The request as a response template reads it (`request.method`, `request.query.NAME`,
 * `params.NAME`, …), with WireMock's names and shapes. Each part is worked out only when a
 * template reads it, so rendering never pays for a header parse or a body decode it does not
 * use. Every part is data: own properties of plain objects, never code.
 * @module
 */

import { REQUEST_DOCUMENT, type RequestDocument, type TemplateModel, Values } from "../../templating/handlebars.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan, QueryParams } from "../request_view.ts";

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
  /** The path placeholders of the matched stub, by name, as sent (not decoded; WireMock's `request.path.NAME`). */
  readonly pathParams?: Readonly<Record<string, string>>;
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze(Object.create(null));

function decodePath(segment: string): string {
  if (!segment.includes("%")) return segment;
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
 * `request` in a template. Cheap fields are own properties; the rest are getters that work
 * their value out on first read (Handlebars reads exactly these getters through its
 * prototype guard: {@link MODEL_GETTERS}).
 */
class RequestModel implements RequestDocument {
  readonly method: string;
  readonly url: string;
  readonly scheme: string;
  readonly #source: TemplateRequest;
  #path: string | undefined;
  #segments: string[] | undefined;
  #query: Record<string, Values> | undefined;
  #headers: Record<string, Values> | undefined;
  #cookies: Record<string, Values> | undefined;
  #body: string | undefined;
  #json: { value: unknown } | null | undefined;

  constructor(source: TemplateRequest) {
    this.#source = source;
    this.method = source.method;
    this.url = source.target;
    this.scheme = source.scheme;
  }
  get path(): string {
    return this.#path ??= this.#source.pathname.split("/").map(decodePath).join("/");
  }
  /** The path placeholders as sent; templates read them as `request.path.NAME` (the compiler rewrites it). */
  get pathParams(): Readonly<Record<string, string>> {
    return this.#source.pathParams ?? EMPTY;
  }
  get pathSegments(): string[] {
    return this.#segments ??= this.#source.pathname.split("/").filter((s) => s !== "").map(decodePath);
  }
  get query(): Record<string, Values> {
    if (this.#query) return this.#query;
    const lists = new QueryParams(this.#source.rawQuery).lists();
    const query: Record<string, Values> = Object.create(null);
    for (const name of Object.keys(lists)) query[name] = Values.from(lists[name]) as Values;
    return this.#query = query;
  }
  get headers(): Record<string, Values> {
    if (this.#headers) return this.#headers;
    const all: Record<string, Values> = Object.create(null);
    for (const [name, value] of Object.entries(this.#source.headers())) {
      all[name.toLowerCase()] = Values.of(value) as Values;
    }
    return this.#headers = caseless(all);
  }
  get cookies(): Record<string, Values> {
    return this.#cookies ??= cookiesOf(this.#source.header("cookie"));
  }
  get body(): string {
    return this.#body ??= this.#source.bodyText();
  }
  get json(): unknown {
    return this.#parsed()?.value ?? null;
  }
  get host(): string {
    return this.#hostPort()[0];
  }
  get port(): string {
    return this.#hostPort()[1];
  }
  get baseUrl(): string {
    return `${this.scheme}://${this.#source.header("host") ?? ""}`;
  }
  /** The body text, for `jsonPath` (not readable from a template: Handlebars refuses prototype methods). */
  text(): string {
    return this.body;
  }
  /** The body's JSON parse, or undefined, for `jsonPath`. */
  parse(): unknown {
    return this.#parsed()?.value;
  }
  #hostPort(): [string, string] {
    const host = this.#source.header("host") ?? "";
    const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
    return [m?.[1] ?? host, m?.[2] ?? (this.scheme === "https" ? "443" : "80")];
  }
  #parsed(): { value: unknown } | null {
    if (this.#json !== undefined) return this.#json;
    if (this.#source.bodyJson) return this.#json = this.#source.bodyJson();
    const text = this.body;
    if (text === "" || nestedDeeperThan(text, MAX_JSON_DEPTH)) return this.#json = null;
    try {
      return this.#json = { value: JSON.parse(text) };
    } catch {
      return this.#json = null;
    }
  }
}

/**
 * Builds the model a template renders against: `{ request, params }`. `request` has
 * `method`, `url`, `path` (decoded), `pathSegments`, `query`, `headers` (any case),
 * `cookies`, `body`, `json`, `scheme`, `host`, `port` and `baseUrl`; query, header and
 * cookie values are lists that print as their first value (`.[1]` reads the second).
 * Nothing is parsed or read until a template asks for it.
 *
 * @example
 * ```ts
 * import { templateModel } from "./template_model.ts";
 * import { compileTemplate } from "../../templating/handlebars.ts";
 * import { loadTemplating } from "../../templating/engine.ts";
 * await loadTemplating(); // the engine loads on demand (a server loads it before it checks stubs)
 * const model = templateModel({
 *   method: "GET", target: "/users/7?x=1", pathname: "/users/7", rawQuery: "x=1", scheme: "http",
 *   header: () => null, headers: () => ({}), bodyText: () => "", params: { id: "7" },
 * });
 * compileTemplate("{{request.query.x}} {{params.id}}").render(model); // "1 7"
 * ```
 */
export function templateModel(source: TemplateRequest): TemplateModel {
  const request = new RequestModel(source);
  return { request, params: source.params, [REQUEST_DOCUMENT]: request };
}
