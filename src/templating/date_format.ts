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

// ---------------------------------------------------------------- reading dates (WireMock's date matchers)

/**
 * A date-time read from text, exact to the nanosecond: `local` is the wall-clock time counted
 * in seconds as if it were UTC; `offset` (seconds east of UTC) is there when the text gave
 * one, and the instant is then `local - offset`.
 */
export interface ReadDateTime {
  local: number;
  nanos: number;
  offset?: number;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (any year). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The date of a day count from 1970-01-01. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** How many days a month has. */
export function monthLength(year: number, month: number): number {
  return daysFromCivil(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - daysFromCivil(year, month, 1);
}

/** The fields one parse found, before they are resolved into a date-time. */
interface Parsed {
  year?: number;
  month?: number;
  day?: number;
  hour?: number;
  hour12?: number;
  pm?: boolean;
  minute?: number;
  second?: number;
  nanos?: number;
  offset?: number;
  weekday?: number;
}

/** What text read as a date-time gives: each form Java would find in it (zoned, then local), or neither. */
export interface ReadDate {
  /** With an offset (Java's `ZonedDateTime`). */
  zoned?: ReadDateTime;
  /** Without one (`LocalDateTime`, or a `LocalDate` / `YearMonth` / `Year` at the start of its first day). */
  local?: ReadDateTime;
}

function resolve(p: Parsed, strictDay: boolean): { date?: ReadDateTime; time: boolean; zoned: boolean } | undefined {
  if (p.year === undefined) return undefined;
  const month = p.month ?? 1;
  if (month < 1 || month > 12) return undefined;
  let day = p.day ?? 1;
  if (day < 1 || day > 31) return undefined;
  const length = monthLength(p.year, month);
  if (day > length) {
    // Java's SMART resolver moves 29–31 to the month's last day; STRICT (ISO formats) refuses.
    if (strictDay) return undefined;
    day = length;
  }
  const days = daysFromCivil(p.year, month, day);
  if (p.weekday !== undefined && ((days % 7 + 11) % 7) !== p.weekday) return undefined;
  let hour = p.hour;
  if (hour === undefined && p.hour12 !== undefined && p.pm !== undefined) {
    if (p.hour12 < 1 || p.hour12 > 12) return undefined;
    hour = (p.hour12 % 12) + (p.pm ? 12 : 0);
  }
  const time = hour !== undefined;
  if (time && (hour! > 23 || (p.minute ?? 0) > 59 || (p.second ?? 0) > 59)) return undefined;
  const local = days * 86400 + (hour ?? 0) * 3600 + (p.minute ?? 0) * 60 + (p.second ?? 0);
  return {
    date: { local, nanos: p.nanos ?? 0, ...(p.offset !== undefined ? { offset: p.offset } : {}) },
    time,
    zoned: time && p.offset !== undefined,
  };
}

const MONTH_INDEX = (name: string): number | undefined => {
  const i = MONTHS.findIndex((m) =>
    m.toLowerCase() === name.toLowerCase() || m.slice(0, 3).toLowerCase() === name.toLowerCase()
  );
  return i === -1 ? undefined : i + 1;
};
const DAY_INDEX = (name: string): number | undefined => {
  const i = DAYS.findIndex((d) =>
    d.toLowerCase() === name.toLowerCase() || d.slice(0, 3).toLowerCase() === name.toLowerCase()
  );
  return i === -1 ? undefined : i;
};

function offsetOf(sign: string, h: string, m = "0", s = "0"): number | undefined {
  const hours = Number(h), minutes = Number(m), seconds = Number(s);
  if (hours > 18 || minutes > 59 || seconds > 59) return undefined;
  return (sign === "-" ? -1 : 1) * (hours * 3600 + minutes * 60 + seconds);
}

const ISO_DATE = "([+-]\\d{4,9}|\\d{4})-(\\d{2})-(\\d{2})";
const ISO_TIME = "(\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?";
const ISO_ZONED = new RegExp(
  `^${ISO_DATE}T${ISO_TIME}(?:(Z)|([+-])(\\d{2}):(\\d{2})(?::(\\d{2}))?)(?:\\[[^\\]]+\\])?$`,
);
const ISO_LOCAL = new RegExp(`^${ISO_DATE}(?:T${ISO_TIME})?$`);
const RFC_1123 =
  /^(?:([A-Za-z]{3}), )?(\d{1,2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2})(?::(\d{2}))? (?:(GMT)|([+-])(\d{2})(\d{2}))$/;
const ASCTIME = /^([A-Za-z]{3}) ([A-Za-z]{3}) (?:(\d{2})| (\d)) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;
const RFC_1036 = /^([A-Za-z]+), (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) (GMT|UTC)$/;

function isoYear(text: string): number | undefined {
  // Java's ISO year: four digits, or a sign and more (a '+' is required past 9999).
  if (/^\d{5,}$/.test(text)) return undefined;
  return Number(text);
}

function fraction(digits: string | undefined): number {
  return digits === undefined ? 0 : Number(digits.padEnd(9, "0"));
}

/** An ISO 8601 date-time with an offset (`2026-05-01T10:00:00+02:00`, `…Z`, `…[Europe/Paris]`). */
function readIsoZoned(m: RegExpExecArray): ReadDateTime | undefined {
  const offset = m[8] ? 0 : offsetOf(m[9], m[10], m[11], m[12]);
  const year = isoYear(m[1]);
  if (offset === undefined || year === undefined) return undefined;
  return resolve({
    year,
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: Number(m[6] ?? 0),
    nanos: fraction(m[7]),
    offset,
  }, true)?.date;
}

/** RFC 1123 (`Fri, 01 May 2026 10:00:00 GMT`, the weekday optional, or a `+0200` offset). */
function readRfc1123(m: RegExpExecArray): ReadDateTime | undefined {
  const offset = m[8] ? 0 : offsetOf(m[9], m[10], m[11]);
  const month = MONTH_INDEX(m[3]);
  const weekday = m[1] === undefined ? undefined : DAY_INDEX(m[1]);
  if (offset === undefined || month === undefined || (m[1] !== undefined && weekday === undefined)) return undefined;
  return resolve({
    year: Number(m[4]),
    month,
    day: Number(m[2]),
    hour: Number(m[5]),
    minute: Number(m[6]),
    second: Number(m[7] ?? 0),
    offset,
    weekday,
  }, false)?.date;
}

/** RFC 1036 (`Friday, 01-May-26 10:00:00 GMT`): the full weekday name, a two-digit year in 2000–2099. */
function readRfc1036(m: RegExpExecArray): ReadDateTime | undefined {
  const month = MONTH_INDEX(m[3]);
  const weekday = DAYS.findIndex((d) => d.toLowerCase() === m[1].toLowerCase());
  if (month === undefined || weekday === -1) return undefined;
  return resolve({
    year: 2000 + Number(m[4]),
    month,
    day: Number(m[2]),
    hour: Number(m[5]),
    minute: Number(m[6]),
    second: Number(m[7]),
    offset: 0,
    weekday,
  }, false)?.date;
}

/** C's asctime (`Fri May  1 10:00:00 2026`), read as UTC. */
function readAsctime(m: RegExpExecArray): ReadDateTime | undefined {
  const month = MONTH_INDEX(m[2]);
  const weekday = DAY_INDEX(m[1]);
  if (month === undefined || weekday === undefined) return undefined;
  return resolve({
    year: Number(m[8]),
    month,
    day: Number(m[3] ?? m[4]),
    hour: Number(m[5]),
    minute: Number(m[6]),
    second: Number(m[7]),
    offset: 0,
    weekday,
  }, false)?.date;
}

/** An ISO 8601 local date-time or date (`2026-05-01T10:00:00`, `2026-05-01`). */
function readIsoLocal(m: RegExpExecArray): ReadDateTime | undefined {
  const year = isoYear(m[1]);
  if (year === undefined) return undefined;
  return resolve({
    year,
    month: Number(m[2]),
    day: Number(m[3]),
    ...(m[4] !== undefined
      ? { hour: Number(m[4]), minute: Number(m[5]), second: Number(m[6] ?? 0), nanos: fraction(m[7]) }
      : {}),
  }, true)?.date;
}

/** A year and month (`2026-05`, Java's `YearMonth`). */
function readIsoYearMonth(m: RegExpExecArray): ReadDateTime | undefined {
  const year = isoYear(m[1]);
  return year === undefined ? undefined : resolve({ year, month: Number(m[2]) }, true)?.date;
}

/** A year alone (`2026`, Java's `Year`). */
function readIsoYear(m: RegExpExecArray): ReadDateTime | undefined {
  const year = /^\d{5,}$/.test(m[1]) ? undefined : Number(m[1]);
  return year === undefined ? undefined : resolve({ year }, true)?.date;
}

/** One of WireMock's default forms: the regex that recognises it, and how its groups become a date-time. */
type DefaultForm = [RegExp, (m: RegExpExecArray) => ReadDateTime | undefined];

/** The zoned forms, in WireMock's order: the first whose shape matches decides. */
const ZONED_FORMS: DefaultForm[] = [
  [ISO_ZONED, readIsoZoned],
  [RFC_1123, readRfc1123],
  [RFC_1036, readRfc1036],
  [ASCTIME, readAsctime],
];

/** The local forms, in WireMock's order: the first whose shape matches decides. */
const LOCAL_FORMS: DefaultForm[] = [
  [ISO_LOCAL, readIsoLocal],
  [/^([+-]\d{4,9}|\d{4})-(\d{2})$/, readIsoYearMonth],
  [/^([+-]?\d{4,10})$/, readIsoYear],
];

/** The date-time the first form whose regex matches `text` reads (undefined when none matches or it is invalid). */
function readFirstForm(forms: DefaultForm[], text: string): ReadDateTime | undefined {
  for (const [regex, read] of forms) {
    const m = regex.exec(text);
    if (m) return read(m);
  }
  return undefined;
}

/** Java's `ZONED_PARSERS` of WireMock (ISO zoned, RFC 1123, RFC 1036, asctime), then its ISO local forms. */
function readDefault(text: string): ReadDate {
  const out: ReadDate = {};
  const zoned = readFirstForm(ZONED_FORMS, text);
  if (zoned !== undefined) out.zoned = zoned;
  const local = readFirstForm(LOCAL_FORMS, text);
  if (local !== undefined) out.local = local;
  return out;
}

/** The pattern letters {@link compileDateReader} reads, as Java's `DateTimeFormatter.ofPattern` means them. */
const READ_LETTERS = "yMdHhmsSEaXZ";

/** A zone offset letter's text (`Z`, `+02:00`, `+0200`, `+02`) as a field; undefined when it is out of range. */
function readOffsetField(text: string): Parsed | undefined {
  if (text.toUpperCase() === "Z") return { offset: 0 };
  const o = /^([+-])(\d{2}):?(\d{2})?$/.exec(text);
  const offset = o ? offsetOf(o[1], o[2], o[3]) : undefined;
  return offset === undefined ? undefined : { offset };
}

/** What the text one letter run matched sets, per letter of {@link READ_LETTERS}; undefined when it cannot be read. */
const LETTER_FIELDS: Record<string, (text: string, count: number) => Parsed | undefined> = {
  y: (v, count) => ({ year: count === 2 ? 2000 + Number(v) : Number(v) }),
  M: (v, count) => ({ month: count >= 3 ? MONTH_INDEX(v) : Number(v) }),
  d: (v) => ({ day: Number(v) }),
  H: (v) => ({ hour: Number(v) }),
  h: (v) => ({ hour12: Number(v) }),
  a: (v) => ({ pm: v.toUpperCase() === "PM" }),
  m: (v) => ({ minute: Number(v) }),
  s: (v) => ({ second: Number(v) }),
  S: (v) => ({ nanos: fraction(v) }),
  E: (v) => ({ weekday: DAY_INDEX(v) }),
  X: readOffsetField,
  Z: readOffsetField,
};

/** One letter run of a format, in the order its regex groups capture. */
type Step = { letter: string; count: number };

/** The regex that reads a Java pattern and its letter runs; throws a `SyntaxError` for what it cannot read. */
function compileFormat(format: string): { regex: RegExp; steps: Step[] } {
  let hasA = false, hasH = false;
  let source = "^";
  const steps: Step[] = [];
  for (const token of compilePattern(format)) {
    if (typeof token === "string") {
      source += token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      continue;
    }
    const { letter, count } = token;
    if (!READ_LETTERS.includes(letter)) {
      throw new SyntaxError(`date format ${JSON.stringify(format)}: letter '${letter}' is not one stubtool reads`);
    }
    if (letter === "a") hasA = true;
    if (letter === "h") hasH = true;
    steps.push(token);
    source += readPart(letter, count);
  }
  if (hasH && !hasA) {
    throw new SyntaxError(`date format ${JSON.stringify(format)}: 'h' needs 'a' (AM or PM) to give an hour`);
  }
  return { regex: new RegExp(source + "$", "i"), steps };
}

/** The fields a format's match gives, step by step (a later run of a letter wins); undefined when one is bad. */
function parsedFields(steps: Step[], m: RegExpExecArray): Parsed | undefined {
  const p: Parsed = {};
  for (const [i, { letter, count }] of steps.entries()) {
    const fields = LETTER_FIELDS[letter](m[i + 1], count);
    if (fields === undefined) return undefined;
    Object.assign(p, fields);
  }
  return p;
}

/** Parsed fields as Java reads them: a zoned value when they hold a time and an offset, and always a local one. */
function readParsed(p: Parsed): ReadDate {
  const resolved = resolve(p, false);
  if (!resolved) return {};
  const out: ReadDate = {};
  if (resolved.zoned) out.zoned = resolved.date;
  if (resolved.date) {
    const { offset: _, ...local } = resolved.date;
    out.local = local;
  }
  return out;
}

/** A reader for `epoch` (scale 1: milliseconds) or `unix` (scale 1000: seconds), zoned at UTC and local alike. */
function epochReader(scale: bigint): (text: string) => ReadDate {
  return (text) => {
    if (!/^[+-]?\d{1,19}$/.test(text)) return {};
    const millis = BigInt(text) * scale;
    const seconds = Number(millis / 1000n - (millis % 1000n < 0n ? 1n : 0n));
    const nanos = Number(((millis % 1000n) + 1000n) % 1000n) * 1_000_000;
    return { zoned: { local: seconds, nanos, offset: 0 }, local: { local: seconds, nanos } };
  };
}

/**
 * A reader for text in a Java `DateTimeFormatter` pattern (`dd/MM/yyyy`, `yyyy-MM-dd'T'HH:mm:ssXXX`),
 * `epoch` (milliseconds) or `unix` (seconds), or WireMock's default forms without a format (ISO
 * 8601, RFC 1123, RFC 1036, asctime). Throws a `SyntaxError` naming what it cannot read (letters
 * other than `y M d H h m s S E a X Z`, `h` without `a`).
 */
export function compileDateReader(format?: string): (text: string) => ReadDate {
  if (format === undefined) return readDefault;
  if (/^(epoch|unix)$/i.test(format)) return epochReader(format.toLowerCase() === "unix" ? 1000n : 1n);
  const { regex, steps } = compileFormat(format);
  return (text) => {
    const m = regex.exec(text);
    if (!m) return {};
    const p = parsedFields(steps, m);
    return p ? readParsed(p) : {};
  };
}

/** The regex group that reads one letter run of a pattern. */
function readPart(letter: string, count: number): string {
  switch (letter) {
    case "y":
      return count === 2 ? "(\\d{2})" : `(\\d{${Math.max(count, 1)},9})`;
    case "M":
      return count >= 4
        ? `(${MONTHS.join("|")})`
        : count === 3
        ? `(${MONTHS.map((m) => m.slice(0, 3)).join("|")})`
        : count === 2
        ? "(\\d{2})"
        : "(\\d{1,2})";
    case "E":
      return count >= 4 ? `(${DAYS.join("|")})` : `(${DAYS.map((d) => d.slice(0, 3)).join("|")})`;
    case "a":
      return "(AM|PM)";
    case "S":
      return `(\\d{${count}})`;
    case "X":
      return count === 1 ? "(Z|[+-]\\d{2}(?:\\d{2})?)" : count === 2 ? "(Z|[+-]\\d{4})" : "(Z|[+-]\\d{2}:\\d{2})";
    case "Z":
      return count <= 3 ? "([+-]\\d{4})" : "(Z|[+-]\\d{2}:\\d{2})";
    default:
      return count === 1 ? "(\\d{1,2})" : `(\\d{${count}})`;
  }
}
