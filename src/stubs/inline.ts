/**
 * Inline stubs, as `serve --stub` takes them:
 *
 * ```
 * METHOD SP path SP "->" SP STATUS [SP json]
 * ```
 *
 * Whitespace around `->` is optional (`GET /x->200`); the path ends at the first
 * whitespace or `->`; the JSON body is the rest of the text. For anything more (request
 * conditions, response headers, a scope), a stub may also be written as one YAML flow
 * mapping in config form: `{method: GET, path: /a, request: {headers: {x-env: prod}}}`. The parsed pieces become a
 * raw config-style stub and go through the same {@link validateStub} as config files, so
 * every rule and message is shared. Errors name the column (1-based) they point at.
 * @module
 */

import type { CompiledStub } from "./model.ts";
import { parseConfigText, parseJson } from "./config.ts";
import { findShadowedStubs, type Problem, validateStub } from "./validate.ts";
import { withTemplating } from "../templating/engine.ts";

/** A raw stub parsed from inline text, with the column where each part starts. */
export interface InlineParts {
  /** The stub in config form. */
  raw: Record<string, unknown>;
  /** Where each part starts; absent for a stub written as a mapping. */
  columns?: { method: number; path: number; status: number; body?: number };
}

/** What is wrong with an inline stub, and at which column (1-based). */
export interface InlineError {
  column: number;
  message: string;
}

const SPACE = /\s/;
const EXAMPLE = `for example "GET /users/{id} -> 200 {\\"id\\": \\"{id}\\"}"`;

/**
 * Splits inline stub text into its parts (no validation of the values yet).
 *
 * @example
 * ```ts
 * import { parseInlineStub } from "./inline.ts";
 * const parsed = await parseInlineStub('POST /orders -> 201 {"id": "o-1"}');
 * console.log("raw" in parsed && parsed.raw.status); // 201
 * ```
 */
export async function parseInlineStub(text: string): Promise<InlineParts | { error: InlineError }> {
  if (text.trimStart().startsWith("{")) return parseMapping(text);
  const at = new Cursor(text);
  at.skipSpace();
  const method = readMethod(at);
  if (typeof method !== "string") return method;
  const methodAt = at.start;

  at.skipSpace();
  const path = at.word(true);
  const pathAt = at.start;
  if (path === "") return at.fail(`expected a path starting with '/' before '->'`);

  at.skipSpace();
  if (!text.startsWith("->", at.i)) {
    return at.fail(at.i === text.length ? `expected '-> STATUS' after the path` : `expected '->' after the path`);
  }
  at.i += 2;

  at.skipSpace();
  const status = readStatus(at);
  if (typeof status !== "number") return status;
  const statusAt = at.start;

  at.skipSpace();
  const raw: InlineParts["raw"] = { method, path, status };
  const columns: NonNullable<InlineParts["columns"]> = { method: methodAt + 1, path: pathAt + 1, status: statusAt + 1 };
  const rest = text.slice(at.i).trimEnd();
  if (rest !== "") {
    const parsed = await parseJson(rest);
    if ("error" in parsed) {
      return {
        error: { column: at.i + parsed.error.offset + 1, message: `invalid JSON body: ${parsed.error.message}` },
      };
    }
    raw.body = parsed.value;
    columns.body = at.i + 1;
  }
  return { raw, columns };
}

/** Where reading inline stub text has got to; failures name that column. */
class Cursor {
  /** The next character to read. */
  i = 0;
  /** Where the last {@link Cursor.word} started. */
  start = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    while (this.i < this.text.length && SPACE.test(this.text[this.i])) this.i++;
  }

  /** The text up to the next white space (or `->`, with `arrow`), read. */
  word(arrow = false): string {
    this.start = this.i;
    while (
      this.i < this.text.length && !SPACE.test(this.text[this.i]) && !(arrow && this.text.startsWith("->", this.i))
    ) this.i++;
    return this.text.slice(this.start, this.i);
  }

  fail(message: string): { error: InlineError } {
    return { error: { column: this.i + 1, message } };
  }
}

/** The method word, or why it is not one (a path where the method goes, no space before the path). */
function readMethod(at: Cursor): string | { error: InlineError } {
  const method = at.word();
  const methodAt = at.start;
  if (method === "") return at.fail(`expected a method, ${EXAMPLE}`);
  if (method.startsWith("/")) {
    at.i = methodAt;
    return at.fail(`expected a method before the path, ${EXAMPLE}`);
  }
  if (method.includes("/") || method.includes("->")) {
    at.i = methodAt + Math.min(...["/", "->"].map((c) => method.indexOf(c)).filter((n) => n > 0), method.length);
    return at.fail(`expected a space between the method and the path, ${EXAMPLE}`);
  }
  if (at.i === at.text.length) return at.fail(`expected a path after the method '${method}', ${EXAMPLE}`);
  return method;
}

