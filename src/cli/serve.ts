/**
 * `stubtool serve`: load stubs from a config file and inline `--stub`s, serve them, log
 * one line per request, and shut down gracefully on SIGINT, SIGTERM or SIGHUP: a stop ends
 * within the 5 s grace plus a second, and a second signal ends it at once.
 * @module
 */

import { loadTemplating } from "../templating/engine.ts";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { describeReadError, loadConfigFile } from "../stubs/config.ts";
import type { RequestLogEntry } from "../server/handler.ts";
import { inlineStubs } from "../stubs/inline.ts";
import { type CompiledStub, stubLabel } from "../stubs/model.ts";
import { escapeControls, escapeJsonControls } from "../report/escape.ts";
import type { Report } from "../report/types.ts";
import { hostName, isLoopbackName } from "../server/admin/guard.ts";
import {
  folderProblem,
  SHUTDOWN_GRACE_MS,
  type StubServer,
  stubServer,
  type StubServerOptions,
} from "../server/server.ts";
import { checkUpstream, type Config, denoWireWarnings, type Problem } from "../stubs/validate.ts";
import { VERSION } from "../version.ts";
import { checkStoreUrl, redactStoreUrl } from "../server/state/store_url.ts";
import { loadWireMockAdmin } from "../server/wiremock/lazy.ts";
import type { WireMockFolders } from "./loaders/wiremock_folder.ts";
import type { CliContext } from "./context.ts";
import { checkOutputPath, describeWriteError, writeFileAtomic } from "./files.ts";
import { errorLine, type Output, printProblems, warnLine } from "./output.ts";
import { openApiServe } from "./serve_openapi.ts";
import { stopRequests } from "./signals.ts";
import { countValue, DEFAULT_CONFIG_PATH, type ParsedArgs, portValue, secondsValue, UsageError } from "./usage.ts";

const DEFAULT_PORT = 8080;
const DEFAULT_HOST = "127.0.0.1";

/**
 * One request-log line: `GET /users/42?x=1 200 [get-user: GET /users/{id}] 0.4ms` (then the
 * scenario move the stub made, `[cart: Started → has-item]`), or
 * `[UNMATCHED]` in place of the stub, with the ids of the stubs that came closest
 * (`[UNMATCHED; closest: stub-1, stub-2]`). Control and bidi characters a client sent in the
 * method or path are written out visibly (`\x1b`, `\u202e`), so a request cannot drive the
 * terminal or split the line.
 *
 * @example
 * ```ts
 * import { logLine } from "./serve.ts";
 * console.log(logLine({ method: "GET", target: "/nope", status: 404, ms: 0.21 }));
 * // "GET /nope 404 [UNMATCHED] 0.2ms"
 * console.log(logLine({ method: "GET", target: "/user", status: 404, closest: ["get-user"], ms: 0.21 }));
 * // "GET /user 404 [UNMATCHED; closest: get-user] 0.2ms"
 * console.log(logLine({ method: "POST", target: "/cart", status: 201, stub: "POST /cart", id: "add", transition: "cart: Started → one-item", ms: 0.21 }));
 * // "POST /cart 201 [add: POST /cart] [cart: Started → one-item] 0.2ms"
 * console.log(logLine({ method: "GET", target: "/\x1b[2J", status: 404, ms: 0.21 }));
 * // "GET /\\x1b[2J 404 [UNMATCHED] 0.2ms"
 * ```
 */
export function logLine(entry: RequestLogEntry): string {
  const stub = entry.stub === undefined
    ? entry.closest?.length ? `UNMATCHED; closest: ${entry.closest.join(", ")}` : "UNMATCHED"
    : entry.id === undefined
    ? entry.stub
    : `${entry.id}: ${entry.stub}`;
  const moved = entry.transition === undefined ? "" : ` [${entry.transition}]`;
  return escapeControls(`${entry.method} ${entry.target} ${entry.status} [${stub}]${moved} ${entry.ms.toFixed(1)}ms`);
}

function describeResponse(stub: CompiledStub): string {
  if (stub.responseFunc) return "function";
  if (stub.proxy !== undefined) return `proxy ${stub.proxy}`;
  if (stub.websocket) return "websocket";
  const delay = (spec: { delay?: CompiledStub["delay"] }) => {
    const d = spec.delay;
    if (d === undefined) return "";
    if (typeof d === "number") return ` +${d}ms`;
    return "min" in d ? ` +${d.min}-${d.max}ms` : ` +~${d.median + (d.plus ?? 0)}ms`;
  };
  if (!stub.isSequence) return `${stub.responses[0].status}${delay(stub.responses[0])}`;
  const steps = stub.responses.map((r) => `${r.status}${delay(r)}`).join(", ");
  return `sequence ${steps} (${stub.sequenceMode})`;
}

/**
 * A stub's scenario condition for the route table: `[cart: has-item]` (answers in that state),
 * `[cart: Started → has-item]` (and moves it), `[cart: * → Started]` (moves it from any state).
 */
