/**
 * Renders the coverage report as text, JSON, GitHub job-summary
 * Markdown or a self-contained HTML page, and merges saved reports from sharded runs into
 * one. Pure functions: no I/O. The text, JSON and Markdown forms are printed to terminals and
 * CI logs, so control and bidi characters from requests or saved files are escaped in them
 * (src/report/escape.ts).
 * @module
 */

import type { OpenApiDrift } from "./openapi.ts";
import type {
  ClosestStub,
  CurrentState,
  JournalSnapshot,
  Report,
  ReportScenario,
  ReportStub,
  ReportTransition,
  ReportViolation,
  StubDetail,
  UnmatchedRequest,
} from "./types.ts";
import { escapeControls, escapeJsonControls } from "./escape.ts";
import { renderHtmlReport, stubTarget } from "./report_html.ts";
import { plural } from "../util/plural.ts";
import { isObject } from "../util/json_shape.ts";

/** Output formats of `stubtool report --format`. */
export const REPORT_FORMATS = ["text", "json", "github-summary", "html"] as const;

/** One of {@link REPORT_FORMATS}. */
export type ReportFormat = typeof REPORT_FORMATS[number];

/** Options of {@link renderReport}. */
export interface RenderOptions {
  format: ReportFormat;
  /** `html` only: the request journal of a live server, shown below the report. */
  journal?: JournalSnapshot;
  /** `html` only: where the report came from (a server URL, saved files), shown in the header. */
  source?: string;
  /** `html` only: when the page was made, `Date#toISOString()`; default now. */
  generatedAt?: string;
  /**
   * The drift against an OpenAPI document (`report --openapi`), shown after the report in
   * every format; `json` carries it as the top-level key `openapi`.
   */
  openapi?: OpenApiDrift;
  /** `html` only: each stub's details from a live server (`GET /__stubtool__/stubs`), shown in the stub table. */
  stubs?: StubDetail[];
  /** `html` only: where each scenario is now on a live server (`GET /__stubtool__/scenarios`). */
  states?: CurrentState[];
}

/**
 * Appends a GitHub Markdown table, or `none` when there are no rows (an empty table
 * renders as a bare header). Cells must already be escaped. Returns whether rows were shown.
 */
function markdownTable(lines: string[], header: readonly string[], rows: readonly string[][]): boolean {
  if (rows.length === 0) {
    lines.push("none");
    return false;
  }
  lines.push(`| ${header.join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`);
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return true;
}

/** `/users?role=x`: an unmatched request's path with its query string, if any. */
function requestTarget(request: UnmatchedRequest): string {
  return request.query ? `${request.path}?${request.query}` : request.path;
}

/**
 * The stubs that came closest to an unmatched request, as far as they can be shown: saved
 * reports are files anyone can edit, so anything but a list of `{method, path, reason}`
 * strings reads as none.
 */
function closestOf(request: UnmatchedRequest): ClosestStub[] {
  const closest: unknown = request.closest;
  if (!Array.isArray(closest)) return [];
  return closest.filter((c): c is ClosestStub =>
    typeof c === "object" && c !== null && typeof c.method === "string" && typeof c.path === "string" &&
    typeof c.reason === "string"
  );
}

/**
 * `GET /users/{id}/orders [get-orders, routes[3] of stubs.yaml] (segment 3 is 'invoices', stub has 'orders')`,
 * plus how many others came close.
 */
function closestLine(closest: readonly ClosestStub[]): string {
  const [first] = closest;
  const more = closest.length > 1 ? ` (+${closest.length - 1} more)` : "";
  const which = [first.id, first.place].filter((s) => typeof s === "string" && s !== "").join(", ");
  return `${first.method} ${stubTarget(first)}${which ? ` [${which}]` : ""} (${first.reason})${more}`
    .replace(/[\r\n]+/g, " ");
}

/** A note when the server kept fewer unmatched requests than it counted (`--max-unmatched`). */
function droppedNote(report: Report): string | undefined {
  const dropped = report.summary.unmatched_requests - report.unmatched_requests.length;
  return dropped > 0
    ? `${plural(dropped, "earlier request", "earlier requests")} not kept (--max-unmatched)`
    : undefined;
}

