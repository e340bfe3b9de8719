/**
 * One route table per mount: rows of method, path pattern and handler, matched in order.
 * The first pattern that matches the path owns it; the path's rows pick the handler by
 * method, or the match says which methods the path takes (the mount's 405 names them).
 *
 * A pattern is `/`-separated segments: a literal, `{name}` (one segment, possibly empty)
 * or, last, `{name*}` (the rest of the path, slashes included, possibly empty). Parameters
 * are given as written in the path (not percent-decoded: each mount decodes its own way).
 * @module
 */

import type { Incoming } from "../incoming.ts";
import type { Respond } from "../response.ts";

/** One row of a route table. */
export interface RouteRow<H> {
  /** The method (or methods) this row answers. */
  method: string | readonly string[];
  /** The path pattern, e.g. `stubs/{id*}`, relative to the mount's prefix. */
  pattern: string;
  handler: H;
}

/** What a path asks of a table: a handler with the path's parameters, or the methods the path takes. */
export type RouteMatch<H> =
  | { handler: H; params: Record<string, string> }
  | { allow: string[] };

type Segment = { literal: string } | { param: string; rest: boolean };

interface PathRoutes<H> {
  pattern: string;
  segments: Segment[];
  /** Method → handler, in the order the rows name them (the order of a 405's `allow`). */
  methods: Map<string, H>;
}

function parsePattern(pattern: string): Segment[] {
  const parts = pattern.split("/");
  return parts.map((part, i) => {
    const param = /^\{(\w+)(\*?)\}$/.exec(part);
    if (!param) return { literal: part };
    if (param[2] && i !== parts.length - 1) throw new Error(`route pattern ${pattern}: {${param[1]}*} must be last`);
    return { param: param[1], rest: param[2] === "*" };
  });
}

/** The parameters of `path` when it matches `segments`, else undefined. */
function matchPath(segments: readonly Segment[], path: string): Record<string, string> | undefined {
  const parts = path.split("/");
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if ("literal" in segment) {
      if (parts[i] !== segment.literal) return undefined;
    } else if (segment.rest) {
      if (i >= parts.length) return undefined;
      params[segment.param] = parts.slice(i).join("/");
      return params;
    } else {
      if (i >= parts.length) return undefined;
      params[segment.param] = parts[i];
    }
  }
  return parts.length === segments.length ? params : undefined;
}

/** A mount's routes, compiled once: {@link RouteTable.match} finds a request's handler. */
export class RouteTable<H> {
  readonly #paths: PathRoutes<H>[] = [];

  constructor(rows: readonly RouteRow<H>[]) {
    for (const row of rows) {
      let path = this.#paths.find((p) => p.pattern === row.pattern);
      if (!path) {
        path = { pattern: row.pattern, segments: parsePattern(row.pattern), methods: new Map() };
        this.#paths.push(path);
      }
      for (const method of typeof row.method === "string" ? [row.method] : row.method) {
        if (!path.methods.has(method)) path.methods.set(method, row.handler);
      }
    }
  }

  /** The handler for `method` at `path` (relative to the mount), the methods the path takes, or undefined: no such path. */
  match(method: string, path: string): RouteMatch<H> | undefined {
    for (const routes of this.#paths) {
      const params = matchPath(routes.segments, path);
      if (!params) continue;
      const handler = routes.methods.get(method);
      return handler === undefined ? { allow: [...routes.methods.keys()] } : { handler, params };
    }
    return undefined;
  }
}

/** A request to a route of the `/__stubtool__/` mount, as its handlers see it. */
export interface ReservedCall<R> {
  incoming: Incoming;
  /** The whole path (`/__stubtool__/stubs/x`), as the errors name it. */
  pathname: string;
  /** The query as sent, without `?`. */
  rawQuery: string;
  query: URLSearchParams;
  respond: Respond<R>;
}

/** A handler of the `/__stubtool__/` mount: what it asks of the server (`H`), the request, the path's parameters. */
export type ReservedHandler<H> = <R>(host: H, call: ReservedCall<R>, params: Record<string, string>) => R | Promise<R>;
