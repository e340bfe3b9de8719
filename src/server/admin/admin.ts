/**
 * The admin API: tests in any language add, list, replace and remove stubs on a
 * running server, and ask what their client sent. Bodies are JSON, or YAML with
 * `content-type: application/yaml` (or `text/yaml`), checked by the same validator as config
 * files (same messages); a batch is added whole or not at all.
 *
 * | Request | Answer |
 * | --- | --- |
 * | `GET /__stubtool__/stubs` | `200 {"stubs":[…]}` |
 * | `POST /__stubtool__/stubs` | `201 {"stubs":[{id,method,path}]}`; `400`/`409` with `problems` |
 * | `GET /__stubtool__/stubs/{id}` | `200` the stub; `404` |
 * | `PUT /__stubtool__/stubs/{id}` | `200` the new stub; `404` |
 * | `DELETE /__stubtool__/stubs/{id}` | `204`; `404` |
 * | `DELETE /__stubtool__/stubs[?scope=NAME]` | `204`: the runtime stubs (of that scope) are gone |
 * | `POST /__stubtool__/stubs/reset` | `204`: back to the stubs the server started with |
 * | `POST /__stubtool__/requests/find` | `200 {"count","complete","requests"}` |
 *
 * A `POST` with `x-stubtool-scope: NAME` puts its stubs in that scope unless they name one.
 * `body_file` reads a file of the server's machine, so it is refused here unless the server
 * was given a folder for it (`--files-root`), and then only files inside that folder.
 * @module
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { messageOf } from "../../error_message.ts";
import { parseConfigText } from "../../stubs/config.ts";
import type { CompiledStub, StubSource } from "../../stubs/model.ts";
import { type Problem, type RequestPattern, validateConfig } from "../../stubs/validate.ts";
import { tooLargeMessage } from "../body.ts";
import { checkPattern } from "./find.ts";
import type { Incoming } from "../incoming.ts";
import { errorAnswer, jsonAnswer, type Respond, type ResponseHead } from "../response.ts";
import type { ReservedCall, ReservedHandler, RouteRow } from "./routes.ts";
import type { Route } from "../matching/route.ts";
import type { BatchProblem } from "../matching/stub_set.ts";
import { type StubInfo, stubInfo } from "./stub_form.ts";
import type { JournalEntry } from "../../report/types.ts";
import { resolveInside } from "../../util/paths.ts";
import { isObject } from "../../util/json_shape.ts";
import { SCOPE_HEADER, scopeHeaderProblem } from "../../util/scope_name.ts";

/** What every admin API (`/__stubtool__/stubs`, WireMock's `/__admin/mappings`) asks of the server's stubs. */
export interface StubsHost {
  /** The largest request body accepted (`--max-body`). */
  maxBody: number;
  /** Every stub, in declaration order. */
  routes(): readonly Route[];
  /** The stub with this id. */
  route(id: string): Route | undefined;
  /** Adds a batch; problems (taken ids) keep it out. */
  add(stubs: readonly CompiledStub[], source: StubSource): { routes?: readonly Route[]; problems: BatchProblem[] };
  /** Replaces one stub in place. */
  replaceStub(id: string, stub: CompiledStub): { route?: Route; problems: BatchProblem[] };
  /** Removes the stubs `which` picks; returns their ids. */
  remove(which: (route: Route) => boolean): string[];
  /** Back to the stubs the server started with (`POST /__stubtool__/stubs/reset`). */
  resetStubs(): void;
  /** The folder `body_file` may read from (`--files-root`); none: no file is read. */
  filesRoot?: string;
}

/** What the admin endpoints ask of the server. */
export interface AdminHost extends StubsHost {
  /** The journaled requests a pattern matches, and whether the journal still holds every request. */
  find(pattern: RequestPattern): { requests: JournalEntry[]; complete: boolean };
}

const NO_CONTENT: ResponseHead = { status: 204, headers: {} };
const YAML_TYPES = /^\s*(application|text)\/(x-)?yaml\s*(;|$)/i;
/** Content types read as JSON: none, JSON ones, and plain text. */
const JSON_TYPES = /^\s*(application\/([\w.+-]*\+)?json|text\/plain)\s*(;|$)/i;

