/**
 * The fields that make a stub behave like a real service: `scenario` / `when_state` /
 * `set_state` (stateful flows), `template: true` (Handlebars answers) and `callbacks:`
 * (webhooks). Checked here, beside the validator, so each lands as its own piece.
 * @module
 */

import { type CallbackSpec, validateCallbacks } from "./callback_field.ts";
import {
  compileJsonTemplate,
  compileStatusTemplate,
  compileTemplate,
  TemplateSyntaxError,
} from "../templating/handlebars.ts";
import type { ResponseSpec, WebSocketSend, WebSocketSpec } from "./model.ts";
import { checkScenarioFields, type ScenarioStep } from "./scenario_flow.ts";
import { isObject } from "../util/json_shape.ts";

/** The checked behaviour fields of one stub. */
export interface Behaviour {
  step?: ScenarioStep;
  template?: boolean;
  /** `template_parameters`: data the templates read as `parameters.NAME`, frozen. */
  parameters?: Readonly<Record<string, unknown>>;
  callbacks?: CallbackSpec[];
}

/** The status a template stub wrote as a template (`"{{…}}"`): kept aside, so the response check sees a number. */
export function templateStatus(status: unknown): string | undefined {
  return typeof status === "string" && status.includes("{{") ? status : undefined;
}

/** Checks `scenario`, `when_state`, `set_state`, `template` and `callbacks`; messages go to `errors`. */
export function checkBehaviour(raw: Record<string, unknown>, errors: string[]): Behaviour {
  const behaviour: Behaviour = {};
  const { step, errors: scenarioErrors } = checkScenarioFields(raw);
  errors.push(...scenarioErrors);
  if (step) behaviour.step = step;
  if (raw.template !== undefined) {
    if (typeof raw.template !== "boolean") {
      errors.push(`template must be true or false, got ${JSON.stringify(raw.template)}`);
    } else if (raw.template) behaviour.template = true;
  }
  if (raw.template_parameters !== undefined) {
    const parameters = checkTemplateParameters(raw.template_parameters);
    if (typeof parameters === "string") errors.push(parameters);
    else if (!behaviour.template) {
      errors.push("template_parameters are read by templates (parameters.NAME); add template: true or remove them");
    } else behaviour.parameters = parameters;
  }
  if (raw.callbacks !== undefined) {
    const { callbacks, problems } = validateCallbacks(raw.callbacks);
    for (const problem of problems) errors.push(`${problem.place}: ${problem.message}`);
    if (problems.length === 0) {
      behaviour.callbacks = callbacks;
      if (behaviour.template) checkCallbackTemplates(callbacks, errors);
    }
  }
  return behaviour;
}

/** How deep `template_parameters` may nest (a bound on what a template walks). */
const MAX_PARAMETER_DEPTH = 32;

/**
 * Checks `template_parameters`: a mapping of plain data (text, numbers, true/false, null,
 * lists and mappings of them); the frozen copy, or the problem.
 */
function checkTemplateParameters(value: unknown): Readonly<Record<string, unknown>> | string {
  if (!isObject(value)) {
    return `template_parameters must be a mapping of names to values (read as {{parameters.NAME}}), got ${
      JSON.stringify(value) ?? String(value)
    }`;
  }
  const copy = (item: unknown, place: string, depth: number): unknown => {
    if (depth > MAX_PARAMETER_DEPTH) throw new Error(`${place} nests deeper than ${MAX_PARAMETER_DEPTH} levels`);
    if (item === null || typeof item === "string" || typeof item === "boolean") return item;
    if (typeof item === "number") {
      if (Number.isFinite(item)) return item;
      throw new Error(`${place} must be a finite number, got ${item}`);
    }
    if (Array.isArray(item)) return Object.freeze(item.map((v, i) => copy(v, `${place}[${i}]`, depth + 1)));
    if (isObject(item)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(item)) {
        Object.defineProperty(out, k, { value: copy(v, `${place}.${k}`, depth + 1), enumerable: true });
      }
      return Object.freeze(out);
    }
    throw new Error(`${place} must be text, a number, true/false, null, a list or a mapping, got ${typeof item}`);
  };
  try {
    return copy(value, "template_parameters", 0) as Readonly<Record<string, unknown>>;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Compiles a template stub's response templates, so a broken one is a load error with its place. */
export function checkResponseTemplates(responses: readonly ResponseSpec[], sequence: boolean, errors: string[]): void {
  responses.forEach((spec, i) => {
    const at = sequence ? `sequence[${i}].` : "";
    attempt(`${at}status`, errors, () => compileStatusTemplate(spec.statusTemplate ?? spec.status));
    for (const name in spec.headers) {
      const value = spec.headers[name];
      for (const text of Array.isArray(value) ? value : [value]) {
        attempt(`${at}headers.${name}`, errors, () => compileTemplate(text));
      }
    }
    spec.stream?.forEach((event, k) => {
      const data = event.data;
      attempt(
        `${at}stream[${k}].data`,
        errors,
        () => typeof data === "string" ? compileTemplate(data) : compileJsonTemplate(data),
      );
    });
    if (spec.bytes && spec.file !== undefined) {
      attempt(`${at}body_file`, errors, () => compileTemplate(new TextDecoder().decode(spec.bytes)));
    } else if (spec.hasBody && !spec.bytes) {
      attempt(
        `${at}body`,
        errors,
        () => typeof spec.body === "string" ? compileTemplate(spec.body) : compileJsonTemplate(spec.body),
      );
    }
  });
}

/** Compiles a template stub's WebSocket messages (`message.text` / `message.json` is the incoming one). */
export function checkWebSocketTemplates(spec: WebSocketSpec, errors: string[]): void {
  const each = (items: WebSocketSend[], at: string) =>
    items.forEach((item, k) =>
      attempt(
        "text" in item ? `${at}.send[${k}]` : `${at}.send[${k}].json`,
        errors,
        () => "text" in item ? compileTemplate(item.text) : compileJsonTemplate(item.json),
      )
    );
  spec.onConnect.forEach((item, i) => each(item.send, `websocket.on_connect[${i}]`));
  spec.onMessage.forEach((rule, i) => each(rule.send, `websocket.on_message[${i}]`));
}

function checkCallbackTemplates(callbacks: readonly CallbackSpec[], errors: string[]): void {
  callbacks.forEach((callback, i) => {
    attempt(`callbacks[${i}].url`, errors, () => compileTemplate(callback.url));
    for (const name in callback.headers) {
      const value = callback.headers[name];
      attempt(`callbacks[${i}].headers.${name}`, errors, () => compileTemplate(String(value)));
    }
    if (callback.body !== undefined) {
      attempt(
        `callbacks[${i}].body`,
        errors,
        () => typeof callback.body === "string" ? compileTemplate(callback.body) : compileJsonTemplate(callback.body),
      );
    }
  });
}

function attempt(field: string, errors: string[], compile: () => unknown): void {
  try {
    compile();
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    if (!(error instanceof TemplateSyntaxError)) return void errors.push(`${field}: broken template: ${error.message}`);
    for (const { path, reason } of error.problems) errors.push(`${field}${path}: broken template: ${reason}`);
  }
}
