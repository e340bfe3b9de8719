/**
 * `stubtool report`: print the coverage report of a running server, or of reports saved
 * with `serve --report-file` (merged when there are several), or write it to a file
 * (`--output`, replaced all at once; `--format html` for a CI artifact), optionally for one
 * scope (`--scope`), and optionally fail on unmatched requests or unused stubs and scenario
 * transitions.
 * @module
 */

import { readFile } from "node:fs/promises";
import { describeReadError, lineAndColumn, parseJson } from "../stubs/config.ts";
import { escapeControls } from "../report/escape.ts";
import type { OpenApiDrift } from "../report/openapi.ts";
import type { CurrentState, JournalSnapshot, Report, StubDetail } from "../report/types.ts";
import {
  checkReport,
  mergeReports,
  renderReport,
  REPORT_FORMATS,
  type ReportFormat,
  transitionCounts,
  violationCount,
  webSocketRuleCounts,
} from "../report/report.ts";
import type { CliContext } from "./context.ts";
import { checkOutputPath, describeWriteError, writeFileAtomic } from "./files.ts";
import { errorLine, printProblems } from "./output.ts";
import { describeFetchError, endpointUrl, fetchAnyAddress, type ReachOptions, serverTarget } from "./reach.ts";
import { choiceValue, type ParsedArgs, UsageError } from "./usage.ts";

/** How long `report` waits for a server's answer. */
const REPORT_TIMEOUT_MS = 10_000;

/** A report, or the `[ERROR]` line saying why there is none (exit 2). */
type Fetched = { report: Report } | { error: string };

/** The `error` message of a JSON error answer (`{"error": "..."}`), if that is what `text` is. */
function errorMessage(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as { error?: unknown } | null;
    return typeof value?.error === "string" ? value.error : undefined;
  } catch {
    return undefined;
  }
}

async function fetchReport(url: URL, reach: ReachOptions, scope: string | undefined): Promise<Fetched> {
  const display = url.href.replace(/\/$/, "");
  const cannot = (reason: string) => ({
    error: `[ERROR] cannot reach stubtool at ${display}: ${escapeControls(reason)}`,
  });
  const endpoint = endpointUrl(url, "report", scope === undefined ? {} : { scope });
  let response: Response;
  try {
    response = await fetchAnyAddress(endpoint, REPORT_TIMEOUT_MS, reach);
  } catch (error) {
    return cannot(describeFetchError(error));
  }
  const text = await response.text().catch(() => "");
  if (response.status !== 200) {
    // A server without --scopes refuses ?scope= with 400 and a message that says what to do.
    const message = errorMessage(text);
    if (message !== undefined && scope !== undefined && response.status === 400) {
      return {
        error: errorLine(
          `--scope ${escapeControls(scope!)}`,
          `the server answered ${response.status}: ${escapeControls(message)}`,
        ),
      };
    }
    // A refusal (401 without the admin token, 403 for the Host) says what to do itself.
    if (message !== undefined) {
      return cannot(`${endpoint.pathname} answered ${response.status}: ${escapeControls(message)}`);
    }
    return cannot(`${endpoint.pathname} answered ${response.status}; is this a stubtool server?`);
  }
  const parsed = await parseJson(text);
  const problem = "error" in parsed ? "the answer is not JSON" : checkReport(parsed.value);
  if (problem) return cannot(`${endpoint.pathname}: ${problem}; is this a stubtool server?`);
  return { report: (parsed as { value: Report }).value };
}

/**
 * The server's request journal for the HTML page, or undefined when the server has none to
 * give (an older stubtool); the report itself does not depend on it.
 */
