/**
 * Runs one parser on one input, inside a Worker, so that the fuzz tests can bound each case
 * in time: a parser that loops forever is terminated from outside and reported with its
 * input. Replies `{ id, ok: true, summary }` or `{ id, ok: false, error }` (an exception
 * that escaped the parser).
 * @module
 */
/// <reference lib="deno.worker" />

import { get, post } from "../mod.ts";
import { loadConfigText } from "../src/stubs/config.ts";
import { StubHandler } from "../src/server/handler.ts";
import { duplicateKeyOffsets } from "../src/stubs/duplicate_keys.ts";
import { inlineStub } from "../src/stubs/inline.ts";
import { validateStub } from "../src/stubs/validate.ts";
import { parsePathTemplate } from "../src/stubs/path.ts";
import { NEED_BODY, Router } from "../src/server/matching/router.ts";
import { Route } from "../src/server/matching/route.ts";
import { RequestView } from "../src/server/request_view.ts";
import type { Incoming } from "../src/server/incoming.ts";

/** The parsers under fuzzing, each turning an input into a short summary of its outcome. */
export type FuzzTarget = "config" | "inline" | "query" | "duplicate_keys" | "path" | "handler";

/** A request to the worker: parse `input` with `target`; `file` names a config text (it picks the format). */
export interface FuzzCase {
  id: number;
  target: FuzzTarget;
  input: string;
  file?: string;
}

/** Stubs the query target matches against: literal and captured query values, under static and placeholder paths. */
const QUERY_STUBS = [
  "/search?q={term}",
  "/search?sort=asc",
  "/search",
  "/{a}?__proto__={p}",
  "/{a}/{b}?constructor=x&a%20b={c}",
  "/é/{x}?é=é",
];
let router: Router<Route> | undefined;

function queryRouter(): Router<Route> {
  if (router) return router;
  router = new Router<Route>();
  QUERY_STUBS.forEach((text, order) => {
    const { stub } = validateStub({ method: "GET", path: text });
    router!.add(new Route(stub!, { id: text, source: "api", batch: 0, order }));
  });
  return router;
}

let handler: StubHandler | undefined;
let handled = 0;

/** A handler with placeholder, query, header-template and response-function stubs. */
function fuzzHandler(): StubHandler {
  return handler ??= new StubHandler([
    get("/users/{id}").header("x-id", "{id}").body({ id: "{id}" }).toStub(),
    get("/search?q={term}").body({ term: "{term}" }).toStub(),
    get("/search?sort=asc").body("sorted").toStub(),
    get("/{a}/{b}").header("content-type", "text/plain").body("{a}/{b}").toStub(),
    post("/echo/{x}").responseFunc(({ params, queryParams, payload }) => [200, { params, queryParams, payload }])
      .toStub(),
  ], { maxUnmatched: 10 });
}

