/**
 * Dates written the way WireMock's `now` helper writes them: Java `SimpleDateFormat`-style
 * patterns (`yyyy-MM-dd'T'HH:mm:ss.SSSXXX`), `epoch` (milliseconds), `unix` (seconds), an
 * IANA time zone, and offsets such as `3 days` or `-90 minutes`.
 * @module
 */

/** The calendar fields of one instant in one time zone. */
interface Fields {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number; // 0-23
  minute: number;
  second: number;
  millis: number;
  weekday: number; // 0 = Sunday
  offsetMinutes: number;
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const WEEKDAY_INDEX: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** Throws a `RangeError` naming the zone when `zone` is not an IANA time zone. */
export function checkTimeZone(zone: string): void {
  zoneFormat(zone);
}

function zoneFormat(zone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(zone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
        weekday: "short",
      });
    } catch {
      throw new RangeError(`unknown time zone ${JSON.stringify(zone)} (use an IANA name such as "Europe/Paris")`);
    }
    if (zoneFormats.size < 64) zoneFormats.set(zone, format);
  }
  return format;
}

function fieldsOf(date: Date, zone: string | undefined): Fields {
  if (zone === undefined || zone === "UTC" || zone === "Z") {
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
      millis: date.getUTCMilliseconds(),
      weekday: date.getUTCDay(),
      offsetMinutes: 0,
    };
  }
  const parts: Record<string, string> = {};
  for (const part of zoneFormat(zone).formatToParts(date)) parts[part.type] = part.value;
  const f = {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    millis: date.getUTCMilliseconds(),
    weekday: WEEKDAY_INDEX[parts.weekday] ?? 0,
    offsetMinutes: 0,
  };
  const local = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second, f.millis);
  f.offsetMinutes = Math.round((local - date.getTime()) / 60000);
  return f;
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

function offsetText(minutes: number, style: "Z" | "X" | "XX" | "XXX"): string {
  if (minutes === 0 && style !== "Z") return "Z";
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const h = pad(Math.floor(abs / 60), 2), m = pad(abs % 60, 2);
  if (style === "X") return sign + h + (m === "00" ? "" : m);
  return sign + h + (style === "XXX" ? ":" : "") + m;
}

function dayOfYear(f: Fields): number {
  return Math.round((Date.UTC(f.year, f.month - 1, f.day) - Date.UTC(f.year, 0, 1)) / 86400000) + 1;
}

type Token = string | { letter: string; count: number };
const compiledPatterns = new Map<string, Token[]>();

/** Splits a SimpleDateFormat pattern into literal text and letter runs; throws for an unknown letter. */
function compilePattern(pattern: string): Token[] {
  const cached = compiledPatterns.get(pattern);
  if (cached) return cached;
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i];
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === i + 1) {
        tokens.push("'");
        i += 2;
        continue;
      }
      if (end === -1) throw new SyntaxError(`unterminated quote in date format ${JSON.stringify(pattern)}`);
      tokens.push(pattern.slice(i + 1, end));
      i = end + 1;
    } else if (/[A-Za-z]/.test(c)) {
      if (!"yMdHhmsSEaDZXkKu".includes(c)) {
        throw new SyntaxError(`date format ${JSON.stringify(pattern)}: letter '${c}' is not supported`);
      }
      let count = 1;
      while (pattern[i + count] === c) count++;
      tokens.push({ letter: c, count });
      i += count;
    } else {
      tokens.push(c);
      i++;
    }
  }
  if (compiledPatterns.size < 256) compiledPatterns.set(pattern, tokens);
  return tokens;
}

/** Throws a `SyntaxError` when `format` is not a pattern {@link formatDate} can write. */
export function checkDateFormat(format: string): void {
  if (format !== "epoch" && format !== "unix") compilePattern(format);
}

/**
 * Writes `date` with a SimpleDateFormat-style `format` (`epoch`, `unix`, or letters
 * `y M d H h k K m s S E a D u Z X`) in `zone` (UTC when absent). Without a format, the
 * ISO-8601 form WireMock prints: `2026-11-25T13:12:07Z`, or `…+11:00` in another zone.
 */
export function formatDate(date: Date, format?: string, zone?: string): string {
  if (format === "epoch") return String(date.getTime());
  if (format === "unix") return String(Math.floor(date.getTime() / 1000));
  const tokens = compilePattern(format ?? "yyyy-MM-dd'T'HH:mm:ssXXX");
  const f = fieldsOf(date, zone);
  let out = "";
  for (const token of tokens) {
    if (typeof token === "string") {
      out += token;
      continue;
    }
    out += field(token.letter, token.count, f);
  }
  return out;
}

/** One pattern letter, repeated `count` times, written from the date's fields. */
function field(letter: string, count: number, f: Fields): string {
  switch (letter) {
    case "y":
      return count === 2 ? pad(f.year % 100, 2) : pad(f.year, count);
    case "M":
      return count >= 4 ? MONTHS[f.month - 1] : count === 3 ? MONTHS[f.month - 1].slice(0, 3) : pad(f.month, count);
    case "d":
      return pad(f.day, count);
    case "H":
      return pad(f.hour, count);
    case "k":
      return pad(f.hour === 0 ? 24 : f.hour, count);
    case "h":
      return pad(f.hour % 12 === 0 ? 12 : f.hour % 12, count);
    case "K":
      return pad(f.hour % 12, count);
    case "m":
      return pad(f.minute, count);
    case "s":
      return pad(f.second, count);
    case "S":
      return pad(f.millis, count);
    case "E":
      return count >= 4 ? DAYS[f.weekday] : DAYS[f.weekday].slice(0, 3);
    case "u":
      return pad(f.weekday === 0 ? 7 : f.weekday, count);
    case "a":
      return f.hour < 12 ? "AM" : "PM";
    case "D":
      return pad(dayOfYear(f), count);
    case "Z":
      return offsetText(f.offsetMinutes, "Z");
    case "X":
      return offsetText(f.offsetMinutes, count === 1 ? "X" : count === 2 ? "XX" : "XXX");
  }
  return "";
}

const UNIT_MS: Record<string, number> = {
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};

/**
 * Moves `date` by an offset such as `3 days`, `-90 minutes` or `1 years` (units: seconds,
 * minutes, hours, days, weeks, months, years, singular or plural). Throws a `SyntaxError` for
 * anything else.
 */
export function offsetDate(date: Date, offset: string): Date {
  const m = /^\s*([-+]?\d+)\s+([a-z]+?)s?\s*$/i.exec(offset);
  const unit = m?.[2].toLowerCase();
  if (!m || !unit || !(unit in UNIT_MS || unit === "month" || unit === "year")) {
    throw new SyntaxError(
      `offset ${JSON.stringify(offset)}: write a number and a unit, e.g. '3 days' or '-90 minutes'`,
    );
  }
  const amount = Number(m[1]);
  if (unit === "month" || unit === "year") {
    const moved = new Date(date.getTime());
    moved.setUTCMonth(moved.getUTCMonth() + (unit === "year" ? amount * 12 : amount));
    return moved;
  }
  return new Date(date.getTime() + amount * UNIT_MS[unit]);
}