function driftText(drift: OpenApiDrift): string[] {
  const lines = [`OpenAPI drift against ${drift.spec} (OpenAPI ${drift.version}, ${drift.operations} operation(s))`];
  if (drift.uncovered_operations.length === 0) lines.push("Operations no stub covers: none");
  else {
    lines.push("Operations no stub covers:");
    for (const op of drift.uncovered_operations) {
      lines.push(`  ${op.method} ${op.path}${op.operation_id ? ` (${op.operation_id})` : ""}`);
    }
  }
  if (drift.unstubbed_requests.length === 0) lines.push("Unmatched requests the spec describes: none");
  else {
    lines.push("Unmatched requests the spec describes (a real endpoint nobody stubbed):");
    for (const request of drift.unstubbed_requests) {
      lines.push(`  ${request.method} ${requestTarget(request)} [${request.timestamp}]`);
      lines.push(`    spec: ${request.operation}`);
    }
  }
  return lines;
}

function driftMarkdown(drift: OpenApiDrift): string[] {
  const lines = [
    "",
    "### OpenAPI drift",
    "",
    `Against ${codeCell(drift.spec)} (OpenAPI ${textCell(drift.version)}, ${drift.operations} operations): ` +
    `operations no stub covers: **${drift.uncovered_operations.length}** · ` +
    `unmatched requests the spec describes: **${drift.unstubbed_requests.length}**`,
    "",
    "#### Operations no stub covers",
    "",
  ];
  markdownTable(
    lines,
    ["Method", "Path", "Operation ID"],
    drift.uncovered_operations.map((op) => [
      textCell(op.method),
      codeCell(op.path),
      op.operation_id ? codeCell(op.operation_id) : "",
    ]),
  );
  lines.push("", "#### Unmatched requests the spec describes", "");
  markdownTable(
    lines,
    ["Method", "Path", "Timestamp", "Spec operation"],
    drift.unstubbed_requests.map((request) => [
      textCell(request.method),
      codeCell(requestTarget(request)),
      textCell(request.timestamp),
      codeCell(request.operation),
    ]),
  );
  return lines;
}

/**
 * How many scenario transitions the report declares, and how many of them were taken.
 *
 * @example
 * ```ts
 * import { transitionCounts } from "./report.ts";
 * const report = {
 *   summary: { total_stubs: 2, matched_stubs: 1, unmatched_requests: 0 },
 *   stubs: [],
 *   unused_stubs: [],
 *   unmatched_requests: [],
 *   scenarios: [{
 *     name: "cart",
 *     transitions: [
 *       { from: "Started", to: "full", stub: "add", taken: 2 },
 *       { from: "full", to: "Started", stub: "clear", taken: 0 },
 *     ],
 *   }],
 * };
 * console.log(transitionCounts(report)); // { total: 2, taken: 1 }
 * ```
 */
export function transitionCounts(report: Report): { total: number; taken: number } {
  const transitions = (report.scenarios ?? []).flatMap((s) => s.transitions);
  return { total: transitions.length, taken: transitions.filter((t) => t.taken > 0).length };
}

/**
 * How many `on_message` rules the report's WebSocket stubs have, and how many answered a message.
 *
 * @example
 * ```ts
 * import { webSocketRuleCounts } from "./report.ts";
 * const report = {
 *   summary: { total_stubs: 1, matched_stubs: 1, unmatched_requests: 0 },
 *   stubs: [{
 *     method: "GET",
 *     path: "/chat",
 *     hit_count: 1,
 *     websocket_rules: [{ match: "ping", matches: 3 }, { match: "/^echo/", matches: 0 }],
 *   }],
 *   unused_stubs: [],
 *   unmatched_requests: [],
 * };
 * console.log(webSocketRuleCounts(report)); // { total: 2, matched: 1 }
 * ```
 */
export function webSocketRuleCounts(report: Report): { total: number; matched: number } {
  const rules = report.stubs.flatMap((stub) => stub.websocket_rules ?? []);
  return { total: rules.length, matched: rules.filter((rule) => rule.matches > 0).length };
}

/** WebSocket rules for a terminal: how many matched, then each rule that never did. */
function webSocketText(report: Report): string[] {
  const { total, matched } = webSocketRuleCounts(report);
  if (total === 0) return [];
  const lines = [`WebSocket rules matched: ${matched}/${total}`];
  for (const stub of report.stubs) {
    stub.websocket_rules?.forEach((rule, i) => {
      if (rule.matches === 0) {
        lines.push(`  ${stub.method} ${stubTarget(stub)} on_message[${i}] (${rule.match}): never matched`);
      }
    });
  }
  return lines;
}

