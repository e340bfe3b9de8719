/**
 * The warnings of a valid config: what loads but will not do what its author likely
 * meant (a stub another always wins over, a scenario state nothing reaches, a body that
 * is JSON written as text, a `{name}` that names no capture), and what `--adapter deno` cannot send.
 * @module
 */

import type { CompiledStub, ResponseSpec } from "./model.ts";
import { PLACEHOLDER_ANYWHERE } from "./path.ts";
import { findShadowedStubs } from "./shadow.ts";
import { unreachableStates } from "./scenario_flow.ts";
import type { Problem } from "./problem.ts";

/** Every warning about the routes of a config that has no error, placed at `routes[i]`, in a fixed order. */
export function configWarnings(routes: readonly CompiledStub[]): Problem[] {
  const place = (i: number) => `routes[${i}]`;
  return [
    ...findShadowedStubs(routes, place),
    ...stubWarnings(routes, place),
  ];
}

/**
 * The warnings `validate` gives about stubs that load but will not answer as their author
 * likely meant: a `when_state` no stub's `set_state` reaches, a string body holding JSON, a
 * `{{…}}` or an unknown `{name}` sent as written. `place(i)` names `stubs[i]`
 * (`routes[2]`); a sequence entry is placed at `PLACE.sequence[k]`. `others` are stubs
 * served beside them (earlier batches): their `set_state`s reach states too, and they get no
 * warnings of their own.
 *
 * @example
 * ```ts
 * import { stubWarnings } from "./warnings.ts";
 * import { validateStub } from "./validate.ts";
 * const { stub } = validateStub({ method: "GET", path: "/x", body: { id: "{{randomValue}}" } });
 * console.log(stubWarnings([stub!], (i) => `routes[${i}]`)[0].place); // "routes[0]"
 * ```
 */
export function stubWarnings(
  stubs: readonly CompiledStub[],
  place: (index: number) => string,
  others: readonly CompiledStub[] = [],
): Problem[] {
  return [
    ...unreachableWarnings(stubs, place, others),
    ...jsonTextWarnings(stubs, place),
    ...strayPlaceholderWarnings(stubs, place),
  ];
}

/** Scenario states no stub (of `stubs` or `others`) can reach. */
function unreachableWarnings(
  stubs: readonly CompiledStub[],
  place: (index: number) => string,
  others: readonly CompiledStub[],
): Problem[] {
  return unreachableStates([...stubs, ...others].map(scenarioStep))
    .filter((unreachable) => unreachable.stubIndex < stubs.length)
    .map((unreachable) => ({ level: "warn", place: place(unreachable.stubIndex), message: unreachable.message }));
}

/** Answers whose body is a string holding JSON (double-encoded on the wire): the first of each stub. */
function jsonTextWarnings(stubs: readonly CompiledStub[], place: (index: number) => string): Problem[] {
  const problems: Problem[] = [];
  stubs.forEach((stub, i) => {
    const entry = stub.responses.findIndex(holdsJsonText);
    if (entry === -1) return;
    problems.push({
      level: "warn",
      place: stub.isSequence ? `${place(i)}.sequence[${entry}]` : place(i),
      message: "body is a string that holds JSON, so it goes out as one JSON string (double-encoded): " +
        "write the value itself (body: {id: 1}, not body: '{\"id\": 1}'), or set a text content-type to send it as written",
    });
  });
  return problems;
}

/** Body strings and header values holding a `{name}` that is no capture, or a `{{…}}` outside a template stub. */
function strayPlaceholderWarnings(stubs: readonly CompiledStub[], place: (index: number) => string): Problem[] {
  const problems: Problem[] = [];
  stubs.forEach((stub, i) => {
    // In a template stub {{…}} is rendered and {name} is plain text by design.
    if (stub.template) return;
    stub.responses.forEach((response, entry) => {
      const stray = strayPlaceholder(response, captureNames(stub));
      if (!stray) return;
      problems.push({
        level: "warn",
        place: stub.isSequence ? `${place(i)}.sequence[${entry}]` : place(i),
        message: stray,
      });
    });
  });
  return problems;
}

/** What `node:http` (the default wire) sends for each fault Deno.serve cannot send. */
const NODE_SENDS: Record<string, string> = {
  disconnect: "closes it before any byte",
  reset: "resets it (TCP RST) before any byte",
  empty: "closes it before any byte",
  malformed_chunk: "sends the status line and headers, then a broken chunk",
  random_then_close: "sends bytes that are not HTTP, then closes it",
};

/**
 * What `--adapter deno` (Deno.serve) cannot send as the stubs say: a fault that needs the
 * socket (it sends the status line and headers, then closes), a `status_message` (it sends
 * the standard reason phrase), a header list other than `set-cookie` (it joins the lines), a
 * request header pattern (it reads a header sent on several lines as one joined value).
 * One warning per stub and kind, each naming `--adapter node`, which sends them all.
 */
