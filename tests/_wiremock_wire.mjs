// The wire side of the WireMock goldens, shared by the recorder (scripts/wiremock_goldens.mjs,
// plain Node) and the replayer (tests/_wiremock_goldens.ts, Deno or Node), so both send the
// same bytes and judge answers by the same rules.
//
// Requests go out on a raw TCP socket (node:net), one connection each with `Connection: close`,
// so nothing rewrites headers or decompresses bodies, and faults are seen as a client sees them.
import { connect } from "node:net";
import { createServer } from "node:http";
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Placeholder in mapping files for the loopback helper server's port (proxy upstream, webhook receiver). */
export const UPSTREAM_PLACEHOLDER = "${UPSTREAM_PORT}";

/** A golden header value that says "present, with a value that changes from run to run". */
export const VARIES = "(varies)";

/** Compare modes a request may name in requests.json. */
export const COMPARE_MODES = ["exact", "json", "shape", "status", "fault"];

/** Response headers that say how the bytes travel or who served them, not what the mapping answered. */
export const INCIDENTAL_HEADERS = [
  "connection",
  "content-length",
  "date",
  "keep-alive",
  "matched-stub-id",
  "matched-stub-name",
  "server",
  "transfer-encoding",
  "vary",
];

/**
 * @typedef {{ name: string, method: string, path: string, headers?: Record<string, string | string[]>,
 *   body?: string, body_base64?: string, compare?: string, body_shape?: { regex: string },
 *   min_elapsed_ms?: number, check_reason?: boolean, webhook?: boolean, connection?: string,
 *   vary_headers?: string[] }} GoldenRequest
 * @typedef {{ kind: string, status: number | null, error: string | null, bytes: number, raw: string }} FaultSeen
 * @typedef {{ method: string, path: string, headers: Record<string, string[]>, body: string }} HookSeen
 * @typedef {{ name: string, status?: number, reason?: string, headers?: Record<string, string[]>,
 *   checked_headers?: string[], body?: string, body_base64?: string, body_json?: unknown,
 *   elapsed_ms?: number, arrivals_ms?: number[], fault?: FaultSeen, webhook?: HookSeen | null }} GoldenAnswer
 * @typedef {{ bytes: Uint8Array, error: string | null, elapsedMs: number, arrivalsMs: number[] }} Exchange
 */

/**
 * Sends one request on a fresh connection to 127.0.0.1:`port` and reads until the server closes
 * it (or resets it, or `timeoutMs` passes).
 * @param {number} port
 * @param {GoldenRequest} request
 * @param {number} [timeoutMs]
 * @returns {Promise<Exchange>}
 */
