/**
 * Response templates in Handlebars, WireMock's templating: compiled once when a stub loads,
 * rendered per request against the request model (src/server/answers/template_model.ts). Templates
 * run in their own Handlebars environment with WireMock's helpers only, without HTML
 * escaping (as WireMock renders bodies), with Handlebars' prototype-access guards on.
 * Request data is only ever a value: it is never compiled.
 * @module
 */

import type HandlebarsNamespace from "handlebars";
import type { HelperOptions } from "handlebars";
import { engine } from "./engine.ts";
import {
  BudgetError,
  budgetOf,
  type Helper,
  HELPERS,
  RANDOM_TYPES,
  RENDER_BUDGET,
  RenderBudget,
  type REQUEST_DOCUMENT,
  type RequestDocument,
  text,
} from "./template_helpers.ts";
import { checkDateFormat, checkTimeZone, offsetDate } from "./date_format.ts";
import { checkXPathCall, XPATH_HELPERS } from "./xpath_helper.ts";
import { escapeJsonString } from "../util/json_string.ts";
import { unknownField } from "../util/hint.ts";

export { REQUEST_DOCUMENT, type RequestDocument, Values } from "./template_helpers.ts";

/** A helper failed while a template rendered (e.g. `{{math 1 '/' 0}}`): the handler answers 500 naming it. */
export class TemplateError extends Error {
  /** The helper that failed, or null when the failure was not inside a helper. */
  readonly helper: string | null;
  constructor(message: string, helper: string | null) {
    super(message);
    this.name = "TemplateError";
    this.helper = helper;
  }
}

/** A template that cannot compile; `path` is where inside a JSON body (`.items[0].name`), "" for a single string. */
export class TemplateSyntaxError extends SyntaxError {
  /** The place inside a JSON body, written to follow the body's own place (`.a[0]`); "" for a string template. */
  readonly path: string;
  /** What is wrong, with the line and column inside the template when known. */
  readonly reason: string;
  /** Every problem found (this one first): each broken leaf of a body, each broken call of a template. */
  readonly problems: readonly { path: string; reason: string }[];
  constructor(reason: string, path = "", problems?: readonly { path: string; reason: string }[]) {
    super(path === "" ? reason : `${path.replace(/^\./, "")}: ${reason}`);
    this.name = "SyntaxError";
    this.path = path;
    this.reason = reason;
    this.problems = problems ?? [{ path, reason }];
  }
}

/**
 * The fields of `request` worked out on first read (getters of the model's class). Handlebars
 * reads only own properties unless told otherwise; these names, and no others, are let through.
 */
export const MODEL_GETTERS: readonly string[] = [
  "path",
  "pathParams",
  "pathSegments",
  "query",
  "headers",
  "cookies",
  "body",
  "json",
  "host",
  "port",
  "baseUrl",
];

/** What a template renders against: the request model and the stub's captures. */
export interface TemplateModel {
  request: object;
  params: Readonly<Record<string, string>>;
  /** The stub's `template_parameters` (WireMock's `transformerParameters`), when it has some. */
  parameters?: Readonly<Record<string, unknown>>;
  /** The request body as `jsonPath` reads it, so a body is parsed once however often templates query it. */
  [REQUEST_DOCUMENT]?: RequestDocument;
  /** What rendering this response may still spend (made on first render when absent). */
  [RENDER_BUDGET]?: RenderBudget;
}

/** A compiled template. */
export interface ResponseTemplate {
  /** The template as written. */
  readonly source: string;
  /** False when the source holds no `{{`: it renders to itself without running Handlebars. */
  readonly dynamic: boolean;
  /** May rendering read the request body (`request.body`, `request.json`, or the request passed whole)? */
  readonly readsBody: boolean;
  /** Renders against one request; throws {@link TemplateError} when a helper fails. */
  render(model: TemplateModel): string;
}

type Environment = ReturnType<typeof HandlebarsNamespace.create>;
let env: Environment | undefined;

/** Handlebars' own helpers a template keeps; the rest are WireMock's ({@link HELPERS}). */
const KEPT_HELPERS = ["if", "unless", "each", "with", "lookup", "helperMissing", "blockHelperMissing"];

