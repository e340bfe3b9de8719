/**
 * `stubtool stubs add|list|remove`: drive a running server's admin API
 * (`/__stubtool__/stubs`) from a shell, a CI step or a test suite in any language.
 * @module
 */

import { Buffer } from "node:buffer";
import { readFile } from "node:fs/promises";
import { describeReadError, parseConfigText, validateParsedConfig } from "../stubs/config.ts";
import { parseInlineStub } from "../stubs/inline.ts";
import { queryLabel } from "../stubs/model.ts";
import { didYouMean, type Problem } from "../stubs/validate.ts";
import { escapeControls } from "../report/escape.ts";
import type { CliContext } from "./context.ts";
import { errorLine, type Output, printProblems, warnLine } from "./output.ts";
import { describeFetchError, endpointUrl, fetchAnyAddress, type ReachOptions, serverTarget } from "./reach.ts";
import { choiceValue, type ParsedArgs, UsageError } from "./usage.ts";

/** How long one admin request may take. */
const TIMEOUT_MS = 10_000;
const ACTIONS = ["add", "list", "remove"] as const;
/** Top-level config keys that configure a server at start; a running server cannot take them. */
const START_ONLY = ["port", "cors", "proxy_unmatched"] as const;

/** A stub as `GET /__stubtool__/stubs` lists it (the fields `list` prints). */
interface ListedStub {
  id: string;
  source: string;
  hit_count: number;
  method: string;
  path: string;
  query_params?: Record<string, unknown>;
  scope?: string;
}

/** One admin request's answer: status and parsed JSON (undefined when not JSON). */
interface AdminAnswer {
  status: number;
  // deno-lint-ignore no-explicit-any
  json: any;
}

/** The server cannot be used: unreachable, or it refused us (token, Host). Exit 2. */
class Unreachable extends Error {}

class Admin {
  readonly #url: URL;
  readonly #reach: ReachOptions;
  readonly display: string;

  constructor(url: URL, reach: ReachOptions) {
    this.#url = url;
    this.#reach = reach;
    this.display = url.href.replace(/\/$/, "");
  }

