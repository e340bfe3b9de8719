/**
 * JSONPath as WireMock's `jsonPath` helper reads it (Jayway's dialect), on top of
 * jsonpath-plus. Filters (`[?(@.kind == 'x')]`) are evaluated by a small interpreter of
 * comparisons and `&&` / `||` / `!`, never by JavaScript evaluation, so a path can only read
 * the document it is given.
 * @module
 */

import { engine } from "./engine.ts";
import { compileRegex, type LinearRegex } from "../util/regex.ts";

/** What a path found: nothing, one value (a definite path), or a list (a path with filters, wildcards or `..`). */
export type PathResult = { kind: "none" } | { kind: "value"; value: unknown } | { kind: "list"; values: unknown[] };

/** Does the path select a list in Jayway's terms (deep scan, wildcard, filter, slice or union)? */
function indefinite(path: string): boolean {
  return /\.\.|\*|\[\s*\?|\[[^\]'"]*[:,][^\]]*\]/.test(path);
}

/**
 * Evaluates `path` on `document` the way Jayway does: a definite path gives its value (or
 * nothing), an indefinite one always a list. A filter applied to the root object tests the
 * object itself, as Jayway does (`$.[?(@.kind == 'x')]`). Throws a `SyntaxError` for a path
 * or filter it cannot read.
 */
export function evaluatePath(document: unknown, path: string, maxWork = Infinity): PathResult {
  // Jayway's `length()` function at the end: the size of the list, text or object found.
  const length = /^(.+?)\.length\(\s*\)\s*$/.exec(path.trim());
  if (length) {
    const found = evaluatePath(document, length[1], maxWork);
    if (found.kind === "list") return { kind: "value", value: found.values.length };
    const value = found.kind === "value" ? found.value : undefined;
    if (typeof value === "string" || Array.isArray(value)) return { kind: "value", value: value.length };
    if (value !== null && typeof value === "object") return { kind: "value", value: Object.keys(value).length };
    return { kind: "none" };
  }
  let json = document;
  let expression = path.trim();
  const rootFilter = /^\$\.?\[\s*\?/.exec(expression);
  if (rootFilter && json !== null && typeof json === "object" && !Array.isArray(json)) {
    json = [json];
    expression = "$[" + expression.slice(rootFilter[0].length - 1);
  }
  if (json === null || typeof json !== "object") {
    if (expression === "$") return { kind: "value", value: json };
    return indefinite(expression) ? { kind: "list", values: [] } : { kind: "none" };
  }
  const scans = expression.split("..").length - 1;
  if (scans > 0 && Number.isFinite(maxWork)) {
    const { visits, depth } = shape(json as object, maxWork);
    // Each `..` visits every node below it, carrying its path: work grows with nodes × depth.
    const work = visits * depth ** (scans - 1);
    if (work > maxWork) throw new JsonPathWorkError(work, maxWork);
  }
  let values: unknown[];
  let results = 0;
  const callback = Number.isFinite(maxWork)
    ? () => {
      if (++results > maxWork) throw new JsonPathWorkError(results, maxWork);
    }
    : undefined;
  const { jsonPath } = engine("jsonpath");
  try {
    values = jsonPath({
      path: expression,
      json: json as object,
      eval: FilterScript,
      wrap: true,
      callback,
    }) as unknown[];
  } catch (e) {
    if (e instanceof JsonPathWorkError) throw e;
    throw new SyntaxError(`JSONPath ${JSON.stringify(path)}: ${(e as Error).message}`);
  }
  if (indefinite(expression)) return { kind: "list", values };
  return values.length === 0 ? { kind: "none" } : { kind: "value", value: values[0] };
}

/** A path that would do more work than allowed (`maxWork` of {@link evaluatePath}). */
export class JsonPathWorkError extends Error {
  constructor(work: number, limit: number) {
    super(`the path would do ${work > limit * 10 ? "far " : ""}more than ${limit} units of work (the JSONPath limit)`);
    this.name = "JsonPathWorkError";
  }
}

const SHAPES = new WeakMap<object, { visits: number; depth: number; complete: boolean }>();

/**
 * A document's deep-scan cost: the sum over its nodes of their depth, and its depth
 * (iterative, cached); the count stops once past `limit`.
 */
function shape(root: object, limit: number): { visits: number; depth: number } {
  const known = SHAPES.get(root);
  if (known && (known.visits > limit || known.complete)) return known;
  let visits = 0, deepest = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0 && visits <= limit) {
    const [node, depth] = stack.pop()!;
    visits += depth;
    if (depth > deepest) deepest = depth;
    if (node !== null && typeof node === "object") {
      for (const child of Object.values(node)) stack.push([child, depth + 1]);
    }
  }
  const found = { visits, depth: deepest, complete: stack.length === 0 };
  SHAPES.set(root, found);
  return found;
}

// --- filter expressions ----------------------------------------------------------------

type Node =
  | { t: "lit"; v: unknown }
  | { t: "path"; root: "v" | "root"; keys: (string | number)[] }
  | { t: "regex"; v: LinearRegex }
  | { t: "list"; items: Node[] }
  | { t: "not"; a: Node }
  | { t: "and" | "or"; a: Node; b: Node }
  | { t: "cmp"; op: string; a: Node; b: Node };

const TOKEN =
  /\s*(?:('(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(_\$_v|_\$_root)|(\.\s*[A-Za-z_$][\w$-]*)|(==|!=|<=|>=|=~|&&|\|\||[<>!()[\],])|([A-Za-z_]\w*))/y;

/** Parses one filter expression (with `@` already written as `_$_v` by jsonpath-plus). */
function parseFilter(code: string): Node {
  return new FilterParser(filterTokens(code)).whole();
}

/** The tokens of a filter: `TOKEN` matches, and `["regex", source, flags]` for a literal after `=~`. */
function filterTokens(code: string): string[][] {
  let at = 0;
  const tokens: string[][] = [];
  while (at < code.length) {
    if (/^\s*$/.test(code.slice(at))) break;
    // a regular expression literal after =~
    if (tokens.length > 0 && tokens[tokens.length - 1][5] === "=~") {
      const m = /\s*\/((?:\\.|[^/\\])*)\/([a-z]*)/y;
      m.lastIndex = at;
      const r = m.exec(code);
      if (r) {
        tokens.push(["regex", r[1], r[2]]);
        at = m.lastIndex;
        continue;
      }
    }
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(code);
    if (!m) throw new Error(`cannot read the filter at ${JSON.stringify(code.slice(at))}`);
    tokens.push(m as unknown as string[]);
    at = TOKEN.lastIndex;
  }
  return tokens;
}

/** A `=~` operand: the regular expression, compiled by the linear-time engine. */
function regexOperand(source: string, flags: string): Node {
  const compiled = compileRegex(source, {
    ignoreCase: flags.includes("i"),
    dotAll: flags.includes("s"),
    multiline: flags.includes("m"),
  });
  if ("problem" in compiled) throw new Error(`the regular expression /${source}/ ${compiled.problem}`);
  REGEXES.add(compiled.regex);
  return { t: "regex", v: compiled.regex };
}

/** Recursive descent over a filter's tokens: `or` of `and` of comparisons of operands. */
class FilterParser {
  #tokens: string[][];
  #i = 0;

  constructor(tokens: string[][]) {
    this.#tokens = tokens;
  }

  /** The whole filter as one node; tokens left over are an error. */
  whole(): Node {
    const node = this.#or();
    if (this.#i < this.#tokens.length) {
      throw new Error(`unexpected ${JSON.stringify(this.#tokens[this.#i][0].trim())} in the filter`);
    }
    return node;
  }

  #peekOp(): string | undefined {
    return this.#tokens[this.#i]?.[5] ?? this.#tokens[this.#i]?.[6];
  }

  #expect(op: string): void {
    if (this.#peekOp() !== op) throw new Error(`expected '${op}' in the filter`);
    this.#i++;
  }

  #operand(): Node {
    const tok = this.#tokens[this.#i++];
    if (!tok) throw new Error("the filter ends early");
    if (tok[0] === "regex") return regexOperand(tok[1], tok[2]);
    if (tok[1] !== undefined) {
      const body = tok[1].slice(1, -1);
      return { t: "lit", v: body.replace(/\\(.)/g, "$1") };
    }
    if (tok[2] !== undefined) return { t: "lit", v: Number(tok[2]) };
    if (tok[3] !== undefined) return this.#path(tok[3] === "_$_v" ? "v" : "root");
    if (tok[5] === "(") {
      const inner = this.#or();
      this.#expect(")");
      return inner;
    }
    if (tok[5] === "[") return this.#list();
    if (tok[5] === "!") return { t: "not", a: this.#operand() };
    if (tok[6] === "true" || tok[6] === "false") return { t: "lit", v: tok[6] === "true" };
    if (tok[6] === "null") return { t: "lit", v: null };
    throw new Error(`unexpected ${JSON.stringify(tok[0].trim())} in the filter`);
  }

  /** The keys after `@` or `$`: `.name` and `[key]`. */
  #path(root: "v" | "root"): Node {
    const keys: (string | number)[] = [];
    for (;;) {
      const next = this.#tokens[this.#i];
      if (next?.[4] !== undefined) {
        keys.push(next[4].slice(1).trim());
        this.#i++;
      } else if (next?.[5] === "[") {
        this.#i++;
        const key = this.#operand();
        if (key.t !== "lit" || (typeof key.v !== "string" && typeof key.v !== "number")) {
          throw new Error("a bracketed key in a filter must be a string or a number");
        }
        keys.push(key.v);
        this.#expect("]");
      } else break;
    }
    return { t: "path", root, keys };
  }

  /** `[a, b, …]` after its `[`. */
  #list(): Node {
    const items: Node[] = [];
    while (this.#peekOp() !== "]") {
      items.push(this.#operand());
      if (this.#peekOp() === ",") this.#i++;
    }
    this.#i++;
    return { t: "list", items };
  }

  #comparison(): Node {
    const a = this.#operand();
    const op = this.#peekOp();
    if (op && ["==", "!=", "<", "<=", ">", ">=", "=~", "in", "nin"].includes(op)) {
      this.#i++;
      return { t: "cmp", op, a, b: this.#operand() };
    }
    return a;
  }

  #and(): Node {
    let a = this.#comparison();
    while (this.#peekOp() === "&&") {
      this.#i++;
      a = { t: "and", a, b: this.#comparison() };
    }
    return a;
  }

  #or(): Node {
    let a = this.#and();
    while (this.#peekOp() === "||") {
      this.#i++;
      a = { t: "or", a, b: this.#and() };
    }
    return a;
  }
}

const MISSING = Symbol("missing");

/** The filters' compiled `=~` operands (a value read from the document is never one of them). */
const REGEXES = new WeakSet<LinearRegex>();

function read(node: Node, context: Record<string, unknown>): unknown {
  switch (node.t) {
    case "lit":
      return node.v;
    case "regex":
      return node.v;
    case "list":
      return node.items.map((item) => read(item, context));
    case "path": {
      let value: unknown = node.root === "v" ? context._$_v : context._$_root;
      for (const key of node.keys) {
        if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return MISSING;
        value = (value as Record<string | number, unknown>)[key];
      }
      return value;
    }
    default:
      return test(node, context);
  }
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function test(node: Node, context: Record<string, unknown>): boolean {
  switch (node.t) {
    case "and":
      return test(node.a, context) && test(node.b, context);
    case "or":
      return test(node.a, context) || test(node.b, context);
    case "not":
      return !test(node.a, context);
    case "cmp": {
      const a = read(node.a, context);
      const b = read(node.b, context);
      if (a === MISSING || b === MISSING) return node.op === "!=" || node.op === "nin" ? a !== b : false;
      switch (node.op) {
        case "==":
          return same(a, b);
        case "!=":
          return !same(a, b);
        case "=~":
          return typeof a === "string" && REGEXES.has(b as LinearRegex) && (b as LinearRegex).find(a);
        case "in":
          return Array.isArray(b) && b.some((item) => same(a, item));
        case "nin":
          return Array.isArray(b) && !b.some((item) => same(a, item));
      }
      if (typeof a !== typeof b || (typeof a !== "number" && typeof a !== "string")) return false;
      const x = a as number | string, y = b as number | string;
      return node.op === "<" ? x < y : node.op === "<=" ? x <= y : node.op === ">" ? x > y : x >= y;
    }
    default: {
      const value = read(node, context);
      return value !== MISSING && value !== false && value !== null;
    }
  }
}

/** jsonpath-plus calls this in place of a JavaScript evaluator for `[?(…)]`. */
class FilterScript {
  readonly #node: Node;
  constructor(code: string) {
    this.#node = parseFilter(code);
  }
  runInNewContext(context: object): boolean {
    return test(this.#node, context as Record<string, unknown>);
  }
}