/** The Handlebars environment templates compile in, made on first use (the library loads on demand). */
function handlebarsEnv(): Environment {
  if (env) return env;
  const made = engine().handlebars.create();
  setUp(made);
  return env = made;
}

/** WireMock's helpers only, without decorators, with a counted `each`. */
function setUp(env: Environment): void {
  for (const name of Object.keys(env.helpers)) {
    if (!KEPT_HELPERS.includes(name)) {
      env.unregisterHelper(name);
    }
  }
  for (const [name, helper] of Object.entries({ ...HELPERS, ...XPATH_HELPERS })) {
    env.registerHelper(name, guarded(name, helper));
  }
  for (const name of Object.keys(env.decorators)) env.unregisterDecorator(name);
  // Every loop runs through `each` (a block over a list too): each iteration counts, and its output is held.
  const each = env.helpers.each as Helper;
  env.registerHelper("each", function (this: unknown, context: unknown, options: HelperOptions) {
    const budget = budgetOf(options);
    const fn = options.fn;
    const counted = Object.assign((item: unknown, more: unknown) => {
      budget.iterate("each");
      const before = budget.output;
      const out = fn(item, more as never);
      budget.hold(before + out.length, "each");
      return out;
    }, fn);
    return each.call(this, context, { ...options, fn: counted });
  });
}

/** The helpers a template may call: Handlebars' block helpers and WireMock's. */
export const HELPER_NAMES: readonly string[] = [
  ...new Set([...KEPT_HELPERS, ...Object.keys(HELPERS), ...Object.keys(XPATH_HELPERS)]),
].filter((n) => !n.endsWith("Missing")).sort();

const COMPILE_OPTIONS = {
  noEscape: true,
  knownHelpersOnly: true,
  knownHelpers: Object.fromEntries(HELPER_NAMES.map((name) => [name, true])),
};

/** Wraps a helper so a failure inside it names it. */
function guarded(name: string, helper: Helper): Helper {
  return function (this: unknown, ...args: unknown[]) {
    try {
      return helper.apply(this, args);
    } catch (e) {
      if (e instanceof TemplateError) throw e;
      if (e instanceof BudgetError) throw new TemplateError(`${e.helper || name}: ${e.message}`, e.helper || name);
      throw new TemplateError(`${name}: ${(e as Error).message}`, name);
    }
  };
}

// --- load-time checks on the parsed template --------------------------------------------

// deno-lint-ignore no-explicit-any
type AstNode = any;

function where(node: AstNode): string {
  const start = node?.loc?.start;
  return start ? `line ${start.line}, column ${start.column + 1}: ` : "";
}

/** A literal argument's value, or undefined when the argument is computed at request time. */
function literal(node: AstNode): unknown {
  if (!node) return undefined;
  if (node.type === "StringLiteral" || node.type === "NumberLiteral" || node.type === "BooleanLiteral") {
    return node.value;
  }
  return undefined;
}

/** Checks literal arguments that would otherwise fail only when a request arrives. */
function checkCall(name: string, node: AstNode): void {
  const hash: Record<string, unknown> = {};
  for (const pair of node.hash?.pairs ?? []) hash[pair.key] = literal(pair.value);
  try {
    if (name === "now") {
      if (typeof hash.format === "string") checkDateFormat(hash.format);
      if (typeof hash.timezone === "string") checkTimeZone(hash.timezone);
      if (typeof hash.offset === "string") offsetDate(new Date(0), hash.offset);
    } else if (name === "math") {
      engine("decimal"); // loads with the stub that calls it (asking counts the demand)
      const operator = literal(node.params[1]);
      if (node.params.length !== 3) throw new Error("write {{math left '+' right}} (operators + - * / %)");
      if (operator !== undefined && !["+", "-", "*", "/", "%"].includes(String(operator))) {
        throw new Error(`unknown operator ${JSON.stringify(operator)} (use '+', '-', '*', '/' or '%')`);
      }
    } else if (name === "randomValue") {
      if (typeof hash.type === "string" && !RANDOM_TYPES.includes(hash.type.toUpperCase())) {
        throw new Error(`unknown type ${JSON.stringify(hash.type)} (use one of ${RANDOM_TYPES.join(", ")})`);
      }
    } else if (name === "jsonPath") {
      engine("jsonpath");
      if (node.params.length !== 2) throw new Error("write {{jsonPath request.body '$.path'}}");
    } else if (name in XPATH_HELPERS) {
      const expression = literal(node.params[1]);
      checkXPathCall(name, node.params.length, typeof expression === "string" ? expression : undefined);
    }
  } catch (e) {
    throw new SyntaxError(`${where(node)}${name}: ${(e as Error).message}`);
  }
}

