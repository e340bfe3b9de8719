/**
 * Scope names: the `x-stubtool-scope` header files a request under a name, and a stub's
 * `scope` names the requests it answers. How long a name may be is decided here, once.
 * @module
 */

/** The request header that files a request under a scope. */
export const SCOPE_HEADER = "x-stubtool-scope";

/** The longest scope name, in a stub's `scope` and in an `x-stubtool-scope` header. */
export const MAX_SCOPE_LENGTH = 200;

/**
 * Why a scope name given in `where` (a header, a query parameter) cannot be used, or
 * undefined when it can (absent or empty is no scope, and fine). A longer name is refused
 * rather than ignored: ignoring it would move the shared, unscoped scenario states.
 */
export function scopeNameProblem(value: string | null | undefined, where: string): string | undefined {
  if (value === null || value === undefined || value.length <= MAX_SCOPE_LENGTH) return undefined;
  return `${where}: a scope name is at most ${MAX_SCOPE_LENGTH} characters, got ${value.length}: send a shorter name`;
}

/** {@link scopeNameProblem} of a request's `x-stubtool-scope` header. */
export function scopeHeaderProblem(value: string | null | undefined): string | undefined {
  return scopeNameProblem(value, SCOPE_HEADER);
}
