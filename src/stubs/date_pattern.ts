/**
 * The `{date: {before | after | equals: DATE, …}}` value pattern: a value read as a date-time
 * and compared with a fixed one or with `now` (± an offset), as WireMock's `before`, `after`
 * and `equalToDateTime` matchers do — the same reading of dates (ISO 8601, RFC 1123, RFC 1036,
 * asctime, or a Java `DateTimeFormatter` pattern, `epoch`, `unix`), the same truncations, and
 * the same rules for values with and without an offset.
 * @module
 */

import type { ValuePattern } from "./patterns.ts";
import { quoteValue } from "./quote.ts";
import {
  civilFromDays,
  compileDateReader,
  daysFromCivil,
  monthLength,
  type ReadDate,
  type ReadDateTime,
} from "../templating/date_format.ts";

/** How a date pattern compares the value with the date it names. */
export const DATE_COMPARISONS = ["before", "after", "equals"] as const;

/** WireMock's truncations (`DateTimeTruncation`), as written in a mapping. */
export const TRUNCATIONS = [
  "first second of minute",
  "first minute of hour",
  "first hour of day",
  "first day of month",
  "first day of next month",
  "last day of month",
  "first day of year",
  "first day of next year",
  "last day of year",
] as const;

/** WireMock's offset units (`DateTimeUnit`). */
export const DATE_UNITS = ["seconds", "minutes", "hours", "days", "months", "years"] as const;

const OPTIONS = ["format", "truncate_expected", "truncate_actual", "truncate_after_offset"];

/** `now`, `now +3 days`, `now -1 years`, `5 days` (WireMock's grammar: `now` optional, plural units, any case). */
export function readNowOffset(spec: string): { amount: number; unit: typeof DATE_UNITS[number] } | undefined | "bad" {
  if (/^now$/i.test(spec)) return { amount: 0, unit: "seconds" };
  if (!/^[-+]?[0-9]+ [a-zA-Z]+$/.test(spec.replace(/now /gi, ""))) return undefined;
  const parts = spec.split(" ");
  if (parts.length < 2 || parts.length > 3) return "bad";
  const [amountText, unitText] = parts.length === 2 ? parts : parts.slice(1);
  const amount = /^[-+]?\d{1,10}$/.test(amountText) ? Number(amountText) : NaN;
  const unit = DATE_UNITS.find((u) => u === unitText.toLowerCase() && unitText.toUpperCase() === u.toUpperCase());
  if (!Number.isSafeInteger(amount) || Math.abs(amount) > 2 ** 31 - 1 || unit === undefined) return "bad";
  return { amount, unit };
}

/** A zoned value's instant, or a local value's wall clock: seconds and nanoseconds, for comparing. */
type Point = [seconds: number, nanos: number];

function instant(d: ReadDateTime): Point {
  return [d.local - (d.offset ?? 0), d.nanos];
}

function compare(a: Point, b: Point): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}

/** The seconds since 1970 of a wall-clock time in the server's time zone (Java's `ZoneId.systemDefault()`). */
function systemEpoch(local: number): number {
  const days = Math.floor(local / 86400);
  const { year, month, day } = civilFromDays(days);
  const rest = local - days * 86400;
  const d = new Date(2000, 0, 1);
  d.setFullYear(year, month - 1, day);
  d.setHours(Math.floor(rest / 3600), Math.floor(rest / 60) % 60, rest % 60, 0);
  return d.getTime() / 1000;
}

/** The same value at another wall-clock time: its offset kept (a fixed offset) or the server zone's. */
function moved(d: ReadDateTime, local: number, system: boolean): ReadDateTime {
  if (d.offset === undefined) return { local, nanos: d.nanos };
  return { local, nanos: d.nanos, offset: system ? local - systemEpoch(local) : d.offset };
}

/** Java's `DateTimeTruncation` on a value, in its own zone. */
function truncate(d: ReadDateTime, how: typeof TRUNCATIONS[number], system: boolean): ReadDateTime {
  const days = Math.floor(d.local / 86400);
  const { year, month } = civilFromDays(days);
  const atDay = (y: number, m: number, day: number) => daysFromCivil(y, m, day) * 86400;
  let local: number;
  switch (how) {
    case "first second of minute":
      local = d.local - (((d.local % 60) + 60) % 60);
      break;
    case "first minute of hour":
      local = d.local - (((d.local % 3600) + 3600) % 3600);
      break;
    case "first hour of day":
      local = days * 86400;
      break;
    case "first day of month":
      local = atDay(year, month, 1);
      break;
    case "first day of next month":
      local = month === 12 ? atDay(year + 1, 1, 1) : atDay(year, month + 1, 1);
      break;
    case "last day of month":
      local = atDay(year, month, monthLength(year, month));
      break;
    case "first day of year":
      local = atDay(year, 1, 1);
      break;
    case "first day of next year":
      local = atDay(year + 1, 1, 1);
      break;
    case "last day of year":
      local = atDay(year, 12, 31);
      break;
  }
  return { ...moved(d, local, system), nanos: 0 };
}