async function run({ target, input, file }: FuzzCase): Promise<string> {
  switch (target) {
    case "config": {
      const { config, problems } = await loadConfigText(input, file ?? "fuzz.yaml");
      const name = file ?? "fuzz.yaml";
      const lines = input.replace(/^\uFEFF/, "").split("\n");
      for (const problem of problems) {
        if (typeof problem.message !== "string" || problem.message === "") throw new Error("a problem without message");
        // A place is the file, a line and column inside the text (then, for a field, `: port` or `: routes[i]`),
        // or `port`, `routes[i]` when the field is not found in the text.
        const at = /^(.*?):(\d+):(\d+)(?:: (?:port|cors|proxy_unmatched|routes\[\d+\](?:\.sequence\[\d+\])?))?$/.exec(
          problem.place ?? "",
        );
        if (at) {
          const [line, col] = [Number(at[2]), Number(at[3])];
          if (at[1] !== name || line < 1 || line > lines.length || col < 1 || col > lines[line - 1].length + 1) {
            throw new Error(`place ${problem.place} is outside the text (${lines.length} lines)`);
          }
        } else if (
          !(problem.place === name || problem.place === "port" ||
            /^routes\[\d+\](\.sequence\[\d+\])?$/.test(problem.place ?? "") ||
            // JSON nested past the limit: the file, then the data path to the first level too deep.
            (problem.place ?? "").startsWith(`${name} `) && problem.message.includes("levels deep"))
        ) {
          throw new Error(`unexpected place ${problem.place}`);
        }
      }
      if (!config && !problems.some((p) => p.level === "error")) throw new Error("no config and no error");
      return config ? `config: ${config.routes.length} route(s)` : `problems: ${problems.length}`;
    }
    case "inline": {
      const { stub, errors } = await inlineStub(input);
      if (!stub && errors.length === 0) throw new Error("no stub and no error");
      for (const error of errors) {
        const column = Number(/^column (\d+): ./s.exec(error)?.[1]);
        if (!(column >= 1 && column <= input.length + 1)) {
          throw new Error(`error without a column in the text: ${error}`);
        }
      }
      return stub ? `stub: ${stub.method} ${stub.path}` : `errors: ${errors.length}`;
    }
    case "query": {
      // The input is a request target: path and query, as a client may send them.
      const q = input.indexOf("?");
      const path = q === -1 ? input : input.slice(0, q);
      const query = q === -1 ? "" : input.slice(q + 1);
      const view = new RequestView(
        { header: () => null } as unknown as Incoming,
        "GET",
        path.startsWith("/") ? path : "/" + path,
        query,
      );
      const match = queryRouter().match(view);
      if (match === NEED_BODY) throw new Error("a query stub asked for the body");
      if (match) return `match: ${match.route.path} ${JSON.stringify(match.values)}`;
      const misses = queryRouter().nearMisses(view);
      if (misses === NEED_BODY) throw new Error("a query stub asked for the body");
      return `misses: ${misses.length}`;
    }
    case "handler": {
      // The input is `METHOD target`, as it could come off the wire; the answer must be a
      // status with a JSON error body whenever the server itself answers, and counts add up.
      const space = input.indexOf(" ");
      const method = space === -1 ? "GET" : input.slice(0, space);
      const rest = space === -1 ? input : input.slice(space + 1);
      const target = rest.startsWith("/") ? rest : "/" + rest;
      const incoming = {
        method,
        target,
        header: () => null,
        headers: () => ({}),
        headerSource: () => ({}),
        hasBody: () => true,
        read: () => Promise.resolve({ bytes: new TextEncoder().encode('{"a":1}'), complete: true }),
        body: () => Promise.resolve(new TextEncoder().encode('{"a":1}')),
        stream: () => null,
      };
      const h = fuzzHandler();
      const [status, body] = await h.handle(incoming, (head, text) => [head.status, text] as const);
      if (!Number.isInteger(status) || status < 200 || status > 599) throw new Error(`status ${status}`);
      // A HEAD answer is the GET's without its body (its length stays in content-length).
      if (method === "HEAD") {
        if (body !== null && !(body instanceof ReadableStream)) throw new Error(`a HEAD answer with a body: ${body}`);
      } else if (status >= 400 && typeof JSON.parse(typeof body === "string" ? body : "").error !== "string") {
        throw new Error(`error body ${body}`);
      }
      const pathname = target.split("?")[0];
      if (pathname === "/__stubtool__" || pathname.startsWith("/__stubtool__/")) {
        if (status === 204) handled = 0; // POST /__stubtool__/reset
      } else handled++;
      const report = h.report();
      const counted = report.stubs.reduce((sum, s) => sum + s.hit_count, 0) + report.summary.unmatched_requests;
      if (counted !== handled) throw new Error(`report counts ${counted} requests, ${handled} were sent`);
      return `${status}`;
    }
    case "duplicate_keys":
      return `duplicates: ${duplicateKeyOffsets(input).length}`;
    case "path": {
      const { template, problems } = parsePathTemplate(input);
      if (!template && problems.length === 0) throw new Error("no template and no problem");
      return template ? `template: ${template.segments.length} segment(s)` : `problems: ${problems.length}`;
    }
  }
}

self.onmessage = async (event: MessageEvent<FuzzCase>) => {
  const { id } = event.data;
  try {
    const summary = await run(event.data);
    // Inputs carry `__proto__` and `constructor` keys: none may reach a prototype.
    const probe = {} as Record<string, unknown>;
    if (probe.polluted !== undefined || Object.keys(Object.prototype).length > 0) {
      throw new Error("Object.prototype was polluted");
    }
    self.postMessage({ id, ok: true, summary });
  } catch (error) {
    self.postMessage({
      id,
      ok: false,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }
};

// Loaded (and type-checked): the runner starts timing cases from here, not from the spawn.
self.postMessage({ ready: true });