function scenarioCell(stub: CompiledStub): string {
  if (stub.scenario === undefined) return "";
  const from = stub.whenState ?? "*";
  return `[${stub.scenario}: ${stub.setState === undefined ? from : `${from} → ${stub.setState}`}]`;
}

/** The route table shows at most this many stubs; a config of thousands would bury the banner. */
export const ROUTE_TABLE_ROWS = 40;

/**
 * The route table of the start banner: one line per stub, `  METHOD  PATH  RESPONSE  SOURCE`,
 * columns padded to the widest shown entry. Past `maxRows` stubs, one last line says how
 * many more there are and where to see them.
 */
export function routeTable(
  stubs: readonly CompiledStub[],
  places: readonly string[] | ((index: number) => string),
  maxRows = ROUTE_TABLE_ROWS,
): string[] {
  const placeOf = typeof places === "function" ? places : (i: number) => places[i];
  const shown = Math.min(stubs.length, maxRows);
  const rows: string[][] = [];
  // A column for scenario conditions only when a shown stub has one: three `GET /cart 200` lines tell nothing apart.
  const flows = stubs.slice(0, shown).some((stub) => stub.scenario !== undefined);
  for (let i = 0; i < shown; i++) {
    const stub = stubs[i];
    const row = [stub.method, stubLabel(stub).slice(stub.method.length + 1), describeResponse(stub)];
    if (flows) row.push(scenarioCell(stub));
    row.push(placeOf(i));
    rows.push(row);
  }
  const last = rows[0]?.length - 1;
  const widths = rows[0]?.map((_, c) => rows.reduce((width, row) => Math.max(width, row[c].length), 0)) ?? [];
  const lines = rows.map((row) => `  ${row.map((cell, c) => c < last ? cell.padEnd(widths[c]) : cell).join("  ")}`);
  if (stubs.length > shown) {
    lines.push(`  … and ${stubs.length - shown} more routes (GET /__stubtool__/report lists them all)`);
  }
  return lines;
}

/** Where `serve` gets its stubs from, before loading. */
interface Sources {
  /** The config file to load, if any. */
  file?: string;
  /** A line for the banner when no config file is loaded. */
  note?: string;
}

/**
 * The config file: `--config`, else `STUBTOOL_CONFIG`, else the default path if it exists.
 * A file named by the flag or the variable must exist (loading it says so if not); only
 * the default may be absent, so that the container image starts without one.
 */
function configSource(explicit: string | undefined, { env }: CliContext): Sources {
  if (explicit !== undefined) return { file: explicit };
  const fromEnv = env.STUBTOOL_CONFIG?.trim();
  if (fromEnv) return { file: fromEnv };
  if (existsSync(DEFAULT_CONFIG_PATH)) return { file: DEFAULT_CONFIG_PATH };
  return { note: `${DEFAULT_CONFIG_PATH} not found` };
}

/** Settings from flags and environment, checked before anything is loaded. */
interface Settings {
  port?: number;
  portSource: string;
  hostname: string;
  /** What chose the host: `--host`, `STUBTOOL_HOST` or `default`. */
  hostSource: string;
  maxUnmatched?: number;
  maxBody?: number;
  handlerTimeoutMs?: number;
  journalSize?: number;
  journalBytes?: number;
  reportFile?: string;
  quiet: boolean;
  scopes: boolean;
  watch: boolean;
  /** `--cors`: any origin (a config's `cors:` may list origins instead). */
  cors: boolean;
  proxyUnmatched?: string;
  /** Certificate files (`--tls-cert`/`--tls-key` or their variables), or a self-signed one. */
  tls?: { certFile: string; keyFile: string } | "self-signed";
  tlsCertOut?: string;
  /** `--callback-ca` (or `STUBTOOL_CALLBACK_CA`): PEM certificates to trust for https callback receivers. */
  callbackCaFile?: string;
  allowHosts: string[];
  adminToken?: string;
  /** `--files-root`: the folder stubs added over the admin API may read `body_file`s from. */
  filesRoot?: string;
  /** `--adapter`: the HTTP server (`node`, the default, or `deno`: faster, Deno only, refuses Java's h2c upgrades). */
  adapter?: "deno" | "node";
  /** `--state`: the Redis store replicas share runtime state through; `--cluster`: which replicas. */
  state?: { url: string; cluster: string };
}