export function exchange(port, request, timeoutMs = 15000) {
  /** @type {string[]} */
  const lines = [`${request.method} ${request.path} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
  }
  const body = request.body_base64 !== undefined
    ? Buffer.from(request.body_base64, "base64")
    : request.body !== undefined
    ? Buffer.from(request.body, "utf8")
    : undefined;
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  if (request.connection !== "keep-alive") lines.push("Connection: close");
  lines.push("", "");
  const head = Buffer.from(lines.join("\r\n"), "utf8");
  return new Promise((resolve) => {
    const started = performance.now();
    /** @type {Buffer[]} */
    const chunks = [];
    /** @type {number[]} */
    const arrivalsMs = [];
    let error = /** @type {string | null} */ (null);
    let done = false;
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(body === undefined ? head : Buffer.concat([head, body]));
    });
    const timer = setTimeout(() => {
      error = "TIMEOUT";
      socket.destroy();
    }, timeoutMs);
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      arrivalsMs.push(Math.round(performance.now() - started));
      // A kept-alive connection stays open after a whole answer: stop reading once the framing is done.
      if (request.connection === "keep-alive" && parseAnswer(Buffer.concat(chunks), request.method)?.framed) {
        socket.destroy();
      }
    });
    socket.on("error", (e) => {
      error ??= /** @type {NodeJS.ErrnoException} */ (e).code ?? String(e);
    });
    socket.on("close", () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({
        bytes: new Uint8Array(Buffer.concat(chunks)),
        error,
        elapsedMs: Math.round(performance.now() - started),
        arrivalsMs,
      });
    });
  });
}

/**
 * Splits raw bytes into an HTTP/1.1 answer; `complete` is false when the framing (chunked or
 * Content-Length) ends early or is malformed. Returns null when the bytes are not an HTTP answer.
 * @param {Uint8Array} raw
 * @param {string} method
 */
export function parseAnswer(raw, method) {
  const bytes = Buffer.from(raw);
  const end = bytes.indexOf("\r\n\r\n");
  if (!bytes.subarray(0, 5).equals(Buffer.from("HTTP/")) || end === -1) return null;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const match = /^HTTP\/\d\.\d (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!match) return null;
  /** @type {[string, string][]} */
  const headers = lines.map((line) => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  });
  const status = Number(match[1]);
  const rest = bytes.subarray(end + 4);
  const header = (/** @type {string} */ name) => headers.find(([n]) => n === name)?.[1];
  let body = rest;
  let complete = true;
  let framed = false;
  if (method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200)) {
    body = Buffer.alloc(0);
    framed = true;
  } else if (/chunked/i.test(header("transfer-encoding") ?? "")) {
    /** @type {Buffer[]} */
    const parts = [];
    let at = 0;
    complete = false;
    while (at < rest.length) {
      const lineEnd = rest.indexOf("\r\n", at);
      if (lineEnd === -1) break;
      const size = parseInt(rest.subarray(at, lineEnd).toString("latin1").split(";")[0], 16);
      if (!Number.isFinite(size) || !/^[0-9a-fA-F]+/.test(rest.subarray(at, lineEnd).toString("latin1"))) break;
      if (size === 0) {
        complete = true;
        break;
      }
      if (lineEnd + 2 + size + 2 > rest.length) break;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
    framed = complete;
  } else if (header("content-length") !== undefined) {
    const length = Number(header("content-length"));
    complete = rest.length >= length;
    framed = complete;
    body = rest.subarray(0, length);
  }
  return { status, reason: match[2] ?? "", headers, body: new Uint8Array(body), complete, framed };
}

/**
 * What a client saw when the server broke the exchange on purpose.
 * @param {Exchange} seen
 * @param {string} method
 * @returns {FaultSeen}
 */
export function classifyFault(seen, method) {
  const startsWithHttp = Buffer.from(seen.bytes.subarray(0, 5)).equals(Buffer.from("HTTP/"));
  const parsed = parseAnswer(seen.bytes, method);
  let kind;
  if (seen.bytes.length === 0) kind = seen.error === "ECONNRESET" ? "connection-reset" : "empty-response";
  else if (!startsWithHttp) kind = "garbage-then-close";
  else if (!parsed || !parsed.complete) kind = "broken-body";
  else kind = "complete-answer";
  const raw = Buffer.from(seen.bytes.subarray(0, 300)).toString("latin1");
  return { kind, status: parsed?.status ?? null, error: seen.error, bytes: seen.bytes.length, raw };
}

/**
 * Header names (lower-cased) that any mapping of a case sets in its response, and the ids its mappings declare.
 * @param {string} dir
 */
export async function mappingFacts(dir) {
  /** @type {Set<string>} */
  const names = new Set();
  /** @type {Set<string>} */
  const ids = new Set();
  /** @param {unknown} node */
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const record = /** @type {Record<string, unknown>} */ (node);
    const response = /** @type {Record<string, unknown> | undefined} */ (record.response);
    for (const key of ["id", "uuid"]) if (typeof record[key] === "string" && response) ids.add(String(record[key]));
    if (response && typeof response.headers === "object" && response.headers !== null) {
      for (const name of Object.keys(response.headers)) names.add(name.toLowerCase());
    }
    Object.values(record).forEach(visit);
  };
  for (const file of await jsonFiles(join(dir, "mappings"))) visit(JSON.parse(await readFile(file, "utf8")));
  return { headers: names, ids };
}

/** @param {string} dir @returns {Promise<string[]>} */
async function jsonFiles(dir) {
  /** @type {string[]} */
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...await jsonFiles(path));
    else if (entry.name.endsWith(".json")) found.push(path);
  }
  return found.sort();
}

/**
 * Turns one exchange into its golden answer (what the recorder writes).
 * @param {GoldenRequest} request
 * @param {Exchange} seen
 * @param {{ headers: Set<string>, ids: Set<string> }} mappings header names the case's mappings set, and their ids
 * @param {HookSeen | null | undefined} hook
 * @returns {GoldenAnswer}
 */
export function goldenAnswer(request, seen, mappings, hook) {
  const { headers: mappingHeaders, ids: mappingIds } = mappings;
  const compare = request.compare ?? "exact";
  /** @type {GoldenAnswer} */
  const answer = { name: request.name };
  if (request.min_elapsed_ms !== undefined) answer.elapsed_ms = seen.elapsedMs;
  if (compare === "fault") {
    answer.fault = classifyFault(seen, request.method);
    return answer;
  }
  const parsed = parseAnswer(seen.bytes, request.method);
  if (!parsed) {
    throw new Error(`${request.name}: no HTTP answer (${seen.error ?? "closed"}, ${seen.bytes.length} bytes)`);
  }
  answer.status = parsed.status;
  answer.reason = parsed.reason;
  answer.headers = groupHeaders(parsed.headers);
  // Values that change on every run are recorded as VARIES, so re-recording gives a clean diff.
  for (const name of ["date", "last-modified", ...(request.vary_headers ?? [])]) {
    if (answer.headers[name]) answer.headers[name] = answer.headers[name].map(() => VARIES);
  }
  const stubId = answer.headers["matched-stub-id"];
  if (stubId && !mappingIds.has(stubId[0])) answer.headers["matched-stub-id"] = [VARIES];
  if (compare === "status") return answer;
  answer.checked_headers = [
    ...new Set([
      "content-type",
      ...Object.keys(answer.headers).filter((name) => !INCIDENTAL_HEADERS.includes(name) || mappingHeaders.has(name)),
      ...[...mappingHeaders].filter((name) => !INCIDENTAL_HEADERS.includes(name)),
    ]),
  ].sort();
  if (request.min_elapsed_ms !== undefined && seen.arrivalsMs.length > 1) answer.arrivals_ms = seen.arrivalsMs;
  Object.assign(answer, bodyFields(parsed.body, compare));
  if (request.webhook) answer.webhook = hook ?? null;
  return answer;
}

/** @param {[string, string][]} headers @returns {Record<string, string[]>} */
function groupHeaders(headers) {
  /** @type {Record<string, string[]>} */
  const grouped = {};
  for (const [name, value] of headers) (grouped[name] ??= []).push(value);
  return grouped;
}

/** @param {Uint8Array} body @param {string} compare */
function bodyFields(body, compare) {
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return { body_base64: Buffer.from(body).toString("base64") };
  }
  if (compare === "json") {
    try {
      return { body_json: JSON.parse(text) };
    } catch {
      return { body: text };
    }
  }
  return { body: text };
}

/**
 * Every way `seen` differs from `golden` under the request's compare mode; empty when it matches.
 * @param {GoldenRequest} request
 * @param {GoldenAnswer} golden
 * @param {Exchange} seen
 * @param {HookSeen | null | undefined} hook
 * @returns {string[]}
 */
export function compareAnswer(request, golden, seen, hook) {
  const compare = request.compare ?? "exact";
  const where = `${request.name} (${request.method} ${request.path})`;
  /** @type {string[]} */
  const problems = [];
  const differ = (/** @type {string} */ what, /** @type {unknown} */ want, /** @type {unknown} */ got) =>
    problems.push(`${where}: ${what}: WireMock ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  if (request.min_elapsed_ms !== undefined && seen.elapsedMs < request.min_elapsed_ms) {
    // WireMock's own time is in the golden for reference; only the minimum is a requirement.
    differ(`answered too soon (at least ${request.min_elapsed_ms} ms)`, golden.elapsed_ms, seen.elapsedMs);
  }
  if (compare === "fault") {
    const fault = classifyFault(seen, request.method);
    if (fault.kind !== golden.fault?.kind) differ("fault", golden.fault?.kind, fault.kind);
    if (fault.status !== golden.fault?.status) differ("status before the fault", golden.fault?.status, fault.status);
    return problems;
  }
  const parsed = parseAnswer(seen.bytes, request.method);
  if (!parsed) return [`${where}: no HTTP answer (${seen.error ?? "closed"}, ${seen.bytes.length} bytes)`];
  if (parsed.status !== golden.status) differ("status", golden.status, parsed.status);
  if (compare === "status") return problems;
  if (!parsed.complete) problems.push(`${where}: the body ended before its framing said it would`);
  if (request.check_reason && parsed.reason !== golden.reason) differ("reason phrase", golden.reason, parsed.reason);
  const headers = groupHeaders(parsed.headers);
  const checked = golden.checked_headers ?? [];
  for (const name of checked) {
    const want = golden.headers?.[name];
    if (want?.every((value) => value === VARIES) && headers[name]?.length === want.length) continue;
    if (JSON.stringify(headers[name]) !== JSON.stringify(want)) {
      differ(`header ${name}`, golden.headers?.[name] ?? null, headers[name] ?? null);
    }
  }
  for (const name of Object.keys(headers)) {
    if (!checked.includes(name) && !INCIDENTAL_HEADERS.includes(name)) differ(`header ${name}`, null, headers[name]);
  }
  const body = bodyFields(parsed.body, compare);
  if (compare === "shape") {
    const text = "body" in body ? body.body : undefined;
    const regex = new RegExp(request.body_shape?.regex ?? "^$");
    if (text === undefined || !regex.test(text)) differ(`body shape ${regex}`, golden.body, text ?? body);
  } else if (compare === "json") {
    if (!deepEqual(golden.body_json ?? golden.body, "body_json" in body ? body.body_json : body.body)) {
      differ("JSON body", golden.body_json ?? golden.body, "body_json" in body ? body.body_json : body);
    }
  } else if (golden.body_base64 !== undefined) {
    if (
      golden.body_base64 !== ("body_base64" in body ? body.body_base64 : Buffer.from(parsed.body).toString("base64"))
    ) {
      differ("body (base64)", golden.body_base64, Buffer.from(parsed.body).toString("base64"));
    }
  } else if (golden.body !== ("body" in body ? body.body : undefined)) {
    differ("body", golden.body, "body" in body ? body.body : body);
  }
  if (request.webhook && !deepEqual(golden.webhook, hook ?? null)) {
    differ("webhook received", golden.webhook, hook ?? null);
  }
  return problems;
}

/** @param {unknown} a @param {unknown} b @returns {boolean} */
function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (JSON.stringify(ka) !== JSON.stringify(kb)) return false;
  return ka.every((k) =>
    deepEqual(/** @type {Record<string, unknown>} */ (a)[k], /** @type {Record<string, unknown>} */ (b)[k])
  );
}

