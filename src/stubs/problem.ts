/**
 * What validation reports: a problem tied to its place. Every check of a config (fields,
 * shadowed stubs, scenario flow, a spec) speaks in these.
 * @module
 */

/** A problem found in a config, tied to where it is. */
export interface Problem {
  level: "error" | "warn";
  /** `routes[2]`, `--stub[0]`, `port`; absent for problems of the file as a whole. */
  place?: string;
  message: string;
}