/** Walks the template: refuses partials, decorators and unknown helpers (each noted in `state.problems`); notes whether the body is read. */
function inspect(node: AstNode, state: { readsBody: boolean; problems: string[] }): void {
  try {
    visit(node, state);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    state.problems.push(e.message);
  }
}

function visit(node: AstNode, state: { readsBody: boolean; problems: string[] }): void {
  if (!node || typeof node !== "object") return;
  switch (node.type) {
    case "Program":
      for (const statement of node.body) inspect(statement, state);
      return;
    case "PartialStatement":
    case "PartialBlockStatement":
      throw new SyntaxError(`${where(node)}partials ({{> name}}) are not supported in response templates`);
    case "Decorator":
    case "DecoratorBlock":
      throw new SyntaxError(`${where(node)}decorators ({{* name}}) are not supported in response templates`);
    case "MustacheStatement":
    case "BlockStatement":
    case "SubExpression": {
      const path = node.path;
      const call = node.type !== "MustacheStatement" || node.params.length > 0 || node.hash;
      if (path.type === "PathExpression" && call) {
        const name = path.original;
        if (!HELPER_NAMES.includes(name)) {
          state.problems.push(`${where(node)}${unknownField("helper", name, HELPER_NAMES)}`);
        } else inspect({ type: "Call", name, node }, state);
        if (name === "lookup") state.readsBody = true;
      } else inspect(path, state);
      for (const param of node.params) inspect(param, state);
      for (const pair of node.hash?.pairs ?? []) inspect(pair.value, state);
      inspect(node.program, state);
      inspect(node.inverse, state);
      return;
    }
    case "Call":
      checkCall(node.name, node.node);
      return;
    case "PathExpression": {
      const parts: string[] = node.parts;
      // WireMock's `request.path` is the path, but `request.path.[n]` is its n-th segment and
      // `request.path.NAME` a urlPathTemplate parameter (as sent): read from those fields instead.
      if (!node.data && node.depth === 0 && parts.length >= 3 && parts[0] === "request" && parts[1] === "path") {
        parts[1] = /^\d+$/.test(parts[2]) ? "pathSegments" : "pathParams";
      }
      if (
        parts.length === 0 || node.data || parts.includes("body") || parts.includes("json") ||
        (parts.length === 1 && parts[0] === "request")
      ) state.readsBody = true;
      return;
    }
  }
}

/** The parts of a Handlebars environment that compile a parsed template eagerly. */
interface Internals {
  Compiler: new () => { compile(ast: AstNode, options: object): unknown };
  JavaScriptCompiler: new () => {
    compile(environment: unknown, options: object, context: undefined, asObject: true): unknown;
  };
  template(spec: unknown): ((context: unknown) => string) & { _setup(options: object): void };
}

/**
 * Compiles a parsed template now (`Handlebars.compile` waits for the first render). The
 * helpers and prototype guards are set up once here: Handlebars' own `_setup` copies and wraps
 * every helper on each render, most of a small template's time.
 */
function build(ast: AstNode): (context: unknown) => string {
  const internals = handlebarsEnv() as unknown as Internals;
  const options = { ...COMPILE_OPTIONS, data: true };
  const environment = new internals.Compiler().compile(ast, options);
  const run = internals.template(new internals.JavaScriptCompiler().compile(environment, options, undefined, true));
  run._setup({ allowedProtoProperties: Object.fromEntries(MODEL_GETTERS.map((name) => [name, true])) });
  run._setup = () => {};
  return run;
}

