/**
 * Config files: text → raw document → {@link validateConfig}. YAML or JSON, chosen by the
 * file extension (`.json`, `.yaml`, `.yml`) or else by content. Every problem comes back
 * with its place already set, so the CLI prints `[ERROR] <place>: <message>` for each:
 * `stubs.yaml:4:7` for syntax errors, the file name for unreadable files and problems of
 * the file as a whole, `routes[2] (at stubs.yaml:9:5)` and `port (at stubs.yaml:1:1)` for
 * validation problems (the line and column of the field they are about).
 * @module
 */

import { NESTING_MESSAGE, tooDeep } from "../util/nesting.ts";
import { isObject } from "../util/json_shape.ts";
import { messageOf } from "../error_message.ts";
import { dirname, resolve } from "node:path";
import { duplicateKeyOffsets, mayHaveDuplicateKeys } from "./duplicate_keys.ts";
import { jsonRouteOffsets, lineFinder, yamlRouteOffsets } from "./entry_lines.ts";
import { type Config, type Problem, validateConfig } from "./validate.ts";
import { withTemplating } from "../templating/engine.ts";

/**
 * `npm:yaml`, loaded on first use: a JSON config never needs it (unless its syntax error
 * has to be located), and loading it costs every start 10-20 ms.
 */
function loadYaml(): Promise<typeof import("yaml")> {
  return import("yaml");
}

/** How a config text is parsed. */
export type ConfigFormat = "json" | "yaml";

/** A JSON syntax error: where (0-based offset into the text) and what. */
export interface JsonSyntaxError {
  offset: number;
  message: string;
}

/** The format named by a file's extension, or undefined when the extension says nothing. */
export function formatOfFile(file: string): ConfigFormat | undefined {
  const lower = file.toLowerCase();
  if (lower.endsWith(".json")) return "json";
  if (lower.endsWith(".yaml") || lower.endsWith(".yml")) return "yaml";
  return undefined;
}

/** 1-based line and column of a 0-based offset. */
export function lineAndColumn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let next = text.indexOf("\n"); next !== -1 && next < offset; next = text.indexOf("\n", next + 1)) {
    line++;
    lineStart = next + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/**
 * Parses strict JSON. On a syntax error, returns where it is and what is wrong. The
 * engine's message is used when it carries a position; otherwise the position (and
 * message) come from `npm:yaml`'s JSON-schema parser, which always locates its errors.
 *
 * @example
 * ```ts
 * import { parseJson } from "./config.ts";
 * const result = await parseJson('{"id": 1,}');
 * console.log("error" in result && result.error.offset); // 9
 * ```
 */
export async function parseJson(text: string): Promise<{ value: unknown } | { error: JsonSyntaxError }> {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    const raw = messageOf(error);
    const position = / at position (\d+)/.exec(raw);
    // `Unexpected token '}', "{"a":}" is not valid JSON`: drop the echoed text, keep the point.
    const message = raw.replace(/ in JSON at position \d+.*$/s, "").replace(/, ".*" is not valid JSON$/s, "");
    if (position) return { error: { offset: Number(position[1]), message } };
    if (/end of JSON input/.test(raw)) return { error: { offset: text.length, message } };
    const { parseDocument } = await loadYaml();
    const located = parseDocument(text, { schema: "json", prettyErrors: false }).errors[0];
    if (located) return { error: { offset: located.pos[0], message: located.message } };
    return { error: { offset: 0, message } };
  }
}

function syntaxProblem(file: string, text: string, offset: number, message: string): Problem {
  const { line, col } = lineAndColumn(text, offset);
  return { level: "error", place: `${file}:${line}:${col}`, message };
}

const DUPLICATE_KEY = "duplicate key: keys in one mapping must be unique";

/** Every reader after the parser recurses: a document nested past the limit stops there, placed. */
function nestingProblem(file: string, value: unknown): Problem | undefined {
  const deep = tooDeep(value);
  return deep === undefined ? undefined : { level: "error", place: `${file} ${deep}`, message: NESTING_MESSAGE };
}