/** `Started → has-items via add-item`: a transition as the text and Markdown forms name it. */
function transitionLabel(t: ReportTransition): string {
  return `${t.from} → ${t.to} via ${t.stub}`;
}

/** Flow coverage for a terminal: per scenario, each transition with how often it was taken. */
function flowText(scenarios: readonly ReportScenario[]): string[] {
  const { total, taken } = transitionCounts({ scenarios } as Report);
  const lines = [`Scenario transitions taken: ${taken}/${total}`];
  for (const scenario of scenarios) {
    if (scenario.transitions.length === 0) {
      lines.push(`  ${scenario.name}: no stub sets a state`);
      continue;
    }
    lines.push(`  ${scenario.name}:`);
    for (const t of scenario.transitions) {
      lines.push(`    ${transitionLabel(t)}: ${t.taken > 0 ? `taken ${t.taken}` : "never taken"}`);
    }
  }
  return lines;
}

function flowMarkdown(scenarios: readonly ReportScenario[]): string[] {
  const { total, taken } = transitionCounts({ scenarios } as Report);
  const lines = ["", "### Scenario transitions", "", `Transitions taken: **${taken}/${total}**`, ""];
  markdownTable(
    lines,
    ["Scenario", "From", "To", "Stub", "Taken"],
    scenarios.flatMap((scenario) =>
      scenario.transitions.map((t) => [
        textCell(scenario.name),
        codeCell(t.from),
        codeCell(t.to),
        codeCell(t.stub),
        t.taken > 0 ? `✅ ${t.taken}` : "❌ 0",
      ])
    ),
  );
  return lines;
}

/** How many requests broke the spec (the sum of the report's violation counts; 0 without the key). */
export function violationCount(report: Report): number {
  return (report.violations ?? []).reduce((sum, v) => sum + v.count, 0);
}

/** `POST /pets body.name: must NOT have fewer than 1 characters`: a violation as text and Markdown name it. */
function violationWhere(v: ReportViolation): string {
  return v.location ? `${v.operation} ${v.location}` : v.operation;
}

/** The requests that broke the spec, for a terminal: each distinct violation with its count. */
function violationsText(violations: readonly ReportViolation[]): string[] {
  if (violations.length === 0) return ["Requests that broke the spec: none"];
  const lines = [`Requests that broke the spec: ${violationCount({ violations } as Report)}`];
  for (const v of violations) lines.push(`  ${violationWhere(v)}: ${v.message} (${v.count}x)`.replace(/[\r\n]+/g, " "));
  return lines;
}

function violationsMarkdown(violations: readonly ReportViolation[]): string[] {
  const lines = [
    "",
    "### Requests that broke the spec",
    "",
    `Violations: **${violationCount({ violations } as Report)}**`,
    "",
  ];
  markdownTable(
    lines,
    ["Operation", "Location", "Message", "Count"],
    violations.map((
      v,
    ) => [codeCell(v.operation), v.location ? codeCell(v.location) : "", textCell(v.message), `${v.count}`]),
  );
  return lines;
}

/** Lines joined for a terminal: each with its control and bidi characters escaped, so it stays one line. */
function safeLines(lines: readonly string[]): string {
  return lines.map(escapeControls).join("\n") + "\n";
}

function textLines(report: Report): string[] {
  const { summary } = report;
  const lines = [
    "stubtool coverage report",
    `Exercised stubs: ${summary.matched_stubs}/${summary.total_stubs}`,
    `Unmatched requests: ${summary.unmatched_requests}`,
  ];
  if (report.unused_stubs.length === 0) lines.push("Unused stubs: none");
  else {
    lines.push("Unused stubs:");
    for (const stub of report.unused_stubs) lines.push(`  ${stub.method} ${stubTarget(stub)}`);
  }
  if (report.unmatched_requests.length === 0) lines.push("Requests that matched no stub: none");
  else {
    lines.push("Requests that matched no stub:");
    for (const request of report.unmatched_requests) {
      lines.push(`  ${request.method} ${requestTarget(request)} [${request.timestamp}]`);
      const closest = closestOf(request);
      if (closest.length) lines.push(`    closest: ${closestLine(closest)}`);
    }
    const note = droppedNote(report);
    if (note) lines.push(`  ... and ${note}`);
  }
  return lines;
}