/** The admin endpoints' paths under `/__stubtool__/`, for the 404 that lists what exists. */
export const ADMIN_ENDPOINTS = [
  "GET /__stubtool__/stubs",
  "POST /__stubtool__/stubs",
  "DELETE /__stubtool__/stubs[?scope=NAME]",
  "POST /__stubtool__/stubs/reset",
  "GET|PUT|DELETE /__stubtool__/stubs/{id}",
  "POST /__stubtool__/requests/find",
];

/** `400 {"error": "invalid stubs", "problems": [...]}` (or another status and error). */
function problemsAnswer(status: number, error: string, problems: readonly Problem[]): Parameters<Respond<unknown>> {
  return errorAnswer(status, error, {
    problems: problems.map(({ level, place, message }) => ({ level, place: place ?? "body", message })),
  });
}

/** Reads and parses a request body as JSON or YAML (by content type); problems are placed at `body:line:col`. */
async function readDocument(
  incoming: Incoming,
  maxBody: number,
): Promise<{ value: unknown } | { answer: Parameters<Respond<unknown>> }> {
  let text: string;
  try {
    const { bytes, complete } = await incoming.read(maxBody);
    if (!complete) return { answer: errorAnswer(413, tooLargeMessage(maxBody)) };
    text = new TextDecoder().decode(bytes);
  } catch (error) {
    return {
      answer: errorAnswer(400, `could not read the request body: ${messageOf(error)}`),
    };
  }
  if (text.trim() === "") {
    return { answer: errorAnswer(400, "the request body is empty: send a stub, a list of stubs or {routes: [...]}") };
  }
  const type = incoming.header("content-type") ?? "";
  const yaml = YAML_TYPES.test(type);
  if (!yaml && type.trim() !== "" && !JSON_TYPES.test(type) && !isJson(text)) {
    // A form or other body: one line naming what is taken, not a JSON and a YAML parser's complaints.
    // A JSON body under another type is read (curl -d sends application/x-www-form-urlencoded).
    const media = type.split(";")[0].trim();
    return {
      answer: errorAnswer(
        415,
        `the body is ${media}: send JSON (content-type: application/json) or YAML (application/yaml or text/yaml)`,
      ),
    };
  }
  const { raw, problems } = await parseConfigText(text, yaml ? "body.yaml" : "body.json");
  const errors = problems.filter((p) => p.level === "error");
  if (errors.length) {
    return {
      answer: problemsAnswer(
        400,
        `the body is not valid ${yaml ? "YAML" : "JSON"}`,
        errors.map((p) => ({
          ...p,
          place: p.place?.replace(/^body\.(yaml|json)/, "body"),
        })),
      ),
    };
  }
  return { value: raw };
}

/** Is `text` JSON? */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What `body_file` says over the admin API of a server without `--files-root`. */
const NO_FILES = "body_file is not read over the admin API (the server reads no file of its machine): " +
  "send the bytes as body_base64, or use stubtool stubs add FILE, which reads body files on your side and sends " +
  "their bytes; a server started with --files-root DIR reads files inside DIR";

/** The places of a batch's `body_file`s (`routes[i]`, `routes[i].sequence[k]`). */
function bodyFilePlaces(routes: readonly unknown[]): string[] {
  const places: string[] = [];
  routes.forEach((route, i) => {
    if (!isObject(route)) return;
    if (route.body_file !== undefined) places.push(`routes[${i}]`);
    if (Array.isArray(route.sequence)) {
      route.sequence.forEach((entry, k) => {
        if (isObject(entry) && entry.body_file !== undefined) places.push(`routes[${i}].sequence[${k}]`);
      });
    }
  });
  return places;
}

/**
 * How the admin API validates a batch's `body_file`s: refused without a files root (the
 * problems); else read relative to the root, and only when the path, with symbolic links
 * followed, stays inside it.
 */
function fileAccess(
  host: AdminHost,
  routes: readonly unknown[],
): { problems: Problem[] } | { options: Parameters<typeof validateConfig>[1] } {
  const root = host.filesRoot;
  if (root === undefined) {
    return { problems: bodyFilePlaces(routes).map((place) => ({ level: "error", place, message: NO_FILES })) };
  }
  const base = resolve(root);
  return { options: { baseDir: base, readFile: (path) => readInsideRoot(root, path) } };
}

