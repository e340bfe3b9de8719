/**
 * Placeholder substitution, compiled once per stub. A template becomes either a
 * plain string (nothing to fill) or literal chunks interleaved with capture slots, so a
 * request only concatenates strings: no parsing, no cloning of the body tree.
 * @module
 */

import { PLACEHOLDER_ANYWHERE } from "./path.ts";
import { escapeJsonString } from "../util/json_string.ts";

/** Literal chunks around capture slots: `literals[0] + v[slots[0]] + literals[1] + …`. */
export interface SlotTemplate {
  literals: string[];
  /** Index into the request's capture values (path placeholders, then query captures). */
  slots: number[];
  /** Applied to each captured value (JSON string escaping inside a JSON body). */
  escape?: (value: string) => string;
}

/** A compiled template: a ready string, or chunks with slots. */
export type Template = string | SlotTemplate;

/** Fills a template with the request's capture values. */
export function render(template: Template, values: readonly string[]): string {
  if (typeof template === "string") return template;
  const { literals, slots, escape } = template;
  let out = literals[0];
  for (let i = 0; i < slots.length; i++) {
    const value = values[slots[i]];
    out += (escape ? escape(value) : value) + literals[i + 1];
  }
  return out;
}

/** Builds a template by appending literal text and slots. */
class TemplateBuilder {
  #literals: string[] = [];
  #slots: number[] = [];
  #current = "";
  text(literal: string): void {
    this.#current += literal;
  }
  slot(index: number): void {
    this.#literals.push(this.#current);
    this.#slots.push(index);
    this.#current = "";
  }
  build(escape?: (value: string) => string): Template {
    if (this.#slots.length === 0) return this.#current;
    return { literals: [...this.#literals, this.#current], slots: this.#slots, escape };
  }
}

/** Splits `text` on placeholders whose name is a known capture; unknown ones stay as written. */
function splitPlaceholders(
  text: string,
  names: readonly string[],
  onText: (literal: string) => void,
  onSlot: (index: number) => void,
): void {
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER_ANYWHERE)) {
    const index = names.indexOf(match[1]);
    if (index === -1) continue;
    if (match.index > last) onText(text.slice(last, match.index));
    onSlot(index);
    last = match.index + match[0].length;
  }
  if (last < text.length) onText(text.slice(last));
}

/** Does any string inside `value` name a known capture? */
function mentionsCapture(value: unknown, names: readonly string[]): boolean {
  if (names.length === 0) return false;
  if (typeof value === "string") {
    if (!value.includes("{")) return false; // most strings: no regex, no match objects
    for (const match of value.matchAll(PLACEHOLDER_ANYWHERE)) {
      if (names.includes(match[1])) return true;
    }
    return false;
  }
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (mentionsCapture(value[i], names)) return true;
    return false;
  }
  for (const key in value) { // for-in with hasOwn: Object.keys without the array
    if (Object.hasOwn(value, key) && mentionsCapture((value as Record<string, unknown>)[key], names)) return true;
  }
  return false;
}

/** Compiles plain text (a header value, a non-JSON body): captures go in unescaped. */
export function compileText(text: string, names: readonly string[]): Template {
  const builder = new TemplateBuilder();
  splitPlaceholders(text, names, (t) => builder.text(t), (i) => builder.slot(i));
  return builder.build();
}

/**
 * Compiles a JSON body into the JSON text it serializes to, with a slot wherever a string
 * holds a placeholder. Object keys are never touched. Parts without placeholders are
 * serialized once, here.
 */
export function compileJson(body: unknown, names: readonly string[]): Template {
  // Most bodies hold no placeholder: one JSON.stringify, no builder.
  if (!mentionsCapture(body, names)) return JSON.stringify(body === undefined ? null : body);
  const builder = new TemplateBuilder();
  const walk = (value: unknown): void => {
    if (!mentionsCapture(value, names)) {
      builder.text(JSON.stringify(value === undefined ? null : value));
    } else if (typeof value === "string") {
      builder.text('"');
      splitPlaceholders(value, names, (t) => builder.text(escapeJsonString(t)), (i) => builder.slot(i));
      builder.text('"');
    } else if (Array.isArray(value)) {
      builder.text("[");
      value.forEach((item, i) => {
        if (i > 0) builder.text(",");
        walk(item);
      });
      builder.text("]");
    } else {
      builder.text("{");
      let first = true;
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (item === undefined) continue;
        builder.text((first ? "" : ",") + JSON.stringify(key) + ":");
        first = false;
        walk(item);
      }
      builder.text("}");
    }
  };
  walk(body);
  return builder.build(escapeJsonString);
}