async function fetchJournal(url: URL, reach: ReachOptions): Promise<JournalSnapshot | undefined> {
  try {
    const response = await fetchAnyAddress(endpointUrl(url, "requests"), REPORT_TIMEOUT_MS, reach);
    const text = await response.text();
    if (response.status !== 200) return undefined;
    const value = JSON.parse(text) as Partial<JournalSnapshot> | null;
    const ok = typeof value === "object" && value !== null && Number.isInteger(value.capacity) &&
      Number.isInteger(value.total) && Array.isArray(value.requests) &&
      value.requests.every((r) =>
        typeof r === "object" && r !== null && typeof r.method === "string" && typeof r.target === "string" &&
        typeof r.time === "string" && Number.isInteger(r.status) &&
        (r.closest === undefined || Array.isArray(r.closest))
      );
    return ok ? value as JournalSnapshot : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A list the HTML page shows beside the report (`stubs` of `GET /__stubtool__/stubs`,
 * `scenarios` of `GET /__stubtool__/scenarios`): undefined when the server has none to give.
 */
async function fetchList<T>(url: URL, reach: ReachOptions, endpoint: string): Promise<T[] | undefined> {
  try {
    const response = await fetchAnyAddress(endpointUrl(url, endpoint), REPORT_TIMEOUT_MS, reach);
    const text = await response.text();
    if (response.status !== 200) return undefined;
    const list = (JSON.parse(text) as Record<string, unknown> | null)?.[endpoint];
    return Array.isArray(list) && list.every((item) => typeof item === "object" && item !== null)
      ? list as T[]
      : undefined;
  } catch {
    return undefined;
  }
}

/** Checks `--output`'s directory before any work, like serve's `--report-file`. */
function outputPath(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  const checked = checkOutputPath(file);
  if ("problem" in checked) throw new UsageError(`--output: ${checked.problem}`, "report");
  return file;
}

async function readSavedReport(file: string): Promise<Fetched> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return { error: errorLine(file, describeReadError(error)) };
  }
  const parsed = await parseJson(text);
  if ("error" in parsed) {
    const { line, col } = lineAndColumn(text, parsed.error.offset);
    return { error: errorLine(`${file}:${line}:${col}`, parsed.error.message) };
  }
  const problem = checkReport(parsed.value);
  if (problem) return { error: errorLine(file, `${problem} (write one with stubtool serve --report-file)`) };
  return { report: parsed.value as Report };
}

/**
 * Prints the report in `--format`. Returns 0; 1 when a `--fail-on-*` check fails (the
 * report is printed first); 2 when the server is unreachable, a saved report unreadable, or
 * the `--openapi` document unusable.
 */
export async function reportCommand(
  { values, positionals }: ParsedArgs,
  { env, output }: CliContext,
): Promise<number> {
  const format: ReportFormat = values.format === undefined
    ? "text"
    : choiceValue(values.format as string, REPORT_FORMATS, "--format", "report");
  const { from, scope } = reportSources(values, positionals);
  const outputFile = outputPath(values.output as string | undefined);
  const gathered = from.length
    ? await readSavedReports(from)
    : await fetchServerReport(values, env, scope, format === "html");
  if ("error" in gathered) {
    output.err(gathered.error);
    return 2;
  }
  const { report, journal, source, stubs, states } = gathered;

  let openapi: OpenApiDrift | undefined;
  const specFile = values.openapi as string | undefined;
  if (specFile !== undefined) {
    // The OpenAPI parser and the schema validator load only when a spec is asked for.
    const { loadOpenApi } = await import("./loaders/openapi_document.ts");
    const { spec, problems } = await loadOpenApi(specFile);
    printProblems(output, problems, specFile);
    if (!spec) return 2;
    openapi = spec.drift(report);
  }

  const rendered = renderReport(report, { format, journal, source, openapi, stubs, states });
  if (outputFile === undefined) output.out(rendered.replace(/\n$/, ""));
  else {
    try {
      await writeFileAtomic(outputFile, rendered);
    } catch (error) {
      output.err(errorLine(`--output ${outputFile}`, `cannot write the report: ${describeWriteError(error)}`));
      return 1;
    }
    output.out(`report written to ${outputFile}`);
  }

  const failures = reportFailures(report, values);
  if (failures.length === 0) return 0;
  output.err(`[ERROR] report check failed: ${failures.join("; ")}`);
  return 1;
}

