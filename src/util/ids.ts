/**
 * What a stub id may hold: one rule for config files, the admin APIs (ours and WireMock's)
 * and the importers that keep an id they were given.
 * @module
 */

/**
 * A stub id: 1 to 100 of letters, digits, `_`, `.`, `:` and `-` (a WireMock mapping's UUID fits).
 *
 * @example
 * ```ts
 * import { STUB_ID } from "./ids.ts";
 * STUB_ID.test("get-user:42"); // true
 * STUB_ID.test("a b"); // false
 * ```
 */
export const STUB_ID = /^[A-Za-z0-9_.:-]{1,100}$/;