/** The TLS settings: a certificate and key file (flags, else variables), or `--tls-self-signed`; never half a pair. */
function tlsSettings(values: ParsedArgs["values"], env: CliContext["env"]): Pick<Settings, "tls" | "tlsCertOut"> {
  const cert = (values["tls-cert"] as string | undefined) ?? (env.STUBTOOL_TLS_CERT?.trim() || undefined);
  const key = (values["tls-key"] as string | undefined) ?? (env.STUBTOOL_TLS_KEY?.trim() || undefined);
  const selfSigned = values["tls-self-signed"] === true;
  const certOut = values["tls-cert-out"] as string | undefined;
  if (selfSigned && (cert !== undefined || key !== undefined)) {
    throw new UsageError(
      "--tls-self-signed makes its own certificate: give it or --tls-cert/--tls-key, not both",
      "serve",
    );
  }
  if ((cert === undefined) !== (key === undefined)) {
    throw new UsageError(
      cert === undefined
        ? "--tls-key needs --tls-cert FILE (the certificate of that key; or $STUBTOOL_TLS_CERT)"
        : "--tls-cert needs --tls-key FILE (the certificate's private key; or $STUBTOOL_TLS_KEY)",
      "serve",
    );
  }
  let tlsCertOut: string | undefined;
  if (certOut !== undefined) {
    if (!selfSigned) {
      throw new UsageError(
        "--tls-cert-out writes the certificate --tls-self-signed makes; with --tls-cert, clients trust that file",
        "serve",
      );
    }
    const checked = checkOutputPath(certOut);
    if ("problem" in checked) throw new UsageError(`--tls-cert-out: ${checked.problem}`, "serve");
    tlsCertOut = checked.path;
  }
  if (selfSigned) return { tls: "self-signed", tlsCertOut };
  return { tls: cert === undefined ? undefined : { certFile: cert, keyFile: key! }, tlsCertOut };
}

function readSettings(values: ParsedArgs["values"], { env }: CliContext): Settings {
  const str = (name: string) => values[name] as string | undefined;
  // Checked in this order, so the first bad flag is the one named.
  const listen = listenSettings(str, env);
  const proxyUnmatched = str("proxy-unmatched");
  if (proxyUnmatched !== undefined) {
    const problem = checkUpstream(proxyUnmatched, "--proxy-unmatched");
    if (problem) throw new UsageError(problem, "serve");
  }
  const guards = guardSettings(values, str, env);
  const state = stateSettings(str("state") ?? (env.STUBTOOL_STATE?.trim() || undefined), str("cluster"));
  const adapter = adapterSetting(str("adapter") ?? (env.STUBTOOL_ADAPTER?.trim() || undefined));
  let reportFile: string | undefined;
  if (str("report-file") !== undefined) {
    const checked = checkOutputPath(str("report-file")!);
    if ("problem" in checked) throw new UsageError(`--report-file: ${checked.problem}`, "serve");
    reportFile = checked.path;
  }
  return {
    ...listen,
    ...limitSettings(str),
    reportFile,
    quiet: values.quiet === true,
    scopes: values.scopes === true,
    watch: values.watch === true,
    cors: values.cors === true,
    proxyUnmatched,
    ...tlsSettings(values, env),
    callbackCaFile: str("callback-ca") ?? (env.STUBTOOL_CALLBACK_CA?.trim() || undefined),
    ...guards,
    adapter,
    ...(state ? { state } : {}),
  };
}

/** A flag's value as text, or undefined when it was not given. */
type FlagText = (name: string) => string | undefined;

/** Where to listen: `--port` (else `$STUBTOOL_PORT`) and `--host` (else `$STUBTOOL_HOST`), each with where it came from. */
function listenSettings(
  str: FlagText,
  env: CliContext["env"],
): Pick<Settings, "port" | "portSource" | "hostname" | "hostSource"> {
  let port: number | undefined;
  let portSource = "default";
  if (str("port") !== undefined) {
    port = portValue(str("port")!, "--port", "serve");
    portSource = "--port";
  } else if (env.STUBTOOL_PORT?.trim()) {
    port = portValue(env.STUBTOOL_PORT, "STUBTOOL_PORT", "serve");
    portSource = "STUBTOOL_PORT";
  }
  const hostname = str("host") ?? (env.STUBTOOL_HOST?.trim() || DEFAULT_HOST);
  const hostSource = str("host") !== undefined ? "--host" : env.STUBTOOL_HOST?.trim() ? "STUBTOOL_HOST" : "default";
  if (hostname === "") {
    throw new UsageError("--host: must not be empty (127.0.0.1, 0.0.0.0, ::1, a host name)", "serve");
  }
  return { port, portSource, hostname, hostSource };
}

/** The counted limits: unmatched list, body size, handler timeout, journal entries and bytes. */
function limitSettings(
  str: FlagText,
): Pick<Settings, "maxUnmatched" | "maxBody" | "handlerTimeoutMs" | "journalSize" | "journalBytes"> {
  const count = (flag: string, unit = "") => {
    const text = str(flag);
    return text === undefined ? undefined : countValue(text, `--${flag}`, "serve", unit);
  };
  const timeout = str("handler-timeout");
  return {
    maxUnmatched: count("max-unmatched"),
    maxBody: count("max-body", " of bytes"),
    handlerTimeoutMs: timeout === undefined
      ? undefined
      : Math.round(secondsValue(timeout, "--handler-timeout", "serve", true) * 1000),
    journalSize: count("journal-size"),
    journalBytes: count("journal-bytes", " of bytes"),
  };
}

