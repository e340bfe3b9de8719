/**
 * `stubtool record --target URL`: a proxy that records. Every request goes on to the
 * target; each complete answer is kept with the request that asked for it. On SIGINT/SIGTERM
 * the exchanges become a config file (src/stubs/recording.ts) that `validate` accepts and
 * `serve` replays, written through a temporary file so a failure leaves any previous file
 * intact. `import har` writes its exchanges through the same {@link writeRecording}.
 * @module
 */

import { messageOf } from "../error_message.ts";
import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { loadConfigText } from "../stubs/config.ts";
import {
  type Exchange,
  isEventStream,
  type RecordedConfig,
  recordedConfig,
  type RecordingOptions,
} from "../stubs/recording.ts";
import { type StubServer, stubServer } from "../server/server.ts";
import type { ForwardTap } from "../server/proxy/proxy.ts";
import { VERSION } from "../version.ts";
import type { CliContext } from "./context.ts";
import { describeWriteError, writeFileAtomic } from "./files.ts";
import { errorLine, type Output, warnLine } from "./output.ts";
import { stopRequests } from "./signals.ts";
import { type ParsedArgs, portValue, urlValue, UsageError } from "./usage.ts";

/** Answers larger than this are passed on but not recorded (they would not make a readable stub). */
const MAX_RECORDED_BODY = 16 * 1024 * 1024;

/** Chunks kept up to a size: `bytes()` joins them, or is undefined when more came than was kept. */
function chunkList(): { add(chunk: Uint8Array): void; bytes(): Uint8Array | undefined } {
  const chunks: Uint8Array[] = [];
  let size = 0;
  return {
    add(chunk) {
      size += chunk.byteLength;
      if (size <= MAX_RECORDED_BODY) chunks.push(chunk);
    },
    bytes() {
      if (size > MAX_RECORDED_BODY) return undefined;
      const body = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        body.set(chunk, offset);
        offset += chunk.byteLength;
      }
      return body;
    },
  };
}

/** Collects one exchange as it passes; hands it over once the answer is complete. */
function collector(
  method: string,
  target: string,
  requestHeaders: Record<string, string>,
  done: (exchange: Exchange | undefined, why?: string) => void,
): ForwardTap {
  const started = performance.now();
  let latency = 0;
  let status = 0;
  let headers: Exchange["headers"] = {};
  const sent = chunkList();
  const received = chunkList();
  // An event stream's chunks are timed: its events' delays come from them.
  let arrivals: Exchange["arrivals"];
  let size = 0;
  return {
    requestChunk: sent.add,
    response(head) {
      latency = performance.now() - started;
      status = head.status;
      headers = { ...head.headers, ...head.lists };
      if (isEventStream(head.headers["content-type"] ?? "")) arrivals = [];
    },
    chunk(bytes) {
      received.add(bytes);
      size += bytes.byteLength;
      arrivals?.push({ end: size, ms: performance.now() - started - latency });
    },
    end(complete) {
      if (!complete) return done(undefined, "the answer broke off");
      const body = received.bytes();
      if (!body) return done(undefined, `the body is larger than ${MAX_RECORDED_BODY} bytes`);
      // A request body too large to keep makes no body condition (as if it had none).
      const request = { headers: requestHeaders, body: sent.bytes() ?? new Uint8Array() };
      const exchange: Exchange = { method, target, status, headers, body, request, latency };
      if (arrivals) exchange.arrivals = arrivals;
      done(exchange);
    },
  };
}

/** The flags `record` and `import har` share: how exchanges become stubs. */
export function recordingOptions(values: ParsedArgs["values"]): RecordingOptions {
  return {
    keep: (values["keep-header"] as string[] | undefined) ?? [],
    keepRequestHeaders: (values["keep-request-header"] as string[] | undefined) ?? [],
    ignoreBody: values["ignore-body"] === true,
    keepDelay: values["keep-delay"] === true,
  };
}

/** What {@link writeRecording} wrote. */
export interface WrittenRecording {
  /** What could not be written as asked (see {@link printRecordingWarnings}). */
  warnings: RecordedConfig["warnings"];
  stubs: number;
  sequences: number;
  bodyFiles: number;
}

/** Prints the recording's warnings, `[WARN] GET /events: …`, on stderr. */
export function printRecordingWarnings(warnings: RecordedConfig["warnings"], output: Output): void {
  for (const { place, message } of warnings) output.err(warnLine(place, message));
}

/**
 * Writes exchanges as a config file `out` (after the comment line `heading`), body files in
 * `<name>.bodies/` beside it. The text is checked as `validate` would before it replaces
 * anything. Throws when it cannot be written or does not validate.
 */