/** `ZonedDateTime.plus(amount, unit)` in the server's zone: time units on the instant, date units on the calendar. */
function shift(d: ReadDateTime, amount: number, unit: typeof DATE_UNITS[number]): ReadDateTime {
  if (amount === 0) return d;
  if (unit === "seconds" || unit === "minutes" || unit === "hours") {
    const epoch = instant(d)[0] + amount * { seconds: 1, minutes: 60, hours: 3600 }[unit];
    const offset = -new Date(epoch * 1000).getTimezoneOffset() * 60;
    return { local: epoch + offset, nanos: d.nanos, offset };
  }
  const days = Math.floor(d.local / 86400);
  const time = d.local - days * 86400;
  let local: number;
  if (unit === "days") local = (days + amount) * 86400 + time;
  else {
    const { year, month, day } = civilFromDays(days);
    const months = year * 12 + (month - 1) + (unit === "years" ? amount * 12 : amount);
    const y = Math.floor(months / 12), m = months - y * 12 + 1;
    local = daysFromCivil(y, m, Math.min(day, monthLength(y, m))) * 86400 + time;
  }
  return moved(d, local, true);
}

/** The server's `now` as a zoned value. */
function now(): ReadDateTime {
  const ms = Date.now();
  const offset = -new Date(ms).getTimezoneOffset() * 60;
  const seconds = Math.floor(ms / 1000);
  return { local: seconds + offset, nanos: (ms - seconds * 1000) * 1_000_000, offset };
}

function isTruncation(value: unknown): value is typeof TRUNCATIONS[number] {
  return typeof value === "string" && (TRUNCATIONS as readonly string[]).includes(value);
}

type Truncation = typeof TRUNCATIONS[number];

/** A `date` mapping whose keys and field types are right, with its one comparison and the text it compares with. */
interface DateFields {
  fields: Record<string, unknown>;
  comparison: typeof DATE_COMPARISONS[number];
  expectedText: string;
}

/** The problem with a `date` mapping's keys or field types, or the mapping read as {@link DateFields}. */
function checkDateFields(spec: unknown): DateFields | { problem: string } {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    return {
      problem: `date must be a mapping {before | after | equals: DATE, format?, truncate_expected?, truncate_actual?}`,
    };
  }
  const fields = spec as Record<string, unknown>;
  const comparisons = DATE_COMPARISONS.filter((k) => Object.hasOwn(fields, k));
  const unknown = Object.keys(fields).filter((k) =>
    !(DATE_COMPARISONS as readonly string[]).includes(k) && !OPTIONS.includes(k)
  );
  if (unknown.length) {
    return {
      problem: `date has ${unknown.map((k) => `'${k}'`).join(", ")}: it takes before, after or equals, and ${
        OPTIONS.join(", ")
      }`,
    };
  }
  if (comparisons.length !== 1) return { problem: "date needs exactly one of before, after, equals" };
  const comparison = comparisons[0];
  const expectedText = fields[comparison];
  if (typeof expectedText !== "string") {
    return { problem: `date.${comparison} must be a date-time or now (± an offset) as text` };
  }
  const problem = optionProblem(fields);
  return problem === undefined ? { fields, comparison, expectedText } : { problem };
}

/** The problem with a `date` mapping's truncations or format, if any. */
function optionProblem(fields: Record<string, unknown>): string | undefined {
  for (const key of ["truncate_expected", "truncate_actual"]) {
    if (fields[key] !== undefined && !isTruncation(fields[key])) {
      return `date.${key} must be one of ${TRUNCATIONS.map((t) => `'${t}'`).join(", ")}`;
    }
  }
  if (fields.truncate_after_offset !== undefined && typeof fields.truncate_after_offset !== "boolean") {
    return "date.truncate_after_offset must be true or false";
  }
  if (fields.format !== undefined && typeof fields.format !== "string") {
    return "date.format must be a Java date-time pattern (dd/MM/yyyy), epoch or unix";
  }
  return undefined;
}

/** The date a value is compared with, as each match sees it: fixed at load time, or `now` ± an offset. */
type Expected = () => ReadDate;