/** What guards the admin endpoints and the files they may read: `--allow-host`, `--admin-token`, `--files-root`. */
function guardSettings(
  values: ParsedArgs["values"],
  str: FlagText,
  env: CliContext["env"],
): Pick<Settings, "allowHosts" | "adminToken" | "filesRoot"> {
  const allowHosts = (values["allow-host"] as string[] | undefined) ?? [];
  for (const name of allowHosts) {
    if (!/^[A-Za-z0-9.:[\]_-]+$/.test(name)) {
      throw new UsageError(
        `--allow-host: must be a host name like mock.internal, got ${JSON.stringify(name)}`,
        "serve",
      );
    }
  }
  const adminToken = str("admin-token") ?? (env.STUBTOOL_ADMIN_TOKEN?.trim() || undefined);
  if (adminToken === "") throw new UsageError("--admin-token: must not be empty", "serve");
  const filesRoot = str("files-root") ?? (env.STUBTOOL_FILES_ROOT?.trim() || undefined);
  if (filesRoot === "") throw new UsageError("--files-root: must not be empty", "serve");
  return { allowHosts, adminToken, filesRoot };
}

/** `--adapter` (else `$STUBTOOL_ADAPTER`): `node` or `deno`, the latter only on Deno. */
function adapterSetting(adapter: string | undefined): Settings["adapter"] {
  if (adapter !== undefined && adapter !== "deno" && adapter !== "node") {
    throw new UsageError(`--adapter: must be deno or node, got ${JSON.stringify(adapter)}`, "serve");
  }
  if (adapter === "deno" && !("Deno" in globalThis)) {
    throw new UsageError("--adapter deno needs the Deno runtime (the npm package runs on node:http)", "serve");
  }
  return adapter;
}

/** `--state URL` (or `$STUBTOOL_STATE`) and `--cluster NAME` checked; the password never in an error. */
function stateSettings(url: string | undefined, cluster: string | undefined): Settings["state"] {
  if (url === undefined) {
    if (cluster !== undefined) {
      throw new UsageError("--cluster: needs --state redis://HOST:PORT (or $STUBTOOL_STATE)", "serve");
    }
    return undefined;
  }
  const checked = checkStoreUrl(url);
  if ("error" in checked) throw new UsageError(`--state: ${checked.error}`, "serve");
  if (cluster !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(cluster)) {
    throw new UsageError(
      `--cluster: must be 1 to 64 letters, digits, '.', '_' or '-', got ${JSON.stringify(cluster)}`,
      "serve",
    );
  }
  return { url, cluster: cluster ?? "stubtool" };
}

/** Is this the error a busy port gives, on Deno or Node? */
function isAddressInUse(error: unknown): boolean {
  const e = error as { code?: string; name?: string; message?: string };
  return e?.code === "EADDRINUSE" || e?.name === "AddrInUse" || /address already in use/i.test(e?.message ?? "");
}

/**
 * The one `[ERROR]` line for a port that cannot be bound. `portFrom` says what chose the
 * port, so the hint names what to change: `--port`, or the config file's `port:` (which
 * wins over `--port`, so suggesting the flag would not help).
 */
function listenError(error: unknown, hostname: string, port: number, portFrom: string | undefined): string {
  const change = portFrom === undefined ? "choose another --port" : `change port: in ${portFrom}`;
  const setBy = portFrom === undefined ? "" : ` (set by ${portFrom}'s port:)`;
  if (isAddressInUse(error)) {
    return errorLine(`port ${port}`, `already in use on ${hostname}; stop the other process or ${change}${setBy}`);
  }
  const e = error as { code?: string; name?: string; message?: string };
  const reason = e?.code === "EACCES" || e?.name === "PermissionDenied" || /permission denied/i.test(e?.message ?? "")
    ? `permission denied (ports below 1024 need privileges; ${change})${setBy}`
    : (e?.message ?? String(error)).split("\n")[0];
  return errorLine(`${hostname}:${port}`, `cannot listen: ${reason}`);
}

/** How long a second signal lets cut-short responses go out before `serve` exits anyway. */
const SECOND_SIGNAL_MS = 500;

/**
 * Shuts the server down and resolves when it has closed — or when waiting must end: the
 * 5 s grace plus a second has passed (a client still sending a body can hold a runtime's
 * shutdown open), or `giveUp` aborted (a second signal). Says which.
 */
async function shutDown(server: StubServer, giveUp: AbortSignal): Promise<"closed" | "deadline" | "forced"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"deadline">((resolve) =>
    timer = setTimeout(resolve, SHUTDOWN_GRACE_MS + 1_000, "deadline")
  );
  const forced = new Promise<"forced">((resolve) => {
    if (giveUp.aborted) resolve("forced");
    giveUp.addEventListener("abort", () => resolve("forced"), { once: true });
  });
  try {
    return await Promise.race([server.shutdown().then(() => "closed" as const), deadline, forced]);
  } finally {
    clearTimeout(timer);
  }
}