/**
 * Reads a file for an admin call: only a file inside `--files-root` (symbolic links followed).
 * A path outside it, missing or not a file gets one message, so that a client cannot learn
 * whether a path of the server's machine exists.
 */
export function readInsideRoot(root: string, path: string): Uint8Array<ArrayBuffer> {
  const found = resolveInside(root, path);
  if ("problem" in found) throw new Error(`it is not a file inside --files-root ${root}`);
  const buffer = readFileSync(found.path);
  return new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer);
}

/** One stub, a list of stubs, or `{routes: [...]}`, as the config validator's document. */
function asRoutes(value: unknown): unknown {
  if (Array.isArray(value)) return { routes: value };
  if (typeof value === "object" && value !== null && "routes" in value) return value;
  return { routes: [value] };
}

/**
 * The document with `scope` set on each stub that names none, when the admin request carries
 * `x-stubtool-scope` (a worker that forgets the field would otherwise answer every worker).
 */
function inScope(document: unknown, scope: string | null): unknown {
  const routes = (document as { routes?: unknown }).routes;
  if (!scope || !Array.isArray(routes)) return document;
  return {
    ...(document as Record<string, unknown>),
    routes: routes.map((route) => isObject(route) && !("scope" in route) ? { ...route, scope } : route),
  };
}

/** `POST /__stubtool__/stubs`: validate the whole batch, add it or nothing. */
async function addStubs<R>(host: AdminHost, incoming: Incoming, respond: Respond<R>): Promise<R> {
  const read = await readDocument(incoming, host.maxBody);
  if ("answer" in read) return respond(...read.answer);
  const scope = incoming.header(SCOPE_HEADER);
  const scopeProblem = scopeHeaderProblem(scope);
  if (scopeProblem) return respond(...errorAnswer(400, scopeProblem));
  const document = inScope(asRoutes(read.value), scope);
  const routes = (document as { routes?: unknown }).routes;
  const access = fileAccess(host, Array.isArray(routes) ? routes : []);
  if ("problems" in access && access.problems.length) {
    return respond(...problemsAnswer(400, "invalid stubs", access.problems));
  }
  const { config, problems } = validateConfig(document, "options" in access ? access.options : undefined);
  const errors = problems.filter((p) => p.level === "error");
  if (!config || errors.length) return respond(...problemsAnswer(400, "invalid stubs", errors));
  if (config.port !== undefined) {
    return respond(...problemsAnswer(400, "invalid stubs", [{
      level: "error",
      place: "port",
      message: "port can only be set in a config file; the server is already listening",
    }]));
  }
  const { routes: added, problems: taken } = host.add(config.routes, "admin");
  if (!added) {
    return respond(...problemsAnswer(
      409,
      "invalid stubs",
      taken.map((p) => ({ level: "error", place: `routes[${p.index}]`, message: p.message })),
    ));
  }
  const stubs = added.map((r) => ({ id: r.id, method: r.method, path: r.path }));
  return respond(...jsonAnswer({ stubs }, 201));
}

/** `PUT /__stubtool__/stubs/{id}`: one stub in the place of another, under the same id. */
async function replaceStub<R>(host: AdminHost, id: string, incoming: Incoming, respond: Respond<R>): Promise<R> {
  if (!host.route(id)) return respond(...errorAnswer(404, `no stub has id '${id}'`, { id }));
  const read = await readDocument(incoming, host.maxBody);
  if ("answer" in read) return respond(...read.answer);
  if (!isObject(read.value)) {
    return respond(...errorAnswer(400, "PUT takes one stub (a mapping with at least method and path)"));
  }
  const raw = read.value;
  if (raw.id !== undefined && raw.id !== id) {
    return respond(...problemsAnswer(400, "invalid stubs", [{
      level: "error",
      place: "routes[0]",
      message: `id '${raw.id}' differs from the id in the URL ('${id}'); leave id out or make them equal`,
    }]));
  }
  const access = fileAccess(host, [raw]);
  if ("problems" in access && access.problems.length) {
    return respond(...problemsAnswer(400, "invalid stubs", access.problems));
  }
  const { config, problems } = validateConfig({ routes: [raw] }, "options" in access ? access.options : undefined);
  const errors = problems.filter((p) => p.level === "error");
  if (!config || errors.length) return respond(...problemsAnswer(400, "invalid stubs", errors));
  const { route } = host.replaceStub(id, config.routes[0]);
  // Checked above: the id exists, and the body's id (if any) is this one.
  return respond(...jsonAnswer(stubInfo(route!)));
}