/** The saved reports to render (`--from` and the arguments) and the `--scope` to ask for, checked. */
function reportSources(values: ParsedArgs["values"], positionals: string[]): { from: string[]; scope?: string } {
  const from = [...(values.from as string[] | undefined) ?? []];
  if (from.length === 0 && positionals.length) {
    throw new UsageError(
      `report: unexpected argument '${positionals[0]}' (to render saved reports, use --from FILE...)`,
      "report",
    );
  }
  from.push(...positionals);
  if (from.length && values.url !== undefined) {
    throw new UsageError("report: use either --url (ask a server) or --from (saved reports), not both", "report");
  }
  const scope = values.scope as string | undefined;
  if (scope !== undefined && from.length) {
    throw new UsageError("report: --scope asks a running server; saved reports (--from) have no scopes", "report");
  }
  if (scope === "") {
    throw new UsageError("--scope: must not be empty (the x-stubtool-scope value to report on)", "report");
  }
  return { from, scope };
}

/** A report to render, where it came from, and for `--format html` a server's journal, stubs and states. */
interface Gathered {
  report: Report;
  source: string;
  journal?: JournalSnapshot;
  stubs?: StubDetail[];
  states?: CurrentState[];
}

/** The saved reports `from`, merged when there are several, or the `[ERROR]` line of the first unreadable one. */
async function readSavedReports(from: string[]): Promise<Gathered | { error: string }> {
  const reports: Report[] = [];
  for (const file of from) {
    const result = await readSavedReport(file);
    if ("error" in result) return result;
    reports.push(result.report);
  }
  return { report: reports.length === 1 ? reports[0] : mergeReports(reports), source: from.join(", ") };
}

/** A running server's report (of `scope`), with its journal, stubs and states when `html` shows them. */
async function fetchServerReport(
  values: ParsedArgs["values"],
  env: CliContext["env"],
  scope: string | undefined,
  html: boolean,
): Promise<Gathered | { error: string }> {
  const { url, reach } = serverTarget(values, env, "report");
  const result = await fetchReport(url, reach, scope);
  if ("error" in result) return result;
  const gathered: Gathered = { report: result.report, source: url.href.replace(/\/$/, "") };
  if (html) {
    gathered.journal = await fetchJournal(url, reach);
    gathered.stubs = await fetchList<StubDetail>(url, reach, "stubs");
    gathered.states = await fetchList<CurrentState>(url, reach, "scenarios");
  }
  return gathered;
}

/** Why the report fails its `--fail-on-*` checks: one reason per check broken, none when it passes. */
function reportFailures(report: Report, values: ParsedArgs["values"]): string[] {
  const failures: string[] = [];
  const unmatched = report.summary.unmatched_requests;
  if (values["fail-on-unmatched"] && unmatched > 0) {
    failures.push(`${unmatched} request(s) matched no stub (--fail-on-unmatched)`);
  }
  const unused = report.unused_stubs.length;
  if (values["fail-on-unused"] && unused > 0) {
    failures.push(`${unused} stub(s) never hit (--fail-on-unused)`);
  }
  // A declared scenario transition nobody took is untested flow, as an unused stub is an untested answer.
  const transitions = transitionCounts(report);
  if (values["fail-on-unused"] && transitions.taken < transitions.total) {
    failures.push(`${transitions.total - transitions.taken} scenario transition(s) never taken (--fail-on-unused)`);
  }
  const violations = violationCount(report);
  if (values["fail-on-violations"] && violations > 0) {
    failures.push(
      `${violations} request(s) broke the OpenAPI spec the server checks them against (--fail-on-violations)`,
    );
  }
  const rules = webSocketRuleCounts(report);
  if (values["fail-on-unused"] && rules.matched < rules.total) {
    failures.push(`${rules.total - rules.matched} WebSocket rule(s) never matched (--fail-on-unused)`);
  }
  return failures;
}