function printBanner(output: Output, server: StubServer, settings: Settings, banner: string[]): void {
  const bound = settings.hostname === "0.0.0.0" || settings.hostname === "::" ? ` (bound to ${settings.hostname})` : "";
  output.out(`stubtool ${VERSION} listening on ${server.url}${bound}`);
  for (const line of banner) output.out(line);
  output.out(`dashboard: ${server.url}/__stubtool__/${settings.journalSize === 0 ? " (request journal off)" : ""}`);
  output.out(
    `report: ${server.url}/__stubtool__/report; ` +
      (settings.quiet ? "request log off (--quiet)" : "one log line per request") + "; Ctrl+C stops",
  );
}

/**
 * The certificate and key of `--tls-cert`/`--tls-key` as PEM text, undefined without TLS
 * (or with a self-signed one, made by the server), or the problem that stops serve.
 */
async function readTls(
  tls: Settings["tls"],
): Promise<{ cert: string; key: string } | { problem: Problem } | undefined> {
  if (tls === undefined || tls === "self-signed") return undefined;
  const cert = await readPem(tls.certFile, "--tls-cert", /-----BEGIN CERTIFICATE-----/, "certificate");
  if ("problem" in cert) return cert;
  const key = await readPem(tls.keyFile, "--tls-key", /-----BEGIN [A-Z ]*PRIVATE KEY-----/, "private key");
  if ("problem" in key) return key;
  return { cert: cert.text, key: key.text };
}

/** A PEM file's text, or the problem (unreadable, or no `-----BEGIN WHAT-----` in it) placed at `flag file`. */
async function readPem(
  file: string,
  flag: string,
  marker: RegExp,
  what: string,
): Promise<{ text: string } | { problem: Problem }> {
  const place = `${flag} ${file}`;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return { problem: { level: "error", place, message: describeReadError(error) } };
  }
  if (marker.test(text)) return { text };
  const message = `holds no PEM ${what} (-----BEGIN ${what.toUpperCase()}-----)`;
  return { problem: { level: "error", place, message } };
}

async function writeReportFile(file: string, report: Report): Promise<string | undefined> {
  try {
    await writeFileAtomic(file, escapeJsonControls(JSON.stringify(report, null, 2)) + "\n");
  } catch (error) {
    return describeWriteError(error);
  }
}

/**
 * Runs the server until SIGINT, SIGTERM or SIGHUP (or `ctx.stop`). Returns 0 after a stop,
 * 1 for a bad config, a port that cannot be bound, or a `--report-file` that cannot be written.
 */
/** Everything `serve` reads before it starts: the config, `--stub`s, WireMock folders, an OpenAPI mock, TLS files. */
interface Inputs {
  problems: Problem[];
  /** The config file parsed (false: it could not be read or parsed at all). */
  configOk: boolean;
  config: Partial<Config>;
  configStubs: CompiledStub[];
  inlineTexts: string[];
  inline: Awaited<ReturnType<typeof inlineStubs>>;
  wiremockDirs: { dir: string; place: string }[];
  wiremockOptions: { strict: boolean; globalTemplating: boolean };
  wiremock?: WireMockFolders;
  openapi?: Awaited<ReturnType<typeof openApiServe>>;
  tls?: { cert: string; key: string };
  /** `--callback-ca`'s certificates. */
  callbackCa?: string;
  /** The config file's text as loaded (`--watch` compares against it). */
  loadedText?: string;
}

