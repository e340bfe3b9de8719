/**
 * Base64 text as bytes, the one reading of `body_base64` (a response's bytes, a request's exact body).
 * @module
 */

/** What base64 text may hold: A-Z a-z 0-9 + /, `=` padding, white space (ignored). */
export const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * The bytes base64 `text` stands for (white space ignored), or undefined when it is not
 * base64 (other characters, a wrong length or padding).
 *
 * @example
 * ```ts
 * import { decodeBase64 } from "./base64.ts";
 * console.log(decodeBase64("AAECA/8=")); // Uint8Array(5) [0, 1, 2, 3, 255]
 * ```
 */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64.test(text)) return undefined;
  let binary: string;
  try {
    binary = atob(text.replace(/\s+/g, ""));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