/** `POST /__stubtool__/requests/find`. */
async function findRequests<R>(host: AdminHost, incoming: Incoming, respond: Respond<R>): Promise<R> {
  const read = incoming.hasBody() ? await readDocument(incoming, host.maxBody) : { value: {} };
  if ("answer" in read) return respond(...read.answer);
  const { pattern, errors } = checkPattern(read.value ?? {});
  if (!pattern) {
    return respond(...problemsAnswer(
      400,
      "invalid request pattern",
      errors.map((message) => ({ level: "error", place: "pattern", message })),
    ));
  }
  const { requests, complete } = host.find(pattern);
  return respond(...jsonAnswer({ count: requests.length, complete, requests }));
}

/** The id in `/__stubtool__/stubs/{id}`, percent-decoded when it decodes. */
function stubId(params: Record<string, string>): string {
  try {
    return decodeURIComponent(params.id);
  } catch {
    return params.id;
  }
}

/** `GET /__stubtool__/stubs/{id}`. */
function showStub<R>(host: AdminHost, { respond }: ReservedCall<R>, params: Record<string, string>): R {
  const id = stubId(params);
  const route = host.route(id);
  if (!route) return respond(...errorAnswer(404, `no stub has id '${id}'`, { id }));
  return respond(...jsonAnswer(stubInfo(route)));
}

/** `DELETE /__stubtool__/stubs/{id}`. */
function deleteStub<R>(host: AdminHost, { respond }: ReservedCall<R>, params: Record<string, string>): R {
  const id = stubId(params);
  if (host.remove((r) => r.id === id).length === 0) {
    return respond(...errorAnswer(404, `no stub has id '${id}'`, { id }));
  }
  return respond(NO_CONTENT, null);
}

/** The reset stub's address: `stubs/reset` is also `stubs/{id}` with id `reset`. */
const RESET_ID = { id: "reset" };

/** The admin endpoints' routes under `/__stubtool__/`. */
export const ADMIN_ROUTES: readonly RouteRow<ReservedHandler<AdminHost>>[] = [
  {
    method: ["GET", "HEAD"],
    pattern: "stubs",
    handler: (host, { respond }) => respond(...jsonAnswer({ stubs: host.routes().map(stubInfo) })),
  },
  { method: "POST", pattern: "stubs", handler: (host, { incoming, respond }) => addStubs(host, incoming, respond) },
  {
    method: "DELETE",
    pattern: "stubs",
    handler: (host, { query, respond }) => {
      // Stubs added at runtime go; the config's and --stub's stay.
      const scope = query.get("scope");
      host.remove((r) => (r.source === "api" || r.source === "admin") && (scope === null || r.scope === scope));
      return respond(NO_CONTENT, null);
    },
  },
  // `stubs/reset` is also the address of a stub with id `reset`: it takes what `stubs/{id}` takes, and POST.
  { method: ["GET", "HEAD"], pattern: "stubs/reset", handler: (host, call) => showStub(host, call, RESET_ID) },
  {
    method: "POST",
    pattern: "stubs/reset",
    handler: (host, { respond }) => {
      host.resetStubs();
      return respond(NO_CONTENT, null);
    },
  },
  {
    method: "PUT",
    pattern: "stubs/reset",
    handler: (host, { incoming, respond }) => replaceStub(host, "reset", incoming, respond),
  },
  { method: "DELETE", pattern: "stubs/reset", handler: (host, call) => deleteStub(host, call, RESET_ID) },
  { method: ["GET", "HEAD"], pattern: "stubs/{id*}", handler: showStub },
  {
    method: "PUT",
    pattern: "stubs/{id*}",
    handler: (host, { incoming, respond }, params) => replaceStub(host, stubId(params), incoming, respond),
  },
  { method: "DELETE", pattern: "stubs/{id*}", handler: deleteStub },
  {
    method: "POST",
    pattern: "requests/find",
    handler: (host, { incoming, respond }) => findRequests(host, incoming, respond),
  },
];

/** A stub in config form, for the `GET` answers (re-exported for the CLI's `stubs list`). */
export type { StubInfo };
