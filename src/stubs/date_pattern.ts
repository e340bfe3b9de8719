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

/**
 * Compiles `{date: {before | after | equals: DATE, format?, truncate_expected?, truncate_actual?,
 * truncate_after_offset?}}` (the mapping under `date`). DATE is a date-time (ISO 8601 with or
 * without an offset, a date, `2026-05`, `2026`, RFC 1123) or `now` with an optional offset
 * (`now +3 days`, units seconds to years). Problems follow the field's place (`date.format …`).
 */
export function compileDatePattern(spec: unknown): { pattern?: ValuePattern; problem?: string } {
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
  for (const key of ["truncate_expected", "truncate_actual"]) {
    if (fields[key] !== undefined && !isTruncation(fields[key])) {
      return { problem: `date.${key} must be one of ${TRUNCATIONS.map((t) => `'${t}'`).join(", ")}` };
    }
  }
  if (fields.truncate_after_offset !== undefined && typeof fields.truncate_after_offset !== "boolean") {
    return { problem: "date.truncate_after_offset must be true or false" };
  }
  if (fields.format !== undefined && typeof fields.format !== "string") {
    return { problem: "date.format must be a Java date-time pattern (dd/MM/yyyy), epoch or unix" };
  }
  let read: ReturnType<typeof compileDateReader>;
  try {
    read = compileDateReader(fields.format as string | undefined);
  } catch (e) {
    return { problem: `date.format: ${(e as Error).message}` };
  }
  const truncateExpected = fields.truncate_expected as typeof TRUNCATIONS[number] | undefined;
  const truncateActual = fields.truncate_actual as typeof TRUNCATIONS[number] | undefined;
  const offset = readNowOffset(expectedText);
  if (offset === "bad") {
    return {
      problem: `date.${comparison} ${
        JSON.stringify(expectedText)
      }: write now, now +N UNIT or now -N UNIT, UNIT one of ${DATE_UNITS.join(", ")}`,
    };
  }
  let fixed: { zoned?: ReadDateTime; local?: ReadDateTime } | undefined;
  if (offset === undefined) {
    const found = compileDateReader()(expectedText);
    if (!found.zoned && !found.local) {
      return {
        problem: `date.${comparison} ${
          JSON.stringify(expectedText)
        } is not a date stubtool reads (2026-05-01T10:00:00Z, 2026-05-01, now +3 days)`,
      };
    }
    fixed = {
      zoned: found.zoned && truncateExpected ? truncate(found.zoned, truncateExpected, false) : found.zoned,
      local: found.local && truncateExpected ? truncate(found.local, truncateExpected, false) : found.local,
    };
  }
  const expectedNow = (): ReadDateTime => {
    const start = now();
    if (fields.truncate_after_offset === true) {
      const shifted = shift(start, offset!.amount, offset!.unit);
      return truncateExpected ? truncate(shifted, truncateExpected, true) : shifted;
    }
    return shift(truncateExpected ? truncate(start, truncateExpected, true) : start, offset!.amount, offset!.unit);
  };
  const holds = (sign: number) => comparison === "before" ? sign < 0 : comparison === "after" ? sign > 0 : sign === 0;
  const extras = OPTIONS.filter((k) => fields[k] !== undefined).map((k) => `, ${k}: ${fields[k]}`).join("");
  const word = comparison === "equals" ? "equal to" : comparison;
  return {
    pattern: {
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
        const zonedActual = actual.zoned && truncateActual
          ? truncate(actual.zoned, truncateActual, false)
          : actual.zoned;
        const localActual = actual.local;
        const zonedExpected = fixed ? fixed.zoned : expectedNow();
        const localExpected = fixed?.local;
        // WireMock's order (AbstractDateTimeMatchResult): zoned with zoned, local with local, then across.
        let sign: number | undefined;
        if (zonedExpected && zonedActual) sign = compare(instant(zonedActual), instant(zonedExpected));
        else if (localExpected && localActual) {
          sign = compare([localActual.local, localActual.nanos], [localExpected.local, localExpected.nanos]);
        } else if (localExpected && zonedActual) {
          sign = compare([zonedActual.local, zonedActual.nanos], [localExpected.local, localExpected.nanos]);
        } else if (zonedExpected && localActual) {
          const epoch = systemEpoch(localActual.local);
          if (Number.isFinite(epoch)) sign = compare([epoch, localActual.nanos], instant(zonedExpected));
        }
        return sign !== undefined && holds(sign) ? [] : undefined;
      },
    },
  };
}