/** Loads every input and collects every problem, so one run reports them all. */
async function loadInputs(values: ParsedArgs["values"], settings: Settings, sources: Sources): Promise<Inputs> {
  const problems: Problem[] = [];
  let configOk = true;
  let config: Partial<Config> = {};
  let loadedText: string | undefined;
  let locate: ((problems: readonly Problem[]) => Promise<Problem[]>) | undefined;
  if (sources.file !== undefined) {
    const loaded = await loadConfigFile(sources.file, async (path) => loadedText = await readFile(path, "utf8"));
    problems.push(...loaded.problems);
    configOk = loaded.config !== undefined;
    config = loaded.config ?? {};
    locate = loaded.locate;
  }
  const configStubs = config.routes ?? [];
  // Places are written out only for the stubs a message or the route table names.
  const placeOf = (i: number) => i < configStubs.length ? `routes[${i}]` : `--stub[${i - configStubs.length}]`;
  const inlineTexts = (values.stub as string[] | undefined) ?? [];
  const inline = await inlineStubs(inlineTexts, { stubs: configStubs, places: placeOf });
  problems.push(...locate ? await locate(inline.problems) : inline.problems); // a config stub's line
  if (settings.adapter === "deno") {
    const wire = denoWireWarnings([...configStubs, ...inline.stubs], placeOf);
    problems.push(...locate ? await locate(wire) : wire);
  }
  // WireMock folders: the config's `wiremock:`, then --wiremock; one batch each, after the config's stubs.
  const wiremockDirs = [
    ...(config.wiremock ?? []).map((dir) => ({ dir, place: `${sources.file} wiremock` })),
    ...((values.wiremock as string[] | undefined) ?? []).map((dir) => ({ dir, place: `--wiremock ${dir}` })),
  ];
  const wiremockOptions = {
    strict: values.strict === true,
    globalTemplating: values["wiremock-global-templating"] === true,
  };
  let wiremock: WireMockFolders | undefined;
  if (wiremockDirs.length) {
    const { loadWireMockFolders } = await import("./loaders/wiremock_folder.ts");
    // Mappings are checked synchronously and may use a template or JSONPath: the engine loads first.
    // A WireMock folder's clients talk to /__admin/: its room loads now, not on their first request.
    await Promise.all([loadTemplating(), loadWireMockAdmin()]);
    const takenIds = new Set(
      [...configStubs, ...inline.stubs].flatMap((stub) => stub.id === undefined ? [] : [stub.id]),
    );
    wiremock = loadWireMockFolders(wiremockDirs, { ...wiremockOptions, takenIds });
    problems.push(...wiremock.problems);
    if (settings.adapter === "deno") {
      const stubs = wiremock.batches.flat();
      problems.push(...denoWireWarnings(stubs, (i) => stubs[i].place ?? wiremockDirs[0].place));
    }
  }
  const openapi = await openApiServe(values, [...configStubs, ...inline.stubs], placeOf);
  if (openapi) problems.push(...openapi.problems);
  const tls = await readTls(settings.tls);
  if (tls !== undefined && "problem" in tls) problems.push(tls.problem);
  const callbackCa = settings.callbackCaFile === undefined
    ? undefined
    : await readPem(settings.callbackCaFile, "--callback-ca", /-----BEGIN CERTIFICATE-----/, "certificate");
  if (callbackCa !== undefined && "problem" in callbackCa) problems.push(callbackCa.problem);
  if (settings.filesRoot !== undefined) {
    const problem = folderProblem(settings.filesRoot);
    if (problem) {
      problems.push({ level: "error", place: "--files-root", message: `${problem} (a folder of body files)` });
    }
  }
  return {
    problems,
    configOk,
    config,
    configStubs,
    inlineTexts,
    inline,
    wiremockDirs,
    wiremockOptions,
    wiremock,
    openapi,
    tls: tls !== undefined && !("problem" in tls) ? tls : undefined,
    callbackCa: callbackCa !== undefined && !("problem" in callbackCa) ? callbackCa.text : undefined,
    loadedText,
  };
}

/**
 * The flags and the config file's settings merged: the config's `port:` wins over `--port`
 * (with a warning when they differ), `--cors` and `--proxy-unmatched` win over the config's.
 */
function mergedSettings(settings: Settings, config: Partial<Config>, file: string | undefined): {
  port: number;
  cors: Config["cors"];
  proxyUnmatched?: string;
  warnings: string[];
} {
  const warnings: string[] = [];
  let port = settings.port ?? DEFAULT_PORT;
  if (config.port !== undefined) {
    if (settings.port !== undefined && settings.port !== config.port) {
      warnings.push(
        warnLine("port", `${file} sets port ${config.port}, which wins over ${settings.portSource} ${settings.port}`),
      );
    }
    port = config.port;
  }
  return {
    port,
    cors: settings.cors || config.cors,
    proxyUnmatched: settings.proxyUnmatched ?? config.proxyUnmatched,
    warnings,
  };
}

/** The stubs in the order the server registers them, and the place each shows in the route table. */
function servedStubs(
  inputs: Inputs,
): { stubs: CompiledStub[]; placeOf: (i: number) => string; mocked: CompiledStub[] } {
  const { configStubs, inline, wiremock, openapi } = inputs;
  const configCount = configStubs.length;
  const wiremockStubs = wiremock?.batches.flat() ?? [];
  const mocked = openapi?.stubs ?? [];
  const beforeMocked = configCount + wiremockStubs.length + inline.stubs.length;
  return {
    stubs: [...configStubs, ...wiremockStubs, ...inline.stubs, ...mocked],
    mocked,
    placeOf: (i) =>
      i < configCount
        ? `routes[${i}]`
        : i < configCount + wiremockStubs.length
        ? `wiremock ${wiremockStubs[i - configCount].name}`
        : i < beforeMocked
        ? `--stub[${i - configCount - wiremockStubs.length}]`
        : openapi!.places[i - beforeMocked],
  };
}