  async send(
    method: string,
    endpoint: string,
    body?: unknown,
    query: Record<string, string> = {},
  ): Promise<AdminAnswer> {
    let response: Response;
    try {
      response = await fetchAnyAddress(endpointUrl(this.#url, endpoint, query), TIMEOUT_MS, this.#reach, {
        method,
        ...(body !== undefined && { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
      });
    } catch (error) {
      throw new Unreachable(`cannot reach stubtool at ${this.display}: ${describeFetchError(error)}`);
    }
    const text = await response.text().catch(() => "");
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch { /* not JSON: handled by the caller's status check */ }
    const message = (json as { error?: unknown } | undefined)?.error;
    if (response.status === 401 || response.status === 403) {
      throw new Unreachable(
        `stubtool at ${this.display} refused: ${typeof message === "string" ? message : `status ${response.status}`}`,
      );
    }
    if (response.status === 404 && (json === undefined || /unknown stubtool endpoint/.test(String(message)))) {
      throw new Unreachable(
        `${this.display} has no admin API (${endpoint} answered 404); is it stubtool 0.2 or later?`,
      );
    }
    return { status: response.status, json };
  }
}

/**
 * Runs `stubs add|list|remove`. Returns 0 on success, 1 for invalid stubs or an unknown id,
 * 2 when the server cannot be reached or refuses (usage errors throw).
 */
export async function stubsCommand({ values, positionals }: ParsedArgs, { env, output }: CliContext): Promise<number> {
  const [action, ...rest] = positionals;
  if (!(ACTIONS as readonly string[]).includes(action)) {
    const hint = didYouMean(action, ACTIONS);
    throw new UsageError(
      `stubs: unknown action '${action}'${hint ? ` (did you mean '${hint}'?)` : ""}; actions: add, list, remove`,
      "stubs",
    );
  }
  const only = (flag: string, actions: string) => {
    if (values[flag] !== undefined && !actions.split(" ").includes(action)) {
      throw new UsageError(`stubs ${action}: --${flag} is for stubs ${actions.replace(" ", " and ")}`, "stubs");
    }
  };
  only("stub", "add");
  only("scope", "add remove");
  only("all", "remove");
  only("format", "list");
  const { url, reach } = serverTarget(values, env, "stubs");
  const admin = new Admin(url, reach);
  try {
    switch (action) {
      case "add":
        return await add(admin, rest, values, output);
      case "list":
        if (rest.length) throw new UsageError(`stubs list: unexpected argument '${rest[0]}'`, "stubs");
        return await list(admin, values, output);
      default:
        return await remove(admin, rest, values, output);
    }
  } catch (error) {
    if (!(error instanceof Unreachable)) throw error;
    output.err(`[ERROR] ${escapeControls(error.message)}`);
    return 2;
  }
}

/** `stubs add FILE... [--stub S]... [--scope NAME]`: one batch, checked here first. */
async function add(admin: Admin, files: string[], values: ParsedArgs["values"], output: Output): Promise<number> {
  const inlineTexts = (values.stub as string[] | undefined) ?? [];
  const scope = values.scope as string | undefined;
  if (scope === "") throw new UsageError("--scope: must not be empty", "stubs");
  if (files.length === 0 && inlineTexts.length === 0) {
    throw new UsageError("stubs add: nothing to add (give config files, --stub STUB, or both)", "stubs");
  }
  const routes: Record<string, unknown>[] = [];
  /** Where each route came from, for the server's `routes[i]` problems. */
  const origins: string[] = [];
  let failed = false;
  for (const file of files) {
    const loaded = await loadFile(file, output);
    if (!loaded) {
      failed = true;
      continue;
    }
    loaded.forEach((route, j) => {
      routes.push(route);
      origins.push(`${file} routes[${j}]`);
    });
  }
  for (const [k, text] of inlineTexts.entries()) {
    const parsed = await parseInlineStub(text);
    if ("error" in parsed) {
      output.err(errorLine(`--stub[${k}]`, `column ${parsed.error.column}: ${parsed.error.message}`));
      failed = true;
      continue;
    }
    routes.push({ ...parsed.raw });
    origins.push(`--stub[${k}]`);
  }
  if (failed) return 1;
  if (scope !== undefined) { for (const route of routes) route.scope ??= scope; }

  const answer = await admin.send("POST", "stubs", { routes });
  if (answer.status === 400 || answer.status === 409) {
    const problems: Problem[] = (answer.json?.problems ?? []).map((p: Problem) => ({
      level: p.level,
      message: p.message,
      place: (p.place ?? "").replace(/^routes\[(\d+)\]/, (whole, i) => origins[Number(i)] ?? whole),
    }));
    printProblems(output, problems, admin.display);
    if (problems.length === 0) output.err(errorLine(admin.display, String(answer.json?.error ?? answer.status)));
    return 1;
  }
  if (answer.status !== 201 || !Array.isArray(answer.json?.stubs)) {
    throw new Unreachable(
      `${admin.display}: POST /__stubtool__/stubs answered ${answer.status}; is this a stubtool server?`,
    );
  }
  const added = answer.json.stubs as { id: string; method: string; path: string }[];
  const width = Math.max(...added.map((s) => s.id.length));
  for (const stub of added) output.out(`${stub.id.padEnd(width)}  ${stub.method} ${stub.path}`);
  output.out(`[OK] added ${added.length} stub(s) to ${admin.display}${scope !== undefined ? ` (scope ${scope})` : ""}`);
  return 0;
}

/**
 * A config file's routes as the admin API takes them, after the same checks `validate`
 * makes (problems printed; undefined when there are errors). Body files are read here and
 * sent as `body_base64` with their content type: the server may not see this machine's files.
 */
async function loadFile(file: string, output: Output): Promise<Record<string, unknown>[] | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    output.err(errorLine(file, describeReadError(error)));
    return undefined;
  }
  const { config, problems, raw } = await loadWithRaw(text, file);
  printProblems(output, problems, file);
  if (!config || problems.some((p) => p.level === "error")) return undefined;
  for (const key of START_ONLY) {
    if (raw[key] !== undefined) {
      output.err(warnLine(`${file}: ${key}`, "ignored by stubs add: it is set when a server starts (serve)"));
    }
  }
  return (raw.routes as Record<string, unknown>[]).map((route, i) => {
    const stub = config.routes[i];
    const sent = route.body_file === undefined ? { ...route } : fileBody(route, stub.responses[0]);
    if (Array.isArray(route.sequence)) {
      sent.sequence = route.sequence.map((entry: Record<string, unknown>, k: number) =>
        entry?.body_file === undefined ? entry : fileBody(entry, stub.responses[k])
      );
    }
    return sent;
  });
}

