/**
 * The benchmark's stubs written as WireMock mappings, for `serve --wiremock DIR` and
 * `validate --wiremock DIR`: S1's and S7's stub sets as WireMock users would write them
 * (one mapping file each, as WireMock records them), and a folder of 1,000 mappings of
 * mixed, realistic shape for the loading figure.
 *
 *   deno run -A bench/wiremock.ts [--files 1000] [--rounds 5]   # the loading figure alone
 * @module
 */

import { parseArgs } from "node:util";
import { makeConfig, makePaymentsConfig } from "./scenarios.ts";

/** One WireMock mapping: `request` and `response`, and the scenario fields where used. */
export type Mapping = Record<string, unknown>;

const JSON_HEADERS = { "Content-Type": "application/json" };

/**
 * A `{name}` in a native stub's text as a WireMock template reads that path segment
 * (`{{request.pathSegments.[1]}}`). WireMock also reads it as `{{request.path.name}}`,
 * which stubtool's templates do not (yet) fill. Strings only; numbers and lists are kept.
 */
function templated(value: unknown, path: string): unknown {
  const segments = path.split("/").slice(1);
  if (typeof value === "string") {
    return value.replace(/\{(\w+)\}/g, (_, name) => `{{request.pathSegments.[${segments.indexOf(`{${name}}`)}]}}`);
  }
  if (Array.isArray(value)) return value.map((v) => templated(v, path));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, templated(v, path)]));
  }
  return value;
}

/** The body of the S9 template stub as WireMock writes it (a JSON field is read with `jsonPath`). */
const S9_WIREMOCK_BODY = {
  id: "{{request.pathSegments.[1]}}",
  sku: "{{jsonPath request.body '$.sku'}}",
  at: "{{now format='epoch'}}",
  kind: "order",
};

/**
 * The stubs of {@link makeConfig} (`total` of them, S1's set) as WireMock mappings: a static
 * path as `urlPath`, a path with `{name}` as `urlPathTemplate` with the response template
 * reading the path segment, scenario fields as WireMock's, JSON bodies as `jsonBody`
 * under a JSON content type.
 */
export function makeConfigMappings(total: number): Mapping[] {
  return makeConfig(total).routes.map((stub) => {
    const path = stub.path as string;
    const hasParams = /\{\w+\}/.test(path);
    const template = stub.template === true || hasParams;
    const request: Record<string, unknown> = { method: stub.method };
    if (hasParams) request.urlPathTemplate = path;
    else request.urlPath = path;
    const response: Record<string, unknown> = { status: stub.status ?? 200 };
    if (stub.body !== undefined) {
      response.headers = JSON_HEADERS;
      response.jsonBody = stub.template === true
        ? S9_WIREMOCK_BODY
        : hasParams
        ? templated(stub.body, path)
        : stub.body;
    }
    if (template) response.transformers = ["response-template"];
    const mapping: Mapping = { request, response };
    if (stub.scenario !== undefined) mapping.scenarioName = stub.scenario;
    if (stub.when_state !== undefined) mapping.requiredScenarioState = stub.when_state;
    if (stub.set_state !== undefined) mapping.newScenarioState = stub.set_state;
    return mapping;
  });
}

/**
 * The 1,000 stubs of {@link makePaymentsConfig} (S7's set) as WireMock mappings: the header
 * as `headers` `equalTo`, the body field as `bodyPatterns` `equalToJson` with
 * `ignoreExtraElements`, which convert to the same `headers` and `json` conditions.
 */
export function makePaymentsMappings(): Mapping[] {
  return makePaymentsConfig().routes.map((stub) => {
    const request = stub.request as { headers: Record<string, string>; json: unknown };
    return {
      request: {
        method: stub.method,
        urlPath: stub.path,
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, { equalTo: value }])),
        bodyPatterns: [{ equalToJson: request.json, ignoreExtraElements: true }],
      },
      response: { status: stub.status, headers: JSON_HEADERS, jsonBody: stub.body },
    };
  });
}

/** A UUID-shaped id, as WireMock's recorder writes one per mapping. */
function uuid(n: number): string {
  const hex = n.toString(16).padStart(12, "0");
  return `5e1f0c2a-7b3d-4c1e-9a2b-${hex}`;
}

/**
 * `count` mappings of mixed shape, as a real WireMock folder has: `url` with a query,
 * `urlPath`, `urlPathPattern`, `urlPathTemplate` with a response template; header
 * conditions, `equalToJson` body patterns, query parameters; `jsonBody`, text bodies and
 * (every fifth) a `bodyFileName` in `__files`; ids on most. Returns the mappings and the
 * `__files` they name.
 */