/** The options `stubServer` gets: a pure function of the settings and the inputs. */
function serverOptions(
  settings: Settings,
  inputs: Inputs,
  merged: ReturnType<typeof mergedSettings>,
  mocked: CompiledStub[],
  output: Output,
): StubServerOptions {
  return {
    hostname: settings.hostname,
    stubs: inputs.configStubs,
    inline: mocked.length ? [...inputs.inline.stubs, ...mocked] : inputs.inline.stubs,
    wiremock: inputs.wiremock?.batches,
    ...(inputs.wiremockDirs.length ? { wiremockDirs: inputs.wiremockDirs.map((d) => d.dir) } : {}),
    maxUnmatched: settings.maxUnmatched,
    maxBody: settings.maxBody,
    handlerTimeout: settings.handlerTimeoutMs,
    journalSize: settings.journalSize,
    journalBytes: settings.journalBytes,
    onRequest: settings.quiet ? undefined : (entry) => output.log(logLine(entry)),
    // Callbacks log like requests; a warning about dropped ones is printed even with --quiet.
    onCallback: (line) => line.startsWith("[WARN]") ? output.err(line) : settings.quiet ? undefined : output.log(line),
    scopes: settings.scopes,
    cors: merged.cors,
    proxyUnmatched: merged.proxyUnmatched,
    tls: settings.tls === "self-signed" ? "self-signed" : inputs.tls,
    allowHosts: settings.allowHosts,
    adminToken: settings.adminToken,
    filesRoot: settings.filesRoot,
    ...(inputs.callbackCa !== undefined ? { callbackCa: inputs.callbackCa } : {}),
    ...(settings.adapter ? { adapter: settings.adapter } : {}),
    ...(settings.state ? { state: { ...settings.state, log: (line: string) => output.err(line) } } : {}),
  };
}

/** What the banner says about where the stubs came from and how the server is set up. */
function bannerLines(
  settings: Settings,
  sources: Sources,
  inputs: Inputs,
  merged: ReturnType<typeof mergedSettings>,
): string[] {
  const banner: string[] = [];
  const { wiremock, wiremockDirs, inline, openapi } = inputs;
  if (sources.file !== undefined) banner.push(`config: ${sources.file} (${inputs.configStubs.length} route(s))`);
  else banner.push(`config: none (${sources.note})`);
  if (wiremock) {
    const left = new Set(wiremock.problems.map((p) => p.place)).size;
    banner.push(
      `wiremock: ${wiremockDirs.map((d) => d.dir).join(", ")} (${wiremock.stubs} stub(s) from ${wiremock.files} ` +
        `mapping file(s)${left ? `, ${left} mapping(s) or file(s) left out: see the warnings` : ""})`,
    );
  }
  if (inline.stubs.length) banner.push(`inline: ${inline.stubs.length} stub(s) from --stub`);
  if (openapi) banner.push(...openapi.banner);
  const cors = merged.cors;
  if (cors) {
    banner.push(`cors: answering browser apps on ${cors === true ? "any origin" : cors.origins.join(", ")}`);
  }
  const proxy = merged.proxyUnmatched;
  if (proxy !== undefined) banner.push(`proxy: requests no stub matches go to ${proxy} (still recorded as unmatched)`);
  if (settings.adminToken !== undefined) {
    banner.push(
      "admin token: /__stubtool__/ endpoints but health need authorization: Bearer TOKEN; " +
        "open the dashboard once as /__stubtool__/?token=TOKEN",
    );
  }
  if (settings.state !== undefined) {
    banner.push(
      `state: runtime stubs, resets and scenario states shared with cluster ${settings.state.cluster} through ${
        redactStoreUrl(settings.state.url)
      }`,
    );
  }
  if (settings.filesRoot !== undefined) {
    banner.push(`files root: stubs added over the admin API may read body_file inside ${settings.filesRoot}`);
  }
  return banner;
}

/** Starts following the config file and the WireMock folders (`--watch`); returns how to stop. */
async function watchInputs(
  settings: Settings,
  sources: Sources,
  inputs: Inputs,
  server: StubServer,
  output: Output,
  banner: string[],
): Promise<() => void> {
  const stops: (() => void)[] = [];
  if (!settings.watch) return () => {};
  const { watchConfig, watchWireMock } = await import("./watch.ts");
  if (sources.file !== undefined) {
    stops.push(watchConfig(sources.file, {
      handler: server.handler,
      output,
      inlineTexts: inputs.inlineTexts,
      port: server.getPort(),
      loadedText: inputs.loadedText,
      started: { cors: inputs.config.cors, proxyUnmatched: inputs.config.proxyUnmatched },
    }));
    banner.push(`watching ${sources.file}: changes reload the stubs (--watch)`);
  }
  if (inputs.wiremockDirs.length) {
    stops.push(
      watchWireMock(inputs.wiremockDirs, { handler: server.handler, output, options: inputs.wiremockOptions }),
    );
    banner.push(
      `watching ${inputs.wiremockDirs.map((d) => d.dir).join(", ")}: mapping and __files changes reload (--watch)`,
    );
  }
  return () => stops.forEach((stop) => stop());
}

/**
 * `serve`: load the inputs (every problem printed, exit 1 on an error) → the server's
 * options → start → banner → run until a signal → stop, write the report file, summary.
 */