async function parseJsonConfig(text: string, file: string): Promise<ParsedConfig> {
  const result = await parseJson(text);
  if ("error" in result) {
    const { offset, message } = result.error;
    // JSON-with-comments editors write these; the parser's own message would only say "Expected …".
    const at = text.slice(offset).trimStart();
    const comment = at.startsWith("//") || at.startsWith("/*");
    const where = comment ? offset + text.slice(offset).indexOf("/") : offset;
    return {
      problems: [
        syntaxProblem(
          file,
          text,
          where,
          comment ? "JSON has no comments: remove it (or write the file as YAML, where # starts a comment)" : message,
        ),
      ],
    };
  }
  const deep = nestingProblem(file, result.value);
  if (deep) return { problems: [deep] };
  const problems = mayHaveDuplicateKeys(text, result.value)
    ? duplicateKeyOffsets(text).map((offset) => syntaxProblem(file, text, offset, DUPLICATE_KEY))
    : [];
  if (problems.length) return { problems };
  return { raw: result.value, problems, routeLines: jsonRouteLines(text, result.value) };
}

/**
 * The line each `routes` entry of a JSON config starts on. Text on one line (a generated
 * config, as `JSON.stringify` writes it) needs no scan: every entry is on line 1.
 */
function jsonRouteLines(text: string, value: unknown): number[] {
  if (!text.includes("\n")) {
    const routes = isObject(value) && Array.isArray(value.routes) ? value.routes : [];
    return routes.map(() => 1);
  }
  const at = lineFinder(text);
  return jsonRouteOffsets(text).map((offset) => at(offset).line);
}

/**
 * `file:line:col` for an offset into `text`. Lines are counted here, not by npm:yaml's
 * LineCounter: it misses the line breaks inside a plain scalar in a broken flow collection,
 * and placed later errors past the end of their line.
 */
function placeFinder(text: string, file: string): (offset: number) => string {
  const at = lineFinder(text);
  return (offset: number) => {
    const { line, col } = at(offset);
    return `${file}:${line}:${col}`;
  };
}

/** What {@link parseConfigText} gives: the document, or the problems that stop it. */
export interface ParsedConfig {
  raw?: unknown;
  problems: Problem[];
  /**
   * The 1-based line each entry of the document's `routes` list starts on, in order (a
   * `Stub`'s `line`); an entry that cannot be placed has none. Absent when the text did not parse.
   */
  routeLines?: (number | undefined)[];
}

/**
 * A one-line hint for the YAML traps behind most syntax errors, from the line the first
 * error is on: a `{` in an unquoted value inside a `{…}` flow mapping, a tab in the
 * indentation, an unquoted value holding `: `.
 *
 * @example
 * ```ts
 * import { _yamlHint } from "./config.ts";
 * console.log(_yamlHint("  - {method: GET, path: /users/{id}}", "Unexpected flow-map-start at node end"));
 * // 'a "{" in an unquoted value inside a {…} mapping starts another mapping: quote the value, path: "/users/{id}"'
 * ```
 */