/**
 * The loopback helper both WireMock and stubtool talk to: `/hook…` records webhook calls, `/status/N…`
 * answers N, anything else echoes the request as JSON (method, url, body, and its x-* and content-type
 * headers) with `X-Upstream: echo`.
 */
export async function startUpstream() {
  /** @type {HookSeen[]} */
  const hooks = [];
  /** @type {((hook: HookSeen) => void)[]} */
  const waiting = [];
  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      /** @type {Record<string, string[]>} */
      const headers = {};
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i].toLowerCase();
        if (name === "content-type" || name.startsWith("x-")) (headers[name] ??= []).push(req.rawHeaders[i + 1]);
      }
      const url = req.url ?? "";
      if (url.startsWith("/hook")) {
        const hook = { method: req.method ?? "", path: url, headers, body };
        const waiter = waiting.shift();
        if (waiter) waiter(hook);
        else hooks.push(hook);
        res.writeHead(200, { "content-type": "text/plain" }).end("ok");
        return;
      }
      const status = /^\/status\/(\d{3})/.exec(url);
      res.writeHead(status ? Number(status[1]) : 200, { "content-type": "application/json", "x-upstream": "echo" });
      res.end(JSON.stringify({ method: req.method, url, headers, body }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    /** The next webhook call (one already received, else the next within `timeoutMs`), or null. */
    nextHook(timeoutMs = 5000) {
      const ready = hooks.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => {
        const waiter = (/** @type {HookSeen} */ hook) => {
          clearTimeout(timer);
          resolve(hook);
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          resolve(null);
        }, timeoutMs);
        waiting.push(waiter);
      });
    },
    /** Forgets webhook calls nobody asked for. */
    clearHooks() {
      hooks.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/**
 * Copies a case folder to a temporary one with the helper's port filled into its mapping files.
 * @param {string} caseDir
 * @param {number} upstreamPort
 */
export async function materializeCase(caseDir, upstreamPort) {
  const dir = await mkdtemp(join(tmpdir(), "wiremock-case-"));
  await cp(caseDir, dir, { recursive: true });
  for (const file of await jsonFiles(join(dir, "mappings"))) {
    const text = await readFile(file, "utf8");
    if (text.includes(UPSTREAM_PLACEHOLDER)) {
      await writeFile(file, text.replaceAll(UPSTREAM_PLACEHOLDER, String(upstreamPort)));
    }
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** True when `path` exists. @param {string} path */
export async function exists(path) {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