/** Parses and validates like `validate` (body files relative to the file's folder), keeping the parsed document. */
async function loadWithRaw(text: string, file: string) {
  const parsed = await parseConfigText(text, file);
  const raw = (parsed.raw ?? {}) as Record<string, unknown>;
  if (parsed.problems.some((p) => p.level === "error")) return { problems: parsed.problems, raw };
  return { ...await validateParsedConfig(parsed, text, file), raw };
}

/** `body_file` replaced by the bytes it named, with the content type the server would give them. */
function fileBody(
  entry: Record<string, unknown>,
  spec: { bytes?: Uint8Array; headers?: Record<string, string | string[]> },
): Record<string, unknown> {
  const { body_file: _file, ...rest } = entry;
  const headers = { ...(rest.headers as Record<string, unknown> | undefined) };
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
  const type = spec.headers?.["content-type"];
  if (!hasType && type !== undefined) headers["content-type"] = type;
  return { ...rest, headers, body_base64: Buffer.from(spec.bytes ?? new Uint8Array()).toString("base64") };
}

/** `stubs list [--format text|json]`. */
async function list(admin: Admin, values: ParsedArgs["values"], output: Output): Promise<number> {
  const format = values.format === undefined
    ? "text"
    : choiceValue(values.format as string, ["text", "json"] as const, "--format", "stubs");
  const answer = await admin.send("GET", "stubs");
  if (answer.status !== 200 || !Array.isArray(answer.json?.stubs)) {
    throw new Unreachable(
      `${admin.display}: GET /__stubtool__/stubs answered ${answer.status}; is this a stubtool server?`,
    );
  }
  const stubs = answer.json.stubs as ListedStub[];
  if (format === "json") {
    output.out(JSON.stringify({ stubs }, null, 2));
    return 0;
  }
  if (stubs.length === 0) {
    output.out(`no stubs on ${admin.display}`);
    return 0;
  }
  const rows = [
    ["ID", "SOURCE", "HITS", "STUB", "SCOPE"],
    ...stubs.map((s) => [
      s.id,
      s.source,
      String(s.hit_count),
      `${s.method} ${s.path}${
        s.query_params && Object.keys(s.query_params).length ? `?${queryLabel(s.query_params)}` : ""
      }`,
      s.scope ?? "",
    ]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  for (const row of rows) {
    output.out(escapeControls(row.map((cell, c) => cell.padEnd(widths[c])).join("  ").trimEnd()));
  }
  return 0;
}

/** `stubs remove ID...` or `stubs remove --all [--scope NAME]`. */
async function remove(admin: Admin, ids: string[], values: ParsedArgs["values"], output: Output): Promise<number> {
  const scope = values.scope as string | undefined;
  if (values.all === true) {
    if (ids.length) throw new UsageError("stubs remove: give ids or --all, not both", "stubs");
    const listed = await admin.send("GET", "stubs");
    const runtime = ((listed.json?.stubs ?? []) as ListedStub[])
      .filter((s) => (s.source === "api" || s.source === "admin") && (scope === undefined || s.scope === scope));
    const answer = await admin.send("DELETE", "stubs", undefined, scope === undefined ? {} : { scope });
    if (answer.status !== 204) {
      throw new Unreachable(`${admin.display}: DELETE /__stubtool__/stubs answered ${answer.status}`);
    }
    output.out(
      `[OK] removed ${runtime.length} stub(s) added at runtime${
        scope === undefined ? "" : ` with scope ${scope}`
      } from ${admin.display}; the config's and --stub's stay`,
    );
    return 0;
  }
  if (scope !== undefined) throw new UsageError("stubs remove: --scope goes with --all", "stubs");
  if (ids.length === 0) throw new UsageError("stubs remove: give the ids to remove, or --all", "stubs");
  let code = 0;
  for (const id of ids) {
    const answer = await admin.send("DELETE", `stubs/${encodeURIComponent(id)}`);
    if (answer.status === 204) output.out(`removed ${escapeControls(id)}`);
    else {
      output.err(
        errorLine(escapeControls(id), `no stub has this id on ${admin.display} (stubtool stubs list shows them)`),
      );
      code = 1;
    }
  }
  return code;
}