/** The status code after `->`, or why the word there is not one. */
function readStatus(at: Cursor): number | { error: InlineError } {
  const token = at.word();
  const statusAt = at.start;
  const digits = /^[0-9]*/.exec(token)![0];
  if (token === "") return at.fail("expected a status code after '->', such as 200");
  if (digits !== token) {
    if (digits !== "" && /^[{["]/.test(token.slice(digits.length))) {
      at.i = statusAt + digits.length;
      return at.fail(`expected a space between the status ${digits} and the JSON body`);
    }
    at.i = statusAt;
    return at.fail(`expected a status code after '->', such as 200, got '${token}'`);
  }
  return Number(digits);
}

/** `{method: GET, path: /a, ...}`: one stub in config form, as a YAML flow mapping. */
async function parseMapping(text: string): Promise<InlineParts | { error: InlineError }> {
  const { raw, problems } = await parseConfigText(text, "--stub.yaml");
  const problem = problems.find((p) => p.level === "error");
  if (problem) {
    const column = /:\d+:(\d+)$/.exec(problem.place ?? "")?.[1];
    return { error: { column: column ? Number(column) : 1, message: `invalid YAML mapping: ${problem.message}` } };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      error: { column: 1, message: "expected one stub as a mapping, like {method: GET, path: /a, status: 200}" },
    };
  }
  return { raw: raw as Record<string, unknown> };
}

/** The column a validation message is about, from the field it starts with. */
function columnOf(message: string, columns: NonNullable<InlineParts["columns"]>): number {
  const field = /^[a-z_]+/.exec(message)?.[0];
  switch (field) {
    case "path":
    case "placeholder":
    case "query":
      return columns.path;
    case "status":
      return columns.status;
    case "body":
      return columns.body ?? columns.status;
    default:
      return columns.method;
  }
}

/**
 * Parses and validates one inline stub. Problems are messages `column <n>: <message>`.
 *
 * @example
 * ```ts
 * import { inlineStub } from "./inline.ts";
 * console.log((await inlineStub("FETCH /x -> 200")).errors[0]);
 * // "column 1: invalid method 'FETCH' (allowed: DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)"
 * ```
 */
export async function inlineStub(text: string): Promise<{ stub?: CompiledStub; errors: string[] }> {
  const parsed = await parseInlineStub(text);
  if ("error" in parsed) return { errors: [`column ${parsed.error.column}: ${parsed.error.message}`] };
  const { stub, errors } = await withTemplating(() => validateStub(parsed.raw), text);
  const columns = parsed.columns;
  // A stub written as a mapping: its problems are about the whole of it, from its opening brace.
  if (!columns) return { stub, errors: errors.map((message) => `column ${text.indexOf("{") + 1}: ${message}`) };
  return { stub, errors: errors.map((message) => `column ${columnOf(message, columns)}: ${message}`) };
}

/**
 * Parses and validates the `--stub` values in order. Problems are placed at `--stub[i]`;
 * stubs that another always wins over become `[WARN]` problems, as in config files: the
 * `--stub`s are a later batch than `before` (the config), so they win ties with it.
 *
 * @example
 * ```ts
 * import { inlineStubs } from "./inline.ts";
 * const { stubs, problems } = await inlineStubs(["GET /x->200", "DELETE /x/{id} -> 204"]);
 * console.log(stubs.length, problems.length); // 2 0
 * ```
 */
export async function inlineStubs(
  texts: readonly string[],
  before: { stubs: readonly CompiledStub[]; places: readonly string[] | ((index: number) => string) } = {
    stubs: [],
    places: [],
  },
): Promise<{ stubs: CompiledStub[]; problems: Problem[] }> {
  // Without inline stubs there is nothing to check, and `before` may hold thousands.
  if (texts.length === 0) return { stubs: [], problems: [] };
  const stubs: CompiledStub[] = [];
  const problems: Problem[] = [];
  for (const [i, text] of texts.entries()) {
    const { stub, errors } = await inlineStub(text);
    for (const message of errors) problems.push({ level: "error", place: `--stub[${i}]`, message });
    if (stub) stubs.push({ ...stub, place: `--stub[${i}]` });
  }
  if (problems.length) return { stubs: [], problems };
  const count = before.stubs.length;
  const { places } = before;
  const placeBefore = typeof places === "function" ? places : (i: number) => places[i];
  const placeOf = (i: number) => i < count ? placeBefore(i) : `--stub[${i - count}]`;
  // `--stub`s are a later batch than the config: they win over its stubs of the same pattern.
  const shadowed = findShadowedStubs([...before.stubs, ...stubs], placeOf, (i) => i < count ? 0 : 1);
  // The config's own warnings were printed with it; new ones are about the --stubs or what they override.
  problems.push(
    ...shadowed.filter((p) => p.place?.startsWith("--stub[") || p.message.includes("by --stub[")),
  );
  return { stubs, problems };
}
