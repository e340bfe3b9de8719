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

import type { Stub } from "./model.ts";
import { parseConfigText, parseJson } from "./config.ts";
import { findShadowedStubs, type Problem, validateStub } from "./validate.ts";

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
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && SPACE.test(text[i])) i++;
  };
  const fail = (message: string) => ({ error: { column: i + 1, message } });

  skipSpace();
  const methodAt = i;
  while (i < text.length && !SPACE.test(text[i])) i++;
  const method = text.slice(methodAt, i);
  if (method === "") return fail(`expected a method, ${EXAMPLE}`);
  if (method.startsWith("/")) {
    i = methodAt;
    return fail(`expected a method before the path, ${EXAMPLE}`);
  }
  if (method.includes("/") || method.includes("->")) {
    i = methodAt + Math.min(...["/", "->"].map((c) => method.indexOf(c)).filter((n) => n > 0), method.length);
    return fail(`expected a space between the method and the path, ${EXAMPLE}`);
  }
  if (i === text.length) return fail(`expected a path after the method '${method}', ${EXAMPLE}`);

  skipSpace();
  const pathAt = i;
  while (i < text.length && !SPACE.test(text[i]) && !text.startsWith("->", i)) i++;
  const path = text.slice(pathAt, i);
  if (path === "") return fail(`expected a path starting with '/' before '->'`);

  skipSpace();
  if (!text.startsWith("->", i)) {
    return fail(i === text.length ? `expected '-> STATUS' after the path` : `expected '->' after the path`);
  }
  i += 2;

  skipSpace();
  const statusAt = i;
  while (i < text.length && !SPACE.test(text[i])) i++;
  const token = text.slice(statusAt, i);
  const digits = /^[0-9]*/.exec(token)![0];
  if (token === "") return fail("expected a status code after '->', such as 200");
  if (digits !== token) {
    if (digits !== "" && /^[{["]/.test(token.slice(digits.length))) {
      i = statusAt + digits.length;
      return fail(`expected a space between the status ${digits} and the JSON body`);
    }
    i = statusAt;
    return fail(`expected a status code after '->', such as 200, got '${token}'`);
  }

  skipSpace();
  const raw: InlineParts["raw"] = { method, path, status: Number(digits) };
  const columns: NonNullable<InlineParts["columns"]> = { method: methodAt + 1, path: pathAt + 1, status: statusAt + 1 };
  const rest = text.slice(i).trimEnd();
  if (rest !== "") {
    const parsed = await parseJson(rest);
    if ("error" in parsed) {
      return { error: { column: i + parsed.error.offset + 1, message: `invalid JSON body: ${parsed.error.message}` } };
    }
    raw.body = parsed.value;
    columns.body = i + 1;
  }
  return { raw, columns };
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
export async function inlineStub(text: string): Promise<{ stub?: Stub; errors: string[] }> {
  const parsed = await parseInlineStub(text);
  if ("error" in parsed) return { errors: [`column ${parsed.error.column}: ${parsed.error.message}`] };
  const { stub, errors } = validateStub(parsed.raw);
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
  before: { stubs: readonly Stub[]; places: readonly string[] | ((index: number) => string) } = {
    stubs: [],
    places: [],
  },
): Promise<{ stubs: Stub[]; problems: Problem[] }> {
  // Without inline stubs there is nothing to check, and `before` may hold thousands.
  if (texts.length === 0) return { stubs: [], problems: [] };
  const stubs: Stub[] = [];
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
