/**
 * Scopes: the `x-stubtool-scope` header files a request under a name (scoped stubs,
 * scoped coverage, per-scope scenario states). What makes a name usable lives here, once.
 * @module
 */

import { MAX_SCOPE_LENGTH } from "../util/scope_name.ts";

export { MAX_SCOPE_LENGTH, SCOPE_HEADER, scopeHeaderProblem } from "../util/scope_name.ts";

/** Is this a usable scope name (non-empty, at most {@link MAX_SCOPE_LENGTH} characters)? */
export function usableScope(name: string | null | undefined): name is string {
  return name !== null && name !== undefined && name !== "" && name.length <= MAX_SCOPE_LENGTH;
}

/** A scope header's value as a scope: itself when usable, else null (no scope). */
export function scopeFrom(value: string | null | undefined): string | null {
  return usableScope(value) ? value : null;
}
