/**
 * A request as matching reads it: method, path, the query parsed once, headers by name,
 * and the body once it has been read. Everything is worked out on first use, so a
 * request that only a path-only stub answers costs no query parse, no header read and no
 * body read.
 * @module
 */

import type { Incoming } from "./incoming.ts";
import { parseXml, type XmlNode } from "../templating/xml.ts";
import { multipartBoundary, type MultipartParse, parseMultipart } from "../util/multipart.ts";

/** Decodes one `application/x-www-form-urlencoded` name or value (`+` is a space; a malformed escape stays). */
export function formDecode(text: string): string {
  if (!text.includes("%") && !text.includes("+")) return text;
  return new URLSearchParams("v=" + text).get("v") ?? text;
}

/**
 * A query string (or form body) parsed once into name → values, each value kept both
 * decoded (for matching and bodies) and as sent (for header values).
 */
export class QueryParams {
  readonly #raw: string;
  #values: Map<string, string[]> | undefined;
  #raws: Map<string, string[]> | undefined;

  constructor(raw: string) {
    this.#raw = raw;
  }

  #parse(): void {
    const values = new Map<string, string[]>();
    const raws = new Map<string, string[]>();
    if (this.#raw !== "") {
      for (const piece of this.#raw.split("&")) {
        if (piece === "") continue;
        const eq = piece.indexOf("=");
        const name = formDecode(eq === -1 ? piece : piece.slice(0, eq));
        const raw = eq === -1 ? "" : piece.slice(eq + 1);
        const list = values.get(name);
        if (list) {
          list.push(formDecode(raw));
          raws.get(name)!.push(raw);
        } else {
          values.set(name, [formDecode(raw)]);
          raws.set(name, [raw]);
        }
      }
    }
    this.#values = values;
    this.#raws = raws;
  }

  /** Every decoded value given for `name`, in order; undefined when it is absent. */
  all(name: string): readonly string[] | undefined {
    if (!this.#values) this.#parse();
    return this.#values!.get(name);
  }

  /** The `index`-th value of `name` as sent (still percent-encoded). */
  raw(name: string, index: number): string {
    if (!this.#raws) this.#parse();
    return this.#raws!.get(name)?.[index] ?? "";
  }

  /** name → every decoded value (response functions' `queryParams`). */
  lists(): Record<string, string[]> {
    if (!this.#values) this.#parse();
    const out: Record<string, string[]> = Object.create(null);
    for (const [name, list] of this.#values!) out[name] = list.slice();
    return out;
  }
}

const utf8 = new TextDecoder();

/** JSON nested deeper than this is not parsed: parsing and writing back a 5M-deep array takes seconds. */
export const MAX_JSON_DEPTH = 1000;

/**
 * Is `text` nested deeper than `max` arrays and objects (outside strings)? One pass over
 * the text, done only for bodies large enough to hold such nesting.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  if (text.length <= max * 2) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/** A request body that has been read (whole, or its first bytes when cut at a limit). */
export class BodyView {
  /** The bytes read. */
  readonly bytes: Uint8Array;
  /** False when the body was longer than what was read. */
  readonly complete: boolean;
  readonly #contentType: string | null;
  #text: string | undefined;
  #json: { value: unknown } | null | undefined;
  #form: QueryParams | null | undefined;
  #multipart: MultipartParse | null | undefined;
  #tooDeep: boolean | undefined;
  #xml: { doc: XmlNode } | { problem: string } | undefined;

  constructor(bytes: Uint8Array, complete: boolean, contentType: string | null) {
    this.bytes = bytes;
    this.complete = complete;
    this.#contentType = contentType;
  }

  /** The body as UTF-8 text (invalid sequences become U+FFFD). */
  text(): string {
    return this.#text ??= utf8.decode(this.bytes);
  }

  /** The body parsed as JSON, or null when it is empty, not JSON, or nested deeper than {@link MAX_JSON_DEPTH}. */
  json(): { value: unknown } | null {
    if (this.#json !== undefined) return this.#json;
    if (this.bytes.byteLength === 0 || this.tooDeep) return this.#json = null;
    try {
      return this.#json = { value: JSON.parse(this.text()) };
    } catch {
      return this.#json = null;
    }
  }

  /** The body parsed as XML (bounded: see `src/templating/xml.ts`), or why it is not read as XML; parsed once. */
  xml(): { doc: XmlNode } | { problem: string } {
    if (this.#xml !== undefined) return this.#xml;
    if (this.bytes.byteLength === 0) return this.#xml = { problem: "is empty" };
    return this.#xml = parseXml(this.text());
  }

  /** Is the body JSON-like text nested deeper than {@link MAX_JSON_DEPTH} (so it is not parsed)? */
  get tooDeep(): boolean {
    return this.#tooDeep ??= nestedDeeperThan(this.text(), MAX_JSON_DEPTH);
  }

  /**
   * The body as form fields, or null when its content type says it is something else
   * (a body without a content type is read as a form).
   */
  form(): QueryParams | null {
    if (this.#form !== undefined) return this.#form;
    const type = this.#contentType?.split(";")[0].trim().toLowerCase();
    if (type !== undefined && type !== "" && type !== "application/x-www-form-urlencoded") return this.#form = null;
    return this.#form = new QueryParams(this.text());
  }

  /**
   * The body split into parts, parsed on first use, when its content type is `multipart/*`
   * with a boundary (else null); a body cut at the limit, or one not well formed, gives a problem.
   */
  multipart(): MultipartParse | null {
    if (this.#multipart !== undefined) return this.#multipart;
    const boundary = multipartBoundary(this.#contentType);
    if (boundary === undefined) return this.#multipart = null;
    if (!this.complete) return this.#multipart = { problem: "the body is larger than the body limit" };
    return this.#multipart = parseMultipart(this.bytes, boundary);
  }

  /** The content type the request declared, or null. */
  get contentType(): string | null {
    return this.#contentType;
  }
}

/** The request as the router and the conditions read it. */
export class RequestView {
  /** The request method as sent. */
  readonly method: string;
  /** The path as sent (percent-encoded), without the query. */
  readonly pathname: string;
  /** The query string as sent, without `?`. */
  readonly rawQuery: string;
  /** The body, once read; undefined before (conditions that need it make the handler read it). */
  body: BodyView | undefined;
  /** The scope the request carries (`x-stubtool-scope`), when the handler read it. */
  scope: string | null = null;
  readonly #incoming: Pick<Incoming, "header" | "headerLines" | "repeatsHeaders">;
  #query: QueryParams | undefined;
  #repeated: Map<string, string[]> | null | undefined;

  constructor(
    incoming: Pick<Incoming, "header" | "headerLines" | "repeatsHeaders">,
    method: string,
    pathname: string,
    rawQuery: string,
  ) {
    this.#incoming = incoming;
    this.method = method;
    this.pathname = pathname;
    this.rawQuery = rawQuery;
  }

  /** The query, parsed on first use. */
  get query(): QueryParams {
    return this.#query ??= new QueryParams(this.rawQuery);
  }

  /**
   * Each line of a request header by lower-case name, in order, or null when it is absent.
   * A wire that joins the lines (`Deno.serve`) gives their joined value as one line.
   */
  headerValues(name: string): string[] | null {
    const lines = this.#incoming.headerLines?.();
    if (!lines) {
      const value = this.header(name);
      return value === null ? null : [value];
    }
    const out: string[] = [];
    for (let i = 0; i + 1 < lines.length; i += 2) if (lines[i].toLowerCase() === name) out.push(lines[i + 1]);
    return out.length ? out : null;
  }

  /**
   * The lines of a request header sent on more than one line, by lower-case name, in order;
   * undefined when it came on one line (or none), or the wire joins the lines (`Deno.serve`).
   * A request whose headers each come once costs one check (the wire's
   * {@link Incoming.repeatsHeaders}), never a walk over its lines.
   */
  repeatedHeader(name: string): readonly string[] | undefined {
    if (this.#repeated === undefined) {
      const repeats = this.#incoming.repeatsHeaders?.() ?? this.#incoming.headerLines !== undefined;
      const lines = repeats ? this.#incoming.headerLines?.() : undefined;
      this.#repeated = lines ? repeatedLines(lines) : null;
    }
    return this.#repeated?.get(name);
  }

  /** One request header by lower-case name (several values joined by `, `), or null. */
  header(name: string): string | null {
    return this.#incoming.header(name);
  }
}

/** The headers among `[name, value, …]` lines that come on more than one line: lower-case name → their values. */
function repeatedLines(lines: readonly string[]): Map<string, string[]> | null {
  const all = new Map<string, string[]>();
  let repeated = false;
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const name = lines[i].toLowerCase();
    const list = all.get(name);
    if (list) {
      list.push(lines[i + 1]);
      repeated = true;
    } else all.set(name, [lines[i + 1]]);
  }
  if (!repeated) return null;
  for (const [name, list] of all) if (list.length < 2) all.delete(name);
  return all;
}