export function makeRealisticMappings(count: number): { mappings: Mapping[]; files: Record<string, string> } {
  const mappings: Mapping[] = [];
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const resource = ["users", "orders", "products", "invoices", "carts"][i % 5];
    const request: Record<string, unknown> = {};
    const response: Record<string, unknown> = {
      status: 200,
      headers: { ...JSON_HEADERS, "Cache-Control": "no-store" },
    };
    switch (i % 4) {
      case 0:
        request.method = "GET";
        request.url = `/api/v1/${resource}/${i}?expand=items&page=1`;
        break;
      case 1:
        request.method = "GET";
        request.urlPath = `/api/v1/${resource}/${i}`;
        request.queryParameters = { fields: { matches: "[a-z,]+" } };
        break;
      case 2:
        request.method = "POST";
        request.urlPathPattern = `/api/v1/${resource}/${i}/items/[0-9]+`;
        request.bodyPatterns = [{ equalToJson: { kind: resource, qty: i % 7 }, ignoreExtraElements: true }];
        response.status = 201;
        break;
      default:
        request.method = "PUT";
        request.urlPathTemplate = `/api/v1/${resource}/${i}/{id}`;
        response.transformers = ["response-template"];
        break;
    }
    request.headers = {
      Accept: { contains: "json" },
      ...(i % 3 === 0 ? { Authorization: { matches: "Bearer [A-Za-z0-9._-]+" } } : {}),
      ...(i % 2 === 0 ? { "X-Tenant": { equalTo: `tenant-${i % 10}` } } : {}),
    };
    if (i % 5 === 0) {
      const name = `${resource}/${i}.json`;
      response.bodyFileName = name;
      files[name] = JSON.stringify({ id: i, resource, items: [{ sku: `s-${i}`, qty: 1 }] }, null, 2);
    } else if (i % 4 === 3) {
      response.jsonBody = { id: "{{request.pathSegments.[4]}}", resource, updated: true };
    } else {
      response.jsonBody = {
        id: i,
        resource,
        name: `Item ${i}`,
        tags: ["a", "b"],
        price: 10 + (i % 90),
        links: { self: `/api/v1/${resource}/${i}` },
      };
    }
    const mapping: Mapping = { request, response };
    if (i % 10 !== 9) mapping.id = uuid(i);
    if (i % 2 === 0) mapping.name = `${resource} ${i}`;
    mappings.push(mapping);
  }
  return { mappings, files };
}

/**
 * Writes a WireMock root folder: one file per mapping under `mappings/` (names sort in
 * the list's order) and the `__files`.
 */
export async function writeWireMockFolder(
  dir: string,
  mappings: Mapping[],
  files: Record<string, string> = {},
): Promise<string> {
  await Deno.mkdir(`${dir}/mappings`, { recursive: true });
  await Deno.mkdir(`${dir}/__files`, { recursive: true });
  const width = String(mappings.length).length;
  await Promise.all(
    mappings.map((mapping, i) =>
      Deno.writeTextFile(`${dir}/mappings/m${String(i).padStart(width, "0")}.json`, JSON.stringify(mapping, null, 2))
    ),
  );
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/__files/${name.replace(/\/[^/]*$/, "")}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/__files/${name}`, text);
  }
  return dir;
}

/** What loading a folder of mappings costs. */
export interface LoadTimes {
  /** How many mapping files, and how many became stubs. */
  files: number;
  stubs: number;
  /** Reading, converting and validating the folder, then registering its stubs in a server, in-process (ms). */
  inProcessMs: number;
  /** `stubtool validate --wiremock DIR` as a subprocess, from spawn to exit (ms), Deno's start included. */
  validateMs: number;
  /** The same command on an empty folder: Deno's start and the CLI's own loading (ms). */
  emptyMs: number;
}

/** Loads `dir` as `serve --wiremock` does (read, convert, validate, register in a handler), timed, in this process. */
async function loadOnce(dir: string): Promise<Pick<LoadTimes, "files" | "stubs" | "inProcessMs">> {
  const { loadWireMockFolder } = await import("../src/cli/loaders/wiremock_folder.ts");
  const { StubHandler } = await import("../src/server/handler.ts");
  // The folder holds templates: their engine loads first, outside the timing (serve loads it before it reads them).
  await (await import("../src/templating/engine.ts")).loadTemplating();
  const started = performance.now();
  const loaded = loadWireMockFolder(dir);
  const handler = new StubHandler([], { wiremock: [loaded.stubs] });
  const inProcessMs = performance.now() - started;
  if (loaded.problems.length) throw new Error(`mappings left out: ${loaded.problems[0].message}`);
  if (handler.report().summary.total_stubs !== loaded.stubs.length) throw new Error("not every stub registered");
  return { files: loaded.files, stubs: loaded.stubs.length, inProcessMs };
}

/**
 * Times loading `dir`: in a fresh process each time (so no round finds the compiled code or
 * the patterns of the one before), the folder read and converted, the stubs validated and
 * registered in a handler, as `serve --wiremock` does; and as `validate --wiremock DIR`.
 */
export async function timeLoad(dir: string, emptyDir: string, root: string): Promise<LoadTimes> {
  const run = async (args: string[]) => {
    const began = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", ...args],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    const ms = performance.now() - began;
    if (!out.success) throw new Error(`${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
    return { ms, stdout: new TextDecoder().decode(out.stdout) };
  };
  const once = JSON.parse((await run(["bench/wiremock.ts", "--load-once", dir])).stdout);
  return {
    ...once,
    validateMs: (await run(["cli.ts", "validate", "--wiremock", dir])).ms,
    emptyMs: (await run(["cli.ts", "validate", "--wiremock", emptyDir])).ms,
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      files: { type: "string", default: "1000" },
      rounds: { type: "string", default: "5" },
      // One in-process load of this folder, its figures printed as JSON (timeLoad runs it in a fresh process).
      "load-once": { type: "string" },
    },
  });
  if (values["load-once"] !== undefined) {
    console.log(JSON.stringify(await loadOnce(values["load-once"])));
    Deno.exit(0);
  }
  const dir = await Deno.makeTempDir({ prefix: "stubtool-wiremock-" });
  const { mappings, files } = makeRealisticMappings(Number(values.files));
  await writeWireMockFolder(`${dir}/big`, mappings, files);
  await writeWireMockFolder(`${dir}/empty`, []);
  for (let round = 0; round < Number(values.rounds); round++) {
    const t = await timeLoad(`${dir}/big`, `${dir}/empty`, new URL("..", import.meta.url).pathname);
    console.log(
      `${t.files} files → ${t.stubs} stubs: in-process ${t.inProcessMs.toFixed(0)} ms; ` +
        `validate --wiremock ${t.validateMs.toFixed(0)} ms (empty folder ${t.emptyMs.toFixed(0)} ms)`,
    );
  }
  await Deno.remove(dir, { recursive: true });
}