export async function serveCommand({ values }: ParsedArgs, ctx: CliContext): Promise<number> {
  const { output } = ctx;
  const settings = readSettings(values, ctx);
  const sources = configSource(values.config as string | undefined, ctx);
  if (settings.watch && sources.file === undefined && !(values.wiremock as string[] | undefined)?.length) {
    throw new UsageError(`--watch needs a config file to follow (--config FILE; ${sources.note})`, "serve");
  }
  const inputs = await loadInputs(values, settings, sources);
  printProblems(output, inputs.problems, sources.file ?? "serve");
  if (!inputs.configOk || inputs.problems.some((p) => p.level === "error")) return 1;
  const merged = mergedSettings(settings, inputs.config, sources.file);
  for (const warning of merged.warnings) output.err(warning);
  const { stubs, placeOf, mocked } = servedStubs(inputs);

  let server: StubServer;
  try {
    server = await stubServer(merged.port, serverOptions(settings, inputs, merged, mocked, output));
  } catch (error) {
    const portFile = inputs.config.port === undefined ? undefined : sources.file;
    output.err(listenError(error, settings.hostname, merged.port, portFile));
    return 1;
  }
  // From here on a stdout nobody reads must not stop the server answering.
  output.serving();

  const banner = bannerLines(settings, sources, inputs, merged);
  if (settings.adminToken === undefined && !isLoopbackName(hostName(settings.hostname))) {
    // Anyone who reaches the port can change the answers and read what clients sent.
    output.err(warnLine(
      `${settings.hostSource} ${settings.hostname}`,
      "the admin API (/__stubtool__/) is open to the network: anyone who can reach this port can change its " +
        "stubs and read the requests sent to it; close it with --admin-token TOKEN (or $STUBTOOL_ADMIN_TOKEN)",
    ));
  }
  if (settings.tlsCertOut !== undefined) {
    try {
      await writeFileAtomic(settings.tlsCertOut, server.certificate!);
    } catch (error) {
      output.err(errorLine(`--tls-cert-out ${settings.tlsCertOut}`, `cannot write: ${describeWriteError(error)}`));
      await server.shutdown();
      return 1;
    }
    banner.push(
      `certificate: written to ${settings.tlsCertOut} (trust it: curl --cacert ${settings.tlsCertOut}, ` +
        `NODE_EXTRA_CA_CERTS=${settings.tlsCertOut}, stubtool report --ca ${settings.tlsCertOut})`,
    );
  }
  if (stubs.length === 0) {
    banner.push("no stubs defined: every request gets 404 and is recorded as unmatched (add --config or --stub)");
  } else banner.push(...routeTable(stubs, placeOf));
  const stopWatching = await watchInputs(settings, sources, inputs, server, output, banner);
  return await runUntilStopped(server, settings, ctx, banner, stopWatching);
}

/** Serves until a signal, then stops gracefully, writes `--report-file` and prints the summary; the exit code. */
async function runUntilStopped(
  server: StubServer,
  settings: Settings,
  ctx: CliContext,
  banner: string[],
  stopWatching: () => void,
): Promise<number> {
  const { output } = ctx;
  // A second signal cuts in-flight responses short and lets them go out briefly; a third stops waiting at once.
  const giveUp = new AbortController();
  let forceTimer: ReturnType<typeof setTimeout> | undefined;
  const { stopped, dispose } = stopRequests(ctx, (count) => {
    if (count > 2) return giveUp.abort();
    output.out("second signal: cutting in-flight responses short");
    server.handler.abortPending();
    forceTimer = setTimeout(() => giveUp.abort(), SECOND_SIGNAL_MS);
  });
  printBanner(output, server, settings, banner);

  const cause = await stopped;
  stopWatching();
  output.out(`stopping (${cause}): no new connections; in-flight responses get up to 5s`);
  let outcome: Awaited<ReturnType<typeof shutDown>>;
  try {
    outcome = await shutDown(server, giveUp.signal);
  } finally {
    clearTimeout(forceTimer);
    dispose();
  }
  if (outcome === "deadline") {
    output.err(
      warnLine(
        "stop",
        `connections still open ${(SHUTDOWN_GRACE_MS + 1_000) / 1000}s after ${cause} ` +
          "(a client still sending?); stopping without them",
      ),
    );
  }
  const report = await server.report();
  let code = 0;
  if (settings.reportFile !== undefined) {
    const problem = await writeReportFile(settings.reportFile, report);
    if (problem) {
      output.err(errorLine(`--report-file ${settings.reportFile}`, `cannot write the report: ${problem}`));
      code = 1;
    } else output.out(`report written to ${settings.reportFile}`);
  }
  const { summary } = report;
  output.out(
    `stopped: ${summary.matched_stubs}/${summary.total_stubs} stubs exercised, ${summary.unmatched_requests} unmatched request(s)`,
  );
  return code;
}
