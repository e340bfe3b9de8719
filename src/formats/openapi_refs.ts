/**
 * The marker a `$ref` the reader refused resolves to (src/cli/loaders/openapi_document.ts reads
 * only inside the spec's folder, PRODUCT.md P23.6), and how the importer finds it in a parsed
 * document to leave the operation that uses it out, so the rest of the spec still serves.
 * @module
 */

/** The key of the object a refused `$ref` resolves to; its value says why. */
export const REFUSED_REF = "x-stubtool-refused-ref";

/** The first refused-`$ref` marker in `value` (following nothing): its text, or undefined. */
export function refusedRefIn(value: unknown): string | undefined {
  if (typeof value === "string") {
    if (!value.startsWith(`{"${REFUSED_REF}"`)) return undefined;
    try {
      return (JSON.parse(value) as Record<string, string>)[REFUSED_REF];
    } catch {
      return undefined;
    }
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value) && REFUSED_REF in value) {
    return String((value as Record<string, unknown>)[REFUSED_REF]);
  }
  return undefined;
}
