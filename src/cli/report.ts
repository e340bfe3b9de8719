/**
 * `stubtool report`: print the coverage report of a running server, or of reports saved
 * with `serve --report-file` (merged when there are several), and optionally fail on
 * unmatched requests or unused stubs (P6, seed §4.4).
 * @module
 */

import { readFile } from "node:fs/promises";
import { describeReadError, lineAndColumn, parseJson } from "../config.ts";
import type { Report } from "../recorder.ts";
import { checkReport, mergeReports, renderReport, REPORT_FORMATS, type ReportFormat } from "../report.ts";
import type { CliContext } from "./context.ts";
import { errorLine } from "./output.ts";
import { defaultServerUrl, describeFetchError, endpointUrl, fetchAnyAddress } from "./reach.ts";
import { choiceValue, type ParsedArgs, urlValue, UsageError } from "./usage.ts";

/** How long `report` waits for a server's answer. */
const REPORT_TIMEOUT_MS = 10_000;

/** A report, or the `[ERROR]` line saying why there is none (exit 2). */
type Fetched = { report: Report } | { error: string };

async function fetchReport(url: URL): Promise<Fetched> {
  const display = url.href.replace(/\/$/, "");
  const cannot = (reason: string) => ({ error: `[ERROR] cannot reach stubtool at ${display}: ${reason}` });
  const endpoint = endpointUrl(url, "report");
  let response: Response;
  try {
    response = await fetchAnyAddress(endpoint, REPORT_TIMEOUT_MS);
  } catch (error) {
    return cannot(describeFetchError(error));
  }
  const text = await response.text().catch(() => "");
  if (response.status !== 200) {
    return cannot(`${endpoint.pathname} answered ${response.status}; is this a stubtool server?`);
  }
  const parsed = await parseJson(text);
  const problem = "error" in parsed ? "the answer is not JSON" : checkReport(parsed.value);
  if (problem) return cannot(`${endpoint.pathname}: ${problem}; is this a stubtool server?`);
  return { report: (parsed as { value: Report }).value };
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
 * report is printed first); 2 when the server is unreachable or a saved report unreadable.
 */
export async function reportCommand({ values, positionals }: ParsedArgs, { env, output }: CliContext): Promise<number> {
  const format: ReportFormat = values.format === undefined
    ? "text"
    : choiceValue(values.format as string, REPORT_FORMATS, "--format", "report");
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

  let report: Report;
  if (from.length) {
    const reports: Report[] = [];
    for (const file of from) {
      const result = await readSavedReport(file);
      if ("error" in result) {
        output.err(result.error);
        return 2;
      }
      reports.push(result.report);
    }
    report = reports.length === 1 ? reports[0] : mergeReports(reports);
  } else {
    const urlText = values.url as string | undefined;
    const url = urlText === undefined ? defaultServerUrl(env, "report") : urlValue(urlText, "--url", "report");
    const result = await fetchReport(url);
    if ("error" in result) {
      output.err(result.error);
      return 2;
    }
    report = result.report;
  }

  output.out(renderReport(report, { format }).replace(/\n$/, ""));

  const failures: string[] = [];
  const unmatched = report.summary.unmatched_requests;
  if (values["fail-on-unmatched"] && unmatched > 0) {
    failures.push(`${unmatched} request(s) matched no stub (--fail-on-unmatched)`);
  }
  const unused = report.unused_stubs.length;
  if (values["fail-on-unused"] && unused > 0) {
    failures.push(`${unused} stub(s) never hit (--fail-on-unused)`);
  }
  if (failures.length === 0) return 0;
  output.err(`[ERROR] report check failed: ${failures.join("; ")}`);
  return 1;
}