/** Turns Handlebars' multi-line parse error into one line. */
function oneLine(e: Error): string {
  const parse = /^Parse error on line (\d+):\n(.*)\n(-*)\^\n(.*)$/s.exec(e.message);
  if (parse) {
    const [, line, snippet, , expected] = parse;
    const reason = expected.replace(/^Expecting /, "expected ").replace(/'/g, "");
    return `line ${line}: ${reason}, near ${JSON.stringify(snippet.trim())}`;
  }
  const located = / - (\d+):(\d+)$/.exec(e.message);
  if (located) {
    return `line ${located[1]}, column ${Number(located[2]) + 1}: ${e.message.slice(0, located.index)}`;
  }
  return e.message.replace(/\s*\n\s*/g, " ");
}

/**
 * Compiles one template (a body string, a header value, a status written as a string, the
 * text of a body file). Throws a `SyntaxError` with a one-line message naming the line and
 * column inside the template when the template cannot run.
 *
 * @example
 * ```ts
 * import { compileTemplate } from "./handlebars.ts";
 * import { loadTemplating } from "./engine.ts";
 * await loadTemplating(); // the engine loads on demand (a server loads it before it checks stubs)
 * const t = compileTemplate("Hello {{params.name}}");
 * t.render({ request: {}, params: { name: "Ada" } }); // "Hello Ada"
 * ```
 */
export function compileTemplate(source: string): ResponseTemplate {
  if (!source.includes("{{")) {
    return { source, dynamic: false, readsBody: false, render: () => source };
  }
  const state = { readsBody: false, problems: [] as string[] };
  let run: (context: unknown) => string;
  try {
    const ast = handlebarsEnv().parse(source);
    inspect(ast, state);
    if (state.problems.length > 0) {
      throw new TemplateSyntaxError(state.problems[0], "", state.problems.map((reason) => ({ path: "", reason })));
    }
    run = build(ast);
  } catch (e) {
    if (e instanceof TemplateSyntaxError) throw e;
    if (e instanceof SyntaxError) throw new TemplateSyntaxError(e.message);
    throw new TemplateSyntaxError(oneLine(e as Error));
  }
  return {
    source,
    dynamic: true,
    readsBody: state.readsBody,
    render(model: TemplateModel): string {
      const budget = model[RENDER_BUDGET] ??= new RenderBudget();
      const start = budget.output;
      try {
        const out = run(model);
        budget.hold(start + out.length, "");
        return out;
      } catch (e) {
        if (e instanceof TemplateError) throw e;
        if (e instanceof BudgetError) {
          throw new TemplateError(`${e.helper || "output"}: ${e.message}`, e.helper || null);
        }
        throw new TemplateError((e as Error).message.replace(/\s*\n\s*/g, " "), null);
      }
    },
  };
}

/** A JSON body whose string leaves are templates; renders to JSON text. */
export interface JsonTemplate {
  /** False when no leaf holds `{{`: `render` returns the same text every time. */
  readonly dynamic: boolean;
  /** May rendering read the request body? */
  readonly readsBody: boolean;
  /** The body as JSON text, each templated leaf rendered and written as a JSON string. */
  render(model: TemplateModel): string;
}

/**
 * A JSON value as its JSON text cut around the templated string leaves: `literals` has one
 * more entry than `slots`, and the text is the literals with each slot's rendering between
 * them. Throws a {@link TemplateSyntaxError} naming the first bad leaf.
 */
function jsonPieces(value: unknown): { literals: string[]; slots: ResponseTemplate[]; readsBody: boolean } {
  const literals: string[] = [];
  const slots: ResponseTemplate[] = [];
  let current = "";
  let readsBody = false;
  const problems: { path: string; reason: string }[] = [];
  const walk = (node: unknown, path: string): void => {
    if (typeof node === "string") {
      let template: ResponseTemplate;
      try {
        template = compileTemplate(node);
      } catch (e) {
        const found = (e as TemplateSyntaxError).problems ?? [{ path: "", reason: (e as Error).message }];
        for (const problem of found) problems.push({ path, reason: problem.reason });
        return;
      }
      if (!template.dynamic) {
        current += JSON.stringify(node);
        return;
      }
      readsBody ||= template.readsBody;
      literals.push(current + '"');
      slots.push(template);
      current = '"';
    } else if (Array.isArray(node)) {
      current += "[";
      node.forEach((item, i) => {
        if (i > 0) current += ",";
        walk(item, `${path}[${i}]`);
      });
      current += "]";
    } else if (node !== null && typeof node === "object") {
      current += "{";
      let first = true;
      for (const [key, item] of Object.entries(node)) {
        if (item === undefined) continue;
        if (!first) current += ",";
        first = false;
        current += JSON.stringify(key) + ":";
        walk(item, /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);
      }
      current += "}";
    } else current += JSON.stringify(node ?? null);
  };
  walk(value, "");
  if (problems.length > 0) throw new TemplateSyntaxError(problems[0].reason, problems[0].path, problems);
  literals.push(current);
  return { literals, slots, readsBody };
}

/**
 * Compiles a JSON body (a YAML/JSON value): each string leaf is a template, keys are not.
 * A rendered leaf is written as a JSON string, so request data can never break the JSON.
 * Throws a {@link TemplateSyntaxError} whose `path` names the leaf (`.items[0].name`).
 *
 * @example
 * ```ts
 * import { compileJsonTemplate } from "./handlebars.ts";
 * import { loadTemplating } from "./engine.ts";
 * await loadTemplating(); // the engine loads on demand (a server loads it before it checks stubs)
 * const t = compileJsonTemplate({ id: "{{params.id}}", n: 1 });
 * t.render({ request: {}, params: { id: "7" } }); // '{"id":"7","n":1}'
 * ```
 */
export function compileJsonTemplate(value: unknown): JsonTemplate {
  const { literals, slots, readsBody } = jsonPieces(value);
  if (slots.length === 0) {
    const fixed = literals[0];
    return { dynamic: false, readsBody: false, render: () => fixed };
  }
  return {
    dynamic: true,
    readsBody,
    render(model: TemplateModel): string {
      let out = literals[0];
      for (let i = 0; i < slots.length; i++) out += escapeJsonString(slots[i].render(model)) + literals[i + 1];
      return out;
    },
  };
}

/** A status code that may be a template (`"{{request.query.code}}"`). */
export interface StatusTemplate {
  readonly dynamic: boolean;
  /** The status for one request; throws {@link TemplateError} (helper null) when it renders to no status code. */
  render(model: TemplateModel): number;
}

/**
 * Compiles `status` written as a number or a string template. A string without `{{` must
 * already be a status code from 100 to 599 (a `SyntaxError` says so otherwise).
 *
 * @example
 * ```ts
 * import { compileStatusTemplate } from "./handlebars.ts";
 * import { loadTemplating } from "./engine.ts";
 * await loadTemplating(); // the engine loads on demand (a server loads it before it checks stubs)
 * compileStatusTemplate("{{request.query.code}}").dynamic; // true
 * ```
 */
export function compileStatusTemplate(status: number | string): StatusTemplate {
  const parse = (written: string): number | null => {
    const code = /^\s*\d{3}\s*$/.test(written) ? Number(written) : NaN;
    return code >= 100 && code <= 599 ? code : null;
  };
  if (typeof status === "number" || !status.includes("{{")) {
    const code = parse(text(status));
    if (code === null) {
      throw new TemplateSyntaxError(`must be a status code from 100 to 599, got ${JSON.stringify(status)}`);
    }
    return { dynamic: false, render: () => code };
  }
  const template = compileTemplate(status);
  return {
    dynamic: true,
    render(model: TemplateModel): number {
      const written = template.render(model);
      const code = parse(written);
      if (code === null) {
        throw new TemplateError(
          `status rendered to ${JSON.stringify(written)}, not a status code from 100 to 599`,
          null,
        );
      }
      return code;
    },
  };
}