export function denoWireWarnings(stubs: readonly CompiledStub[], place: (index: number) => string): Problem[] {
  const problems: Problem[] = [];
  stubs.forEach((stub, i) => {
    const warn = (message: string) => problems.push({ level: "warn", place: place(i), message });
    if (stub.fault !== undefined && stub.fault !== "truncate") {
      warn(
        `fault: ${stub.fault} with --adapter deno sends the status line and headers, then closes the connection ` +
          `(Deno.serve cannot drop a connection before answering nor write raw bytes); --adapter node (the default) ` +
          NODE_SENDS[stub.fault],
      );
    }
    const message = stub.responses.find((r) => r.statusMessage !== undefined)?.statusMessage;
    if (message !== undefined) {
      warn(
        `status_message with --adapter deno is not sent (Deno.serve sends the standard reason phrase); ` +
          `--adapter node (the default) sends ${JSON.stringify(message)}`,
      );
    }
    const joined = stub.responses.flatMap((r) =>
      Object.keys(r.headers ?? {}).filter((name) =>
        Array.isArray(r.headers![name]) && (r.headers![name] as string[]).length > 1 &&
        name.toLowerCase() !== "set-cookie"
      )
    );
    // Every header pattern but absent can decide otherwise on one joined value than on its lines.
    const tested = (stub.match?.headers ?? []).find(([, pattern]) => !pattern.absent);
    if (tested) {
      const [name, pattern] = tested;
      warn(
        `request.headers.${name} with --adapter deno ${pattern.multi ? "counts" : "reads"} a header sent on ` +
          `several lines as one value, the lines joined by commas (Deno.serve keeps no header lines apart); ` +
          `--adapter node (the default) ${
            pattern.multi ? "counts each line" : "tests each line (the header matches when one line does)"
          }`,
      );
    }
    if (joined.length) {
      warn(
        `headers.${joined[0]} with --adapter deno goes out as one line, its values joined by commas ` +
          `(Deno.serve keeps only set-cookie lines apart); --adapter node (the default) sends one line per value`,
      );
    }
  });
  return problems;
}

/** The names a stub captures: path placeholders, then those of its query and request conditions. */
function captureNames(stub: CompiledStub): string[] {
  const names: string[] = [];
  for (const segment of stub.segments) if (segment.param) names.push(segment.name);
  const { match } = stub;
  if (!match) return names;
  for (const list of [match.query, match.headers, match.cookies, match.form]) {
    for (const [, pattern] of list ?? []) names.push(...pattern.names);
  }
  names.push(...match.jsonNames ?? []);
  names.push(...match.pathRegex?.names ?? [], ...match.urlRegex?.names ?? []);
  return names;
}

const HANDLEBARS = /\{\{[^{}]*\}\}/;

/**
 * A warning for the first body string or header value of `response` holding `{name}` with
 * a name the stub does not capture (`{uuid}`, `{now}`) or a `{{…}}` template: both are sent
 * exactly as written, which is rarely what their author expects.
 */
function strayPlaceholder(response: ResponseSpec, names: readonly string[]): string | undefined {
  const check = (text: string, where: string): string | undefined => {
    if (!text.includes("{")) return undefined;
    const template = HANDLEBARS.exec(text);
    if (template) {
      return `${where} holds ${template[0]}, which is sent as written: {{…}} is template syntax, rendered only ` +
        "in a stub with template: true; {name} fills in a capture of the stub";
    }
    const unknown = [...text.matchAll(PLACEHOLDER_ANYWHERE)].map((m) => m[1]).filter((n) => !names.includes(n));
    if (!unknown.length) return undefined;
    const captures = names.length ? `its captures are ${names.map((n) => `{${n}}`).join(", ")}` : "it captures none";
    return `${where} holds {${unknown[0]}}, which names no capture of this stub (${captures}), so it is sent as ` +
      "written; values made per request (ids, times) are for response templates (template: true)";
  };
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    for (const [k, text] of values.entries()) {
      // String(): a binary body's headers are kept as written, where `x-count: 5` is a number.
      const problem = check(String(text), Array.isArray(value) ? `headers.${name}[${k}]` : `headers.${name}`);
      if (problem) return problem;
    }
  }
  if (!response.hasBody || response.bytes) return undefined;
  const walk = (value: unknown, where: string): string | undefined => {
    if (typeof value === "string") return check(value, where);
    if (typeof value !== "object" || value === null) return undefined;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const problem = walk(value[i], `${where}[${i}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const problem = walk((value as Record<string, unknown>)[key], `${where}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  };
  return walk(response.body, "body");
}

/**
 * Is this answer a string body holding a JSON object or array, sent as JSON (no content
 * type, or a JSON one)? It would go out as a JSON string: almost always a quoting slip.
 */
function holdsJsonText(spec: ResponseSpec): boolean {
  if (!spec.hasBody || typeof spec.body !== "string") return false;
  const text = spec.body.trim();
  if (!(text.startsWith("{") && text.endsWith("}")) && !(text.startsWith("[") && text.endsWith("]"))) return false;
  const type = Object.entries(spec.headers ?? {}).find(([name]) => name.toLowerCase() === "content-type")?.[1];
  if (type !== undefined && !/json/i.test(String(type))) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A stub's place in a scenario, for the reachability check. */
function scenarioStep(stub: CompiledStub): { scenario: string; whenState?: string; setState?: string } | undefined {
  if (stub.scenario === undefined) return undefined;
  return { scenario: stub.scenario, whenState: stub.whenState, setState: stub.setState };
}