export async function writeRecording(
  exchanges: readonly Exchange[],
  options: RecordingOptions,
  out: string,
  heading: string,
): Promise<WrittenRecording> {
  const bodies = `${out.replace(/\.[^./]*$/, "")}.bodies`;
  const { config, files, warnings } = recordedConfig(exchanges, {
    ...options,
    bodies: bodies.slice(dirname(out).length + 1),
  });
  const { stringify } = await import("yaml");
  const text = `# ${heading}\n` + stringify(config, { lineWidth: 0 });
  if (files.size) await mkdir(bodies, { recursive: true });
  for (const [name, bytes] of files) await writeFileAtomic(join(dirname(out), name), bytes);
  // The file must load as it will be served: check it before it replaces anything.
  const { config: check, problems } = await loadConfigText(text, out);
  const errors = problems.filter((p) => p.level === "error");
  if (!check || errors.length) throw new Error(`the recording does not validate: ${errors[0]?.message}`);
  await writeFileAtomic(out, text);
  return {
    warnings,
    stubs: config.routes.length,
    sequences: config.routes.filter((r) => r.sequence).length,
    bodyFiles: files.size,
  };
}

/** `N stub(s) (K sequence(s)), B body file(s)`: what a recording was written as. */
export function writtenSummary(written: WrittenRecording): string {
  return `${written.stubs} stub(s)` + (written.sequences ? ` (${written.sequences} sequence(s))` : "") +
    (written.bodyFiles ? `, ${written.bodyFiles} body file(s)` : "");
}

/** Records until stopped, then writes the config. Returns 0, 1 when the file cannot be written or a port bound. */
export async function recordCommand({ values }: ParsedArgs, ctx: CliContext): Promise<number> {
  const { output, env } = ctx;
  const { target, port, hostname, out } = recordSettings(values, env);
  const options = recordingOptions(values);
  const quiet = values.quiet === true;

  const exchanges: Exchange[] = [];
  let server: StubServer;
  try {
    server = await recordingServer(target, port, hostname, exchanges, quiet ? undefined : output);
  } catch (error) {
    output.err(errorLine(`${hostname}:${port}`, `cannot listen: ${messageOf(error)}`));
    return 1;
  }
  output.serving();
  output.out(`stubtool ${VERSION} recording ${target.href.replace(/\/$/, "")} on ${server.url}`);
  output.out(`point your client at ${server.url}; Ctrl+C writes ${out}`);

  const stop = stopRequests(ctx, () => {});
  const cause = await stop.stopped;
  stop.dispose();
  output.out(`stopping (${cause}): no new connections; in-flight exchanges get up to 5s`);
  await server.shutdown();

  let written: WrittenRecording;
  try {
    written = await writeRecording(
      exchanges,
      options,
      out,
      `Recorded by stubtool ${VERSION} from ${target.href} (${new Date().toISOString()})`,
    );
  } catch (error) {
    output.err(errorLine(out, `cannot write the recording: ${describeWriteError(error)}`));
    return 1;
  }
  printRecordingWarnings(written.warnings, output);
  output.out(`recorded ${exchanges.length} request(s) as ${writtenSummary(written)} → ${out}`);
  return 0;
}

/** The service to record (`--target`, required), where to listen and the file to write. */
function recordSettings(
  values: ParsedArgs["values"],
  env: CliContext["env"],
): { target: URL; port: number; hostname: string; out: string } {
  const targetText = values.target as string | undefined;
  if (targetText === undefined) {
    throw new UsageError("record: --target URL is required (the service to record)", "record");
  }
  const target = urlValue(targetText, "--target", "record");
  const portText = (values.port as string | undefined) ?? env.STUBTOOL_PORT?.trim();
  const port = portText ? portValue(portText, values.port !== undefined ? "--port" : "STUBTOOL_PORT", "record") : 8080;
  const hostname = (values.host as string | undefined) ?? (env.STUBTOOL_HOST?.trim() || "127.0.0.1");
  const out = resolve((values.out as string | undefined) ?? "stubs.yaml");
  return { target, port, hostname, out };
}

/** A server proxying every request to `target`, each exchange added to `exchanges` (and logged, unless quiet). */
function recordingServer(
  target: URL,
  port: number,
  hostname: string,
  exchanges: Exchange[],
  output: CliContext["output"] | undefined,
): Promise<StubServer> {
  return stubServer(port, {
    hostname,
    proxyUnmatched: target.href,
    journalSize: 0,
    proxyTap: (method, requestTarget, requestHeaders) =>
      collector(method, requestTarget, requestHeaders, (exchange, why) => {
        if (exchange) exchanges.push(exchange);
        output?.log(
          exchange
            ? `${method} ${requestTarget} ${exchange.status} recorded (${exchange.body.byteLength} bytes)`
            : `${method} ${requestTarget} not recorded: ${why}`,
        );
      }),
  });
}
