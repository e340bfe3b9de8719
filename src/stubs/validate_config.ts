/**
 * The checks of a config document: its top-level settings (`port`, `cors`,
 * `proxy_unmatched`, `wiremock`), then each of its routes as a stub, then (when nothing is
 * wrong) the warnings of {@link configWarnings}.
 * @module
 */

import { type CompiledStub, stubLabel } from "./model.ts";
import { unknownField } from "../util/hint.ts";
import { describe } from "./checks.ts";
import type { Problem } from "./problem.ts";
import { absolutePath } from "./body_file.ts";
import { checkUpstream, validateStub, type ValidateStubOptions } from "./validate_stub.ts";
import { configWarnings } from "./warnings.ts";
import { isObject } from "../util/json_shape.ts";

/** CORS as configured: on for any origin, or for a list of origins. */
export type CorsSetting = boolean | { origins: readonly string[] };

/** A validated config file. */
export interface Config {
  routes: CompiledStub[];
  port?: number;
  /** `cors:`, when the file sets it. */
  cors?: CorsSetting;
  /** `proxy_unmatched:`: where requests no stub matches go. */
  proxyUnmatched?: string;
  /** `wiremock:`: WireMock root folders whose mappings load as stubs, made absolute against the config's folder. */
  wiremock?: string[];
}

/** The top-level keys of a config file. */
export const CONFIG_FIELDS = ["routes", "port", "cors", "proxy_unmatched", "wiremock"] as const;

/** An origin `cors:` may list: scheme, host and port, no path. */
export const ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s]+$/;

/** `true`/`false`, or `{origins: [...]}`: a problem, or undefined. */
export function checkCors(value: unknown): string | undefined {
  if (typeof value === "boolean") return undefined;
  if (isObject(value)) {
    const keys = Object.keys(value);
    const origins = value.origins;
    if (keys.length === 1 && keys[0] === "origins" && Array.isArray(origins)) {
      const bad = origins.find((o) => typeof o !== "string" || !ORIGIN.test(o));
      if (bad === undefined) return undefined;
      return `must list origins like https://app.example:3000 (scheme, host and port; no path), got ${describe(bad)}`;
    }
  }
  return `must be true, false or {origins: [https://app.example, …]}, got ${describe(value)}`;
}

/** Options for {@link validateConfig}. */
export interface ValidateConfigOptions extends Pick<ValidateStubOptions, "baseDir" | "readFile"> {
  /**
   * Two stubs with the same `id` are an error. Set for config files; the admin API leaves
   * it to the server, which answers a duplicate with `409` and names the stub holding the id.
   */
  uniqueIds?: boolean;
}

/**
 * Validates a parsed config document (`{routes: [...], port?}`). Returns the config when
 * there is no error; `problems` holds every error: unknown top-level keys, then `port`,
 * then each route in order. Shadow warnings are added only when there is no error.
 */
export function validateConfig(
  raw: unknown,
  options?: ValidateConfigOptions,
): { config?: Config; problems: Problem[] } {
  const problems: Problem[] = [];
  if (!isObject(raw)) {
    problems.push({ level: "error", message: `the config must be a mapping with a routes list, got ${describe(raw)}` });
    return { problems };
  }
  for (const key of Object.keys(raw)) {
    if (!(CONFIG_FIELDS as readonly string[]).includes(key)) {
      problems.push({ level: "error", message: unknownField("top-level key", key, CONFIG_FIELDS) });
    }
  }
  const settings = checkSettings(raw, problems, options);
  // A config that only names WireMock folders needs no routes.
  const items = raw.routes === undefined && raw.wiremock !== undefined ? [] : raw.routes;
  if (!Array.isArray(items)) {
    problems.push({
      level: "error",
      message: raw.routes === undefined
        ? "routes is required: a list of stubs, each with method and path"
        : `routes must be a list of stubs, got ${describe(raw.routes)}`,
    });
    return { problems };
  }
  const routes = checkRoutes(items, problems, options);
  if (problems.some((p) => p.level === "error")) return { problems };
  problems.push(...configWarnings(routes));
  const config: Config = { routes, port: settings.port };
  if (settings.cors !== undefined) config.cors = settings.cors;
  if (settings.proxyUnmatched !== undefined) config.proxyUnmatched = settings.proxyUnmatched;
  if (settings.wiremock !== undefined) config.wiremock = settings.wiremock;
  return { config, problems };
}

/** Checks the settings beside `routes`: `port`, `proxy_unmatched`, `cors`, `wiremock` (folders made absolute). */
function checkSettings(
  raw: Record<string, unknown>,
  problems: Problem[],
  options: ValidateConfigOptions | undefined,
): Omit<Config, "routes"> {
  let port: number | undefined;
  if (raw.port !== undefined) {
    if (typeof raw.port !== "number" || !Number.isInteger(raw.port) || raw.port < 0 || raw.port > 65535) {
      problems.push({
        level: "error",
        place: "port",
        message: `must be an integer from 0 to 65535, got ${describe(raw.port)}`,
      });
    } else port = raw.port;
  }
  let proxyUnmatched: string | undefined;
  if (raw.proxy_unmatched !== undefined) {
    const problem = checkUpstream(raw.proxy_unmatched, "proxy_unmatched");
    if (problem) {
      problems.push({ level: "error", place: "proxy_unmatched", message: problem.replace(/^proxy_unmatched /, "") });
    } else proxyUnmatched = raw.proxy_unmatched as string;
  }
  let cors: CorsSetting | undefined;
  if (raw.cors !== undefined) {
    const problem = checkCors(raw.cors);
    if (problem) problems.push({ level: "error", place: "cors", message: problem });
    else cors = raw.cors as CorsSetting;
  }
  let wiremock: string[] | undefined;
  if (raw.wiremock !== undefined) {
    const list = typeof raw.wiremock === "string" ? [raw.wiremock] : raw.wiremock;
    if (!Array.isArray(list) || list.length === 0 || list.some((dir) => typeof dir !== "string" || dir === "")) {
      problems.push({
        level: "error",
        place: "wiremock",
        message: `must be a WireMock root folder (or a list of them), got ${describe(raw.wiremock)}`,
      });
    } else wiremock = (list as string[]).map((dir) => absolutePath(dir, options?.baseDir));
  }
  return { port, proxyUnmatched, cors, wiremock };
}

/** Checks each route as a stub (problems placed at `routes[i]`); ids unique when `options.uniqueIds`. */
function checkRoutes(
  items: unknown[],
  problems: Problem[],
  options: ValidateConfigOptions | undefined,
): CompiledStub[] {
  const routes: CompiledStub[] = [];
  /** Where each id was first given, when ids must be unique. */
  const holders = options?.uniqueIds ? new Map<string, [index: number, stub: CompiledStub]>() : undefined;
  for (let i = 0; i < items.length; i++) {
    const { stub, errors } = validateStub(items[i], options);
    for (const message of errors) problems.push({ level: "error", place: `routes[${i}]`, message });
    if (!stub) continue;
    routes.push(stub);
    if (holders && stub.id !== undefined) {
      const holder = holders.get(stub.id);
      if (!holder) holders.set(stub.id, [i, stub]);
      else {
        problems.push({
          level: "error",
          place: `routes[${i}]`,
          message: `id '${stub.id}' is already used by routes[${holder[0]}] (${
            stubLabel(holder[1])
          }); give each stub its own id`,
        });
      }
    }
  }
  return routes;
}
