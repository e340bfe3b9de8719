/**
 * Escaping, one home for both kinds. HTML: {@link escapeHtml} for every string the report
 * page and the flow picture show. Terminal: escaping for text that reaches a terminal but came from outside: request methods and
 * paths in `serve`'s log, and everything a live server or a saved report file puts in
 * `report`'s output. A client can send `%1b` or raw bytes; a report file can hold
 * anything. Without escaping, an ESC sequence could rewrite the terminal (move the cursor,
 * hide lines, set the window title), and a bidi override (U+202E) could make a path read
 * backwards.
 * @module
 */

/**
 * The characters escaped: every control character (C0 U+0000–U+001F, DEL U+007F, C1
 * U+0080–U+009F), the bidi controls (U+061C, U+200E, U+200F, the embeddings and overrides
 * U+202A–U+202E, the isolates U+2066–U+2069) and the line and paragraph separators
 * U+2028, U+2029.
 */
const UNSAFE = /[\p{Cc}\p{Bidi_Control}\u2028\u2029]/gu;

/**
 * The same, less C0: `JSON.stringify` escapes C0 controls inside strings itself, and the
 * ones outside strings are the layout (line breaks and indentation).
 */
const UNSAFE_IN_JSON = /[\x7f-\x9f\p{Bidi_Control}\u2028\u2029]/gu;

/** `\x1b` for a code point below U+0100, else `\u202e`. */
function visible(char: string): string {
  const code = char.codePointAt(0)!;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every control, bidi control and line separator written out visibly (`\x1b`,
 * `\x0a`, `\u202e`); everything else, backslashes included, is kept as it is. The result is
 * one line that shows in a terminal exactly as it reads.
 *
 * @example
 * ```ts
 * import { escapeControls } from "./escape.ts";
 * console.log(escapeControls("/a\x1b[2Jb")); // "/a\\x1b[2Jb"
 * console.log(escapeControls("/files/\u202Etxt.exe")); // "/files/\\u202etxt.exe"
 * console.log(escapeControls("/café?q=✓")); // "/café?q=✓"
 * ```
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, visible);
}

/**
 * JSON text (as `JSON.stringify` writes it) with the characters it leaves raw — DEL, C1
 * controls, bidi controls, U+2028 and U+2029 — written as `\uXXXX` escapes, so the text is
 * safe to print and still parses to the same value. (`JSON.stringify` already escapes C0
 * controls; none of these characters is part of the JSON syntax, so only string contents change.)
 *
 * @example
 * ```ts
 * import { escapeJsonControls } from "./escape.ts";
 * const json = escapeJsonControls(JSON.stringify({ path: "/\u202Eexe\u2028" }));
 * console.log(json); // '{"path":"/\\u202eexe\\u2028"}'
 * console.log(JSON.parse(json).path === "/\u202Eexe\u2028"); // true
 * ```
 */
export function escapeJsonControls(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, "0")}`);
}

/** The five characters that matter in HTML content and quoted attributes, and their entities. */
export const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values.
 *
 * @example
 * ```ts
 * import { escapeHtml } from "./escape.ts";
 * console.log(escapeHtml("/<script>alert(1)</script>")); // "/&lt;script&gt;alert(1)&lt;/script&gt;"
 * ```
 */
export function escapeHtml(text: string): string {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}