export function _yamlHint(line: string, message: string): string | undefined {
  if (/^\s*\t/.test(line) || /\btab/i.test(message)) {
    return "YAML indents with spaces only: replace the tab with spaces";
  }
  const flow = /[{,]\s*([\w.-]+):[ \t]+([^\s"'{}[\],][^,}]*\{[^,]*)/.exec(line);
  if (flow && /\{/.test(line.slice(0, flow.index + 1))) {
    const value = flow[2].replace(/}+\s*$/, (m) => m.slice(0, (flow[2].match(/\{/g) ?? []).length)).trim();
    return `a "{" in an unquoted value inside a {…} mapping starts another mapping: quote the value, ${flow[1]}: ` +
      JSON.stringify(value);
  }
  const colon = /^\s*(?:-\s+)?([\w.-]+):[ \t]+([^\s"'{[|>&*!#][^#]*?:\s.*)$/.exec(line);
  if (colon) {
    return `": " inside an unquoted value reads as a new key: quote the value, ${colon[1]}: ${
      JSON.stringify(colon[2].trim())
    }`;
  }
  return undefined;
}

async function parseYamlConfig(text: string, file: string): Promise<ParsedConfig> {
  const yaml = await loadYaml();
  const { parseDocument, visit, isScalar } = yaml;
  // Merge keys (`<<: *base`) are allowed. Duplicate keys are errors, found below: npm:yaml's
  // own check (uniqueKeys) compares each key with every earlier one, 5.6 s for 30,000 keys.
  // Source tokens kept for the `-` each routes entry starts at (yamlRouteOffsets).
  const doc = parseDocument(text, { merge: true, uniqueKeys: false, prettyErrors: false, keepSourceTokens: true });
  const at = lineFinder(text);
  const place = (offset: number) => {
    const { line, col } = at(offset);
    return `${file}:${line}:${col}`;
  };
  if (doc.errors.length) {
    // One mistake makes the parser report every token after it (46 errors for one unquoted
    // `{id}`): the first is the one to fix, with a hint when it is a common trap.
    const first = doc.errors[0];
    const offset = first.pos[0];
    const start = text.lastIndexOf("\n", offset - 1) + 1;
    const end = text.indexOf("\n", offset);
    const line = text.slice(start, end === -1 ? text.length : end).replace(/\r$/, "");
    const hint = _yamlHint(line, first.message);
    const more = doc.errors.length - 1;
    const message = `${first.message.replace(/\s+/g, " ").trim()}${hint ? `; ${hint}` : ""}${
      more ? ` (${more} later ${more === 1 ? "error follows" : "errors follow"} from it; fix this one first)` : ""
    }`;
    return { problems: [{ level: "error", place: place(offset), message }] };
  }
  const warnings: Problem[] = doc.warnings.map((w) => ({ level: "warn", place: place(w.pos[0]), message: w.message }));
  const found = doc.errors.map((e) => ({ offset: e.pos[0], message: e.message }));
  // One set of keys per mapping: linear in the number of keys.
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key, value } of map.items) {
        if (!isScalar(key) || key.value === "<<") continue;
        // `{id}` unquoted in a flow mapping is YAML for {id: null}, never what a stub means.
        if (map.flow && value === null && typeof key.value === "string" && /^[A-Za-z0-9_]+\*?$/.test(key.value)) {
          found.push({
            offset: key.range?.[0] ?? 0,
            message: `{${key.value}} is read by YAML as a mapping, not a placeholder: write "{${key.value}}" in quotes`,
          });
        }
        if (seen.has(key.value)) found.push({ offset: key.range?.[0] ?? 0, message: DUPLICATE_KEY });
        else seen.add(key.value);
      }
    },
  });
  if (found.length) {
    const errors: Problem[] = found.sort((a, b) => a.offset - b.offset)
      .map(({ offset, message }) => ({ level: "error", place: place(offset), message }));
    return { problems: [...errors, ...warnings] };
  }
  try {
    // The default maxAliasCount (100) stays: it stops "billion laughs" alias bombs.
    const raw = doc.toJS({ maxAliasCount: 100 });
    const routeLines = yamlRouteOffsets(doc, yaml).map((offset) => offset === undefined ? undefined : at(offset).line);
    return { raw, problems: warnings, routeLines };
  } catch (error) {
    const message = messageOf(error);
    return { problems: [{ level: "error", place: file, message }, ...warnings] };
  }
}

/**
 * Parses config text into a raw document (not yet validated). `file` names the text in
 * problem places and picks the format by extension; with another extension, text that
 * parses as JSON is JSON and anything else is YAML.
 *
 * @example
 * ```ts
 * import { parseConfigText } from "./config.ts";
 * const { problems } = await parseConfigText("routes:\n  - method: GET\n    method: POST\n", "stubs.yaml");
 * console.log(problems[0].place); // "stubs.yaml:3:5"
 * ```
 */
export async function parseConfigText(text: string, file: string): Promise<ParsedConfig> {
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  const format = formatOfFile(file);
  const asJson = format === "yaml" ? undefined : await parseJsonConfig(text, file);
  const parsed = asJson && (format === "json" || asJson.raw !== undefined) ? asJson : await parseYamlConfig(text, file);
  const deep = nestingProblem(file, parsed.raw);
  if (deep) return { problems: [deep] };
  // npm:yaml catches its own stack overflow on a deep document and reports it as a syntax error.
  return {
    ...parsed,
    problems: parsed.problems.map((p) =>
      /Maximum call stack size/.test(p.message) ? { ...p, message: NESTING_MESSAGE } : p
    ),
  };
}

/** A loaded config file: the config when it has no error, and every problem, placed. */
export interface LoadedConfig {
  config?: Config;
  problems: Problem[];
  /**
   * Places later problems about `routes[i]` (a check against an OpenAPI spec) at their line
   * and column, as the file's own problems are.
   */
  locate?: (problems: readonly Problem[]) => Promise<Problem[]>;
}

/**
 * Parses and validates config text. Problems carry their place: `<file>:<line>:<col>`
 * for syntax, `routes[i]` or `port` for fields, `<file>` for the document as a whole.
 *
 * @example
 * ```ts
 * import { loadConfigText } from "./config.ts";
 * const { config } = await loadConfigText("routes:\n  - {method: GET, path: /ping}\n", "stubs.yaml");
 * console.log(config?.routes.length); // 1
 * ```
 */
export async function loadConfigText(text: string, file: string): Promise<LoadedConfig> {
  const parsed = await parseConfigText(text, file);
  if (parsed.problems.some((p) => p.level === "error")) return { problems: parsed.problems };
  return validateParsedConfig(parsed, text, file);
}

/**
 * Validates what {@link parseConfigText} parsed, as a config file: ids must be unique, and
 * each problem of a stub (or of `port`, `cors`, …) is placed at the line and column of the
 * field it is about: `routes[2] (at stubs.yaml:7:5)`, as syntax errors are placed.
 */
export async function validateParsedConfig(
  parsed: ParsedConfig,
  text: string,
  file: string,
): Promise<LoadedConfig> {
  // `body_file` paths are relative to the config file's folder.
  // The template engine loads only when a stub uses it.
  const check = () => validateConfig(parsed.raw, { baseDir: dirname(resolve(file)), uniqueIds: true });
  const { config, problems } = await withTemplating(check, text);
  const located = problems.length ? await locateProblems(problems, text, file) : problems;
  // Each stub knows its place, so a 404 can say which of the file's stubs came close, and
  // its line, so the dashboard can say `stubs.yaml:12`.
  config?.routes.forEach((stub, i) => {
    stub.place = `routes[${i}] of ${file}`;
    const line = parsed.routeLines?.[i];
    if (line !== undefined) stub.line = line;
  });
  return {
    config,
    problems: [...parsed.problems, ...located.map((p) => ({ ...p, place: p.place ?? file }))],
    locate: (later) => later.length ? locateProblems(later, text, file) : Promise.resolve([]),
  };
}

/** A step of a field's path: a mapping key or a list index. */
type Step = string | number;

/** `routes[2].sequence[0]` → `["routes", 2, "sequence", 0]`. */
function stepsOf(path: string): Step[] {
  const steps: Step[] = [];
  for (const [, key, index] of path.matchAll(/\.?([^.[\]]+)|\[(\d+)\]/g)) {
    steps.push(index !== undefined ? Number(index) : key);
  }
  return steps;
}

/** The field a message is about: its leading `field.path[0]`, and the key an `unknown field 'x'` names. */
function fieldOfMessage(message: string): Step[] {
  if (message.startsWith("invalid method ")) return ["method"];
  // A check against an OpenAPI spec names the stub first: `GET /users/{id}: body at /id must …`.
  message = message.replace(/^[A-Z]+ \S+: /, "");
  const lead = message.startsWith("unknown ")
    ? ""
    : /^([A-Za-z_][A-Za-z0-9_]*(?:\[\d+\]|\.[^\s.[:]+)*)/.exec(message)?.[1] ?? "";
  const steps = stepsOf(lead);
  const rest = message.slice(lead.length);
  const named = /^:? ?(?:unknown [a-z -]+ '([^']*)'|'([^']*)' is not a valid header name)/.exec(rest);
  if (named) steps.push(named[1] ?? named[2]);
  return steps;
}

/**
 * Adds `file:line:col` to the place of each problem about a field of the document, pointing
 * at the deepest part of the field's path the file has (a key, a list item, or the stub).
 */
async function locateProblems(problems: readonly Problem[], text: string, file: string): Promise<Problem[]> {
  if (text.startsWith("\uFEFF")) text = text.slice(1); // as parseConfigText reads it
  const yaml = await loadYaml();
  // Parsed again, only when there are problems to place: the first parse's tree is not kept
  // through validation, so a clean config of thousands of stubs loads in no more memory.
  const doc = yaml.parseDocument(text, { merge: true, uniqueKeys: false, prettyErrors: false });
  const place = placeFinder(text, file);
  const offsetOf = (steps: readonly Step[]): number | undefined => {
    let node: unknown = doc.contents;
    let offset: number | undefined;
    for (const step of steps) {
      if (yaml.isMap(node)) {
        const pair = node.items.find((item) => yaml.isScalar(item.key) && String(item.key.value) === String(step));
        if (!pair) break;
        offset = (pair.key as { range?: [number, number, number] }).range?.[0] ?? offset;
        node = pair.value;
      } else if (yaml.isSeq(node) && typeof step === "number") {
        const item = node.items[step];
        if (!item) break;
        offset = (item as { range?: [number, number, number] }).range?.[0] ?? offset;
        node = item;
      } else break;
    }
    return offset;
  };
  return problems.map((problem) => {
    const unknownTop = problem.place === undefined && /^unknown top-level key '([^']*)'/.exec(problem.message);
    if (unknownTop) {
      const offset = offsetOf([unknownTop[1]]);
      return offset === undefined ? problem : { ...problem, message: `${problem.message} (at ${place(offset)})` };
    }
    if (
      problem.place === undefined || !/^(routes\[\d+\]|port|cors|proxy_unmatched|wiremock)(?![^.[])/.test(problem.place)
    ) {
      return problem;
    }
    const steps = stepsOf(problem.place);
    const offset = offsetOf(steps[0] === "routes" ? [...steps, ...fieldOfMessage(problem.message)] : steps);
    // The place stays first (`routes[2]: …`, as validate has always printed it); where it is in the file follows.
    return offset === undefined ? problem : { ...problem, message: `${problem.message} (at ${place(offset)})` };
  });
}

/** Why a file could not be read, in a few words: `no such file`, `permission denied`. */
export function describeReadError(error: unknown): string {
  const code = (error as { code?: string })?.code;
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory, not a file";
    default:
      return messageOf(error);
  }
}

/**
 * Reads a UTF-8 text file; rejects with an error whose `code` names the OS error
 * (`ENOENT`, `EACCES`, `EISDIR`), as {@link describeReadError} expects.
 */
export type ReadTextFile = (path: string) => Promise<string>;

/** `node:fs/promises` `readFile`, loaded on first use: the CLI on Deno reads through its Deno host instead. */
async function readWithNode(path: string): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  return readFile(path, "utf8");
}

/**
 * Reads, parses and validates a config file. An unreadable file is one problem placed at
 * the file name (`stubs.yaml: no such file`). `readTextFile` reads it; by default
 * `node:fs/promises` (the CLI passes its host's, so Deno need not load Node's file system).
 *
 * @example
 * ```ts
 * import { loadConfigFile } from "./config.ts";
 * const { problems } = await loadConfigFile("/no/such/stubs.yaml");
 * console.log(problems[0].message); // "no such file"
 * ```
 */
export async function loadConfigFile(
  file: string,
  readTextFile: ReadTextFile = readWithNode,
): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readTextFile(file);
  } catch (error) {
    return { problems: [{ level: "error", place: file, message: describeReadError(error) }] };
  }
  return loadConfigText(text, file);
}