/** The expected date of a checked `date` mapping (truncated as `truncate_expected` says), or the problem with it. */
function compileExpected({ fields, comparison, expectedText }: DateFields): Expected | { problem: string } {
  const truncation = fields.truncate_expected as Truncation | undefined;
  const offset = readNowOffset(expectedText);
  if (offset === "bad") {
    return {
      problem: `date.${comparison} ${
        JSON.stringify(expectedText)
      }: write now, now +N UNIT or now -N UNIT, UNIT one of ${DATE_UNITS.join(", ")}`,
    };
  }
  if (offset !== undefined) {
    return () => ({ zoned: expectedNow(offset, truncation, fields.truncate_after_offset === true) });
  }
  const found = compileDateReader()(expectedText);
  if (!found.zoned && !found.local) {
    return {
      problem: `date.${comparison} ${
        JSON.stringify(expectedText)
      } is not a date stubtool reads (2026-05-01T10:00:00Z, 2026-05-01, now +3 days)`,
    };
  }
  const fixed: ReadDate = {
    zoned: found.zoned && truncation ? truncate(found.zoned, truncation, false) : found.zoned,
    local: found.local && truncation ? truncate(found.local, truncation, false) : found.local,
  };
  return () => fixed;
}

/** `now` shifted by the offset and truncated: before the shift, or after it with `truncate_after_offset`. */
function expectedNow(
  offset: { amount: number; unit: typeof DATE_UNITS[number] },
  truncation: Truncation | undefined,
  truncateAfterOffset: boolean,
): ReadDateTime {
  const start = now();
  if (truncateAfterOffset) {
    const shifted = shift(start, offset.amount, offset.unit);
    return truncation ? truncate(shifted, truncation, true) : shifted;
  }
  return shift(truncation ? truncate(start, truncation, true) : start, offset.amount, offset.unit);
}

/** A value's wall clock, for comparing without offsets. */
function wallClock(d: ReadDateTime): Point {
  return [d.local, d.nanos];
}

/**
 * The sign of actual − expected in WireMock's order (`AbstractDateTimeMatchResult`): zoned with
 * zoned, local with local, then across; undefined when the two cannot be compared.
 */
function compareDates(actual: ReadDate, expected: ReadDate): number | undefined {
  const { zoned: zonedActual, local: localActual } = actual;
  const { zoned: zonedExpected, local: localExpected } = expected;
  if (zonedExpected && zonedActual) return compare(instant(zonedActual), instant(zonedExpected));
  if (localExpected && localActual) return compare(wallClock(localActual), wallClock(localExpected));
  if (localExpected && zonedActual) return compare(wallClock(zonedActual), wallClock(localExpected));
  if (zonedExpected && localActual) {
    const epoch = systemEpoch(localActual.local);
    if (Number.isFinite(epoch)) return compare([epoch, localActual.nanos], instant(zonedExpected));
  }
  return undefined;
}

/** The value pattern of a checked `date` mapping, reading values with `read`. */
function datePattern(d: DateFields, read: (text: string) => ReadDate, expected: Expected): ValuePattern {
  const { fields, comparison, expectedText } = d;
  const truncation = fields.truncate_actual as Truncation | undefined;
  const holds = (sign: number) => comparison === "before" ? sign < 0 : comparison === "after" ? sign > 0 : sign === 0;
  const extras = OPTIONS.filter((k) => fields[k] !== undefined).map((k) => `, ${k}: ${fields[k]}`).join("");
  const word = comparison === "equals" ? "equal to" : comparison;
  return {
    display: `{date: {${comparison}: ${expectedText}${extras}}}`,
    wanted: `a date ${word} ${quoteValue(expectedText)}${
      fields.format !== undefined ? ` (read as ${fields.format})` : ""
    }`,
    names: [],
    absent: false,
    literal: undefined,
    anyValue: false,
    match(value) {
      const actual = read(value);
      const zoned = actual.zoned && truncation ? truncate(actual.zoned, truncation, false) : actual.zoned;
      const sign = compareDates({ zoned, local: actual.local }, expected());
      return sign !== undefined && holds(sign) ? [] : undefined;
    },
  };
}

/**
 * Compiles `{date: {before | after | equals: DATE, format?, truncate_expected?, truncate_actual?,
 * truncate_after_offset?}}` (the mapping under `date`). DATE is a date-time (ISO 8601 with or
 * without an offset, a date, `2026-05`, `2026`, RFC 1123) or `now` with an optional offset
 * (`now +3 days`, units seconds to years). Problems follow the field's place (`date.format …`).
 */
export function compileDatePattern(spec: unknown): { pattern?: ValuePattern; problem?: string } {
  const checked = checkDateFields(spec);
  if ("problem" in checked) return { problem: checked.problem };
  let read: ReturnType<typeof compileDateReader>;
  try {
    read = compileDateReader(checked.fields.format as string | undefined);
  } catch (e) {
    return { problem: `date.format: ${(e as Error).message}` };
  }
  const expected = compileExpected(checked);
  if (typeof expected !== "function") return { problem: expected.problem };
  return { pattern: datePattern(checked, read, expected) };
}