/** Plain table cell: line breaks become spaces, Markdown punctuation is escaped. */
function textCell(text: string): string {
  return text.replace(/[\r\n]+/g, " ").replace(/[\\|`*_~<>[\]]/g, "\\$&");
}

/** Code-span table cell, so GitHub shows `{id}` and `*` literally; `|` still needs `\|` in a table. */
function codeCell(text: string): string {
  const body = text.replace(/[\r\n]+/g, " ").replaceAll("|", "\\|");
  const longestRun = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longestRun + 1);
  const pad = body.startsWith("`") || body.endsWith("`") ? " " : "";
  return `${fence}${pad}${body}${pad}${fence}`;
}

function githubSummaryLines(report: Report): string[] {
  const { summary } = report;
  const lines = [
    "## stubtool coverage report",
    "",
    `Exercised stubs: **${summary.matched_stubs}/${summary.total_stubs}** · Unmatched requests: **${summary.unmatched_requests}**`,
    "",
    "### Stubs",
    "",
  ];
  markdownTable(
    lines,
    ["Method", "Path", "Hits"],
    report.stubs.map((stub) => [
      textCell(stub.method),
      codeCell(stubTarget(stub)),
      stub.hit_count > 0 ? `✅ ${stub.hit_count}` : "❌ 0",
    ]),
  );
  lines.push("", "### Unmatched requests", "");
  const shown = markdownTable(
    lines,
    ["Method", "Path", "Timestamp", "Closest stub"],
    report.unmatched_requests.map((request) => {
      const closest = closestOf(request);
      const [first] = closest;
      const why = first
        ? `${codeCell(`${first.method} ${stubTarget(first)}`)} ${textCell(`(${first.reason})`)}${
          closest.length > 1 ? ` +${closest.length - 1} more` : ""
        }`
        : "none";
      return [textCell(request.method), codeCell(requestTarget(request)), textCell(request.timestamp), why];
    }),
  );
  const note = shown ? droppedNote(report) : undefined;
  if (note) lines.push("", `…and ${note}.`);
  return lines;
}

/**
 * Renders a report: `text` for terminals and CI logs, `json` (2-space indent) for tools,
 * `github-summary` Markdown for `$GITHUB_STEP_SUMMARY`, `html` a static page (the
 * dashboard's, without live refresh) for a CI artifact. The result ends with a newline.
 * In `text` and `github-summary`, control and bidi characters are written out visibly
 * (`\x1b`, `\u202e`); in `json` as `\uXXXX` escapes (the same value once parsed).
 *
 * @example
 * ```ts
 * import { renderReport } from "./report.ts";
 * const report = {
 *   summary: { total_stubs: 1, matched_stubs: 1, unmatched_requests: 0 },
 *   stubs: [{ method: "GET", path: "/ping", hit_count: 2 }],
 *   unused_stubs: [],
 *   unmatched_requests: [],
 * };
 * console.log(renderReport(report, { format: "text" }).split("\n")[1]); // "Exercised stubs: 1/1"
 * ```
 */
export function renderReport(report: Report, { format, openapi, ...html }: RenderOptions): string {
  switch (format) {
    case "html":
      return renderHtmlReport(report, { ...html, openapi });
    case "json":
      return escapeJsonControls(JSON.stringify(openapi ? { ...report, openapi } : report, null, 2)) + "\n";
    case "github-summary":
      return safeLines([
        ...githubSummaryLines(report),
        ...(report.scenarios ? flowMarkdown(report.scenarios) : []),
        ...(report.violations ? violationsMarkdown(report.violations) : []),
        ...(openapi ? driftMarkdown(openapi) : []),
      ]);
    case "text":
      return safeLines([
        ...textLines(report),
        ...webSocketText(report),
        ...(report.scenarios ? flowText(report.scenarios) : []),
        ...(report.violations ? violationsText(report.violations) : []),
        ...(openapi ? driftText(openapi) : []),
      ]);
    default:
      throw new TypeError(`unknown report format '${format}' (allowed: ${REPORT_FORMATS.join(", ")})`);
  }
}

/** Identity of a stub across reports: method, path and required query. */
function stubKey(stub: ReportStub): string {
  const query = Object.entries(stub.query_params ?? {}).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return JSON.stringify([stub.method, stub.path, query]);
}

/**
 * Merges reports from several runs (sharded CI jobs) into one: hit counts are added per
 * stub (method + path + required query; the n-th duplicate in one report merges with the
 * n-th in another), stubs keep first-seen order, unmatched requests are concatenated in
 * time order, and the summary is recomputed (the unmatched total is the sum of totals).
 * Scenario transitions are added per scenario + from + to + stub; the `scenarios` key is
 * there when any of the reports has it. Violations are added per operation + location +
 * message, in first-seen order; the `violations` key is there when any of the reports has it.
 *
 * @example
 * ```ts
 * import { mergeReports } from "./report.ts";
 * const shard = (hits: number) => ({
 *   summary: { total_stubs: 1, matched_stubs: hits ? 1 : 0, unmatched_requests: 0 },
 *   stubs: [{ method: "GET", path: "/ping", hit_count: hits }],
 *   unused_stubs: hits ? [] : [{ method: "GET", path: "/ping" }],
 *   unmatched_requests: [],
 * });
 * console.log(mergeReports([shard(0), shard(3)]).stubs[0].hit_count); // 3
 * ```
 */
export function mergeReports(reports: readonly Report[]): Report {
  const merged: ReportStub[] = [];
  const byKey = new Map<string, ReportStub[]>();
  let unmatchedTotal = 0;
  for (const report of reports) {
    const seen = new Map<string, number>();
    for (const stub of report.stubs) {
      const key = stubKey(stub);
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      const same = byKey.get(key) ?? [];
      byKey.set(key, same);
      if (same[n]) {
        same[n].hit_count += stub.hit_count;
        stub.websocket_rules?.forEach((rule, i) => {
          const into = same[n].websocket_rules?.[i];
          if (into) into.matches += rule.matches;
        });
      } else {
        const entry: ReportStub = { method: stub.method, path: stub.path, hit_count: stub.hit_count };
        if (stub.query_params) entry.query_params = { ...stub.query_params };
        if (stub.websocket_rules) entry.websocket_rules = stub.websocket_rules.map((rule) => ({ ...rule }));
        same.push(entry);
        merged.push(entry);
      }
    }
    unmatchedTotal += report.summary.unmatched_requests;
  }
  const time = (r: UnmatchedRequest) => {
    const ms = Date.parse(r.timestamp);
    return Number.isNaN(ms) ? Infinity : ms;
  };
  // Array#sort is stable, so requests with the same time keep file order.
  const unmatched = reports.flatMap((r) => r.unmatched_requests).sort((a, b) => time(a) - time(b));
  const unused = merged.filter((s) => s.hit_count === 0).map(({ hit_count: _, ...rest }) => rest);
  const result: Report = {
    summary: {
      total_stubs: merged.length,
      matched_stubs: merged.length - unused.length,
      unmatched_requests: Math.max(unmatchedTotal, unmatched.length),
    },
    stubs: merged,
    unused_stubs: unused,
    unmatched_requests: unmatched,
  };
  const scenarios = mergeScenarios(reports);
  if (scenarios.length) result.scenarios = scenarios;
  if (reports.some((r) => r.violations !== undefined)) {
    const byKey = new Map<string, ReportViolation>();
    for (const v of reports.flatMap((r) => r.violations ?? [])) {
      const key = JSON.stringify([v.operation, v.location, v.message]);
      const same = byKey.get(key);
      if (same) same.count += v.count;
      else byKey.set(key, { operation: v.operation, location: v.location, message: v.message, count: v.count });
    }
    result.violations = [...byKey.values()];
  }
  return result;
}

/**
 * The scenarios of several reports as one list: scenarios and transitions in first-seen
 * order, `taken` added per scenario + from + to + stub (a transition one shard lacks counts
 * as not taken there).
 */
function mergeScenarios(reports: readonly Report[]): ReportScenario[] {
  const merged = new Map<string, { scenario: ReportScenario; byKey: Map<string, ReportTransition> }>();
  for (const report of reports) {
    for (const scenario of report.scenarios ?? []) {
      let entry = merged.get(scenario.name);
      if (!entry) {
        merged.set(scenario.name, entry = { scenario: { name: scenario.name, transitions: [] }, byKey: new Map() });
      }
      for (const t of scenario.transitions) {
        const key = JSON.stringify([t.from, t.to, t.stub]);
        const same = entry.byKey.get(key);
        if (same) same.taken += t.taken;
        else {
          const copy = { from: t.from, to: t.to, stub: t.stub, taken: t.taken };
          entry.byKey.set(key, copy);
          entry.scenario.transitions.push(copy);
        }
      }
    }
  }
  return [...merged.values()].map((e) => e.scenario);
}

/**
 * Checks that a parsed value has the shape of a report (a file written by
 * `serve --report-file`). Returns what is wrong, or undefined.
 *
 * @example
 * ```ts
 * import { checkReport } from "./report.ts";
 * console.log(checkReport({ routes: [] })); // "not a stubtool report: summary is missing"
 * ```
 */
export function checkReport(value: unknown): string | undefined {
  if (!isObject(value)) return "not a stubtool report: expected a JSON object";
  const summary = value.summary;
  if (!isObject(summary)) return "not a stubtool report: summary is missing";
  for (const key of ["total_stubs", "matched_stubs", "unmatched_requests"]) {
    if (!Number.isInteger(summary[key])) return `not a stubtool report: summary.${key} must be a whole number`;
  }
  for (const key of ["stubs", "unused_stubs", "unmatched_requests"]) {
    if (!Array.isArray(value[key])) return `not a stubtool report: ${key} must be a list`;
  }
  const stubs = value.stubs as unknown[];
  for (const [i, stub] of stubs.entries()) {
    if (
      !isObject(stub) || typeof stub.method !== "string" || typeof stub.path !== "string" ||
      !Number.isInteger(stub.hit_count) || (stub.query_params !== undefined && !isObject(stub.query_params))
    ) return `not a stubtool report: stubs[${i}] needs method, path and hit_count`;
    const rules = (stub as Record<string, unknown>).websocket_rules;
    if (
      rules !== undefined &&
      (!Array.isArray(rules) ||
        !rules.every((rule) => isObject(rule) && typeof rule.match === "string" && Number.isInteger(rule.matches)))
    ) return `not a stubtool report: stubs[${i}].websocket_rules must be a list of {match, matches}`;
  }
  for (const [i, request] of (value.unmatched_requests as unknown[]).entries()) {
    if (
      !isObject(request) || typeof request.method !== "string" || typeof request.path !== "string" ||
      typeof request.timestamp !== "string" || (request.query !== undefined && typeof request.query !== "string")
    ) return `not a stubtool report: unmatched_requests[${i}] needs method, path and timestamp`;
  }
  for (const [i, stub] of (value.unused_stubs as unknown[]).entries()) {
    if (!isObject(stub) || typeof stub.method !== "string" || typeof stub.path !== "string") {
      return `not a stubtool report: unused_stubs[${i}] needs method and path`;
    }
  }
  if (value.violations !== undefined) {
    if (!Array.isArray(value.violations)) return "not a stubtool report: violations must be a list";
    for (const [i, v] of value.violations.entries()) {
      if (
        !isObject(v) || typeof v.operation !== "string" || typeof v.location !== "string" ||
        typeof v.message !== "string" || !Number.isInteger(v.count) || (v.count as number) < 0
      ) return `not a stubtool report: violations[${i}] needs operation, location, message and count`;
    }
  }
  if (value.scenarios === undefined) return undefined;
  if (!Array.isArray(value.scenarios)) return "not a stubtool report: scenarios must be a list";
  for (const [i, scenario] of value.scenarios.entries()) {
    if (!isObject(scenario) || typeof scenario.name !== "string" || !Array.isArray(scenario.transitions)) {
      return `not a stubtool report: scenarios[${i}] needs name and a list of transitions`;
    }
    for (const [j, t] of scenario.transitions.entries()) {
      if (
        !isObject(t) || typeof t.from !== "string" || typeof t.to !== "string" || typeof t.stub !== "string" ||
        !Number.isInteger(t.taken)
      ) return `not a stubtool report: scenarios[${i}].transitions[${j}] needs from, to, stub and taken`;
    }
  }
  return undefined;
}
