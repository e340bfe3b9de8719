// The {date} value pattern (WireMock's before / after / equalToDateTime) and the date reader
// behind it: which texts read as dates, with or without an offset, and how they compare.
import assert from "node:assert/strict";
import { compileDatePattern, readNowOffset } from "../src/stubs/date_pattern.ts";
import { compileValuePattern } from "../src/stubs/patterns.ts";
import { civilFromDays, compileDateReader, daysFromCivil } from "../src/templating/date_format.ts";

function date(spec: Record<string, unknown>) {
  const { pattern, problem } = compileValuePattern({ date: spec });
  assert.equal(problem, undefined);
  return (value: string) => pattern!.match(value) !== undefined;
}

Deno.test("date reader: ISO with an offset is zoned, without one local; RFC 1123, RFC 1036, asctime are zoned (GMT)", () => {
  const read = compileDateReader();
  assert.deepEqual(read("2026-05-01T10:00:00Z"), { zoned: { local: 1777629600, nanos: 0, offset: 0 } });
  assert.deepEqual(read("2026-05-01T12:00:00.5+02:00[Europe/Paris]"), {
    zoned: { local: 1777636800, nanos: 500_000_000, offset: 7200 },
  });
  assert.deepEqual(read("2026-05-01T10:00"), { local: { local: 1777629600, nanos: 0 } });
  assert.deepEqual(read("2026-05-01"), { local: { local: 1777593600, nanos: 0 } });
  assert.deepEqual(read("2026-05"), { local: { local: 1777593600, nanos: 0 } });
  assert.deepEqual(read("2026"), { local: { local: daysFromCivil(2026, 1, 1) * 86400, nanos: 0 } });
  assert.equal(read("Fri, 1 May 2026 10:00:00 GMT").zoned?.local, 1777629600);
  assert.equal(read("Sat, 1 May 2026 10:00:00 GMT").zoned, undefined, "the day of the week must agree");
  assert.equal(read("Friday, 01-May-26 10:00:00 GMT").zoned?.local, 1777629600);
  assert.equal(read("Fri May  1 10:00:00 2026").zoned?.local, 1777629600);
  assert.deepEqual(read("2026-02-30"), {}, "ISO reads strictly: no 30 February");
  assert.deepEqual(read("2026-05-01T24:00:00Z"), {});
  assert.deepEqual(read("yesterday"), {});
});

Deno.test("date reader: Java DateTimeFormatter patterns, epoch and unix; letters it cannot read are refused", () => {
  assert.deepEqual(compileDateReader("dd/MM/yyyy")("01/05/2026"), { local: { local: 1777593600, nanos: 0 } });
  assert.deepEqual(compileDateReader("dd/MM/yyyy")("1/05/2026"), {}, "dd takes two digits");
  assert.deepEqual(compileDateReader("dd/MM/yyyy")("31/02/2026"), {
    local: { local: daysFromCivil(2026, 2, 28) * 86400, nanos: 0 },
  }, "Java's SMART resolver moves 31 February to the 28th");
  const zoned = compileDateReader("yyyy-MM-dd HH:mm:ssXXX")("2026-05-01 12:00:00+02:00");
  assert.equal(zoned.zoned?.local! - zoned.zoned?.offset!, 1777629600);
  assert.equal(compileDateReader("dd MMM yyyy hh:mm a")("01 May 2026 10:00 PM").local?.local, 1777629600 + 12 * 3600);
  assert.deepEqual(compileDateReader("epoch")("1777629600123").zoned, {
    local: 1777629600,
    nanos: 123_000_000,
    offset: 0,
  });
  assert.equal(compileDateReader("unix")("1777629600").zoned?.local, 1777629600);
  assert.throws(
    () => compileDateReader("yyyy-'W'ww"),
    /letter 'w' is not one stubtool reads|letter 'w' is not supported/,
  );
  assert.throws(() => compileDateReader("hh:mm"), /'h' needs 'a'/);
  for (const days of [-719468, -1, 0, 59, 20_000, 2_932_896]) {
    const { year, month, day } = civilFromDays(days);
    assert.equal(daysFromCivil(year, month, day), days);
  }
});

Deno.test("date pattern: before / after / equals a fixed date, zoned against zoned by instant", () => {
  const before = date({ before: "2026-05-01T10:00:00Z" });
  assert.equal(before("2026-05-01T09:59:59.999999999Z"), true);
  assert.equal(before("2026-05-01T11:59:00+02:00"), true, "the same instant in another zone");
  assert.equal(before("2026-05-01T10:00:00Z"), false);
  assert.equal(before("not a date"), false);
  const equals = date({ equals: "2026-05-01T10:00:00Z" });
  assert.equal(equals("2026-05-01T12:00:00+02:00"), true);
  assert.equal(equals("2026-05-01T10:00:00.000000001Z"), false, "nanoseconds count");
  // A local expected date against a zoned value compares the value's own wall clock.
  assert.equal(date({ after: "2026-05-01T10:00:00" })("2026-05-01T11:00:00+05:00"), true);
  assert.equal(date({ after: "2026-05-01" })("2026-04-30"), false);
});

Deno.test("date pattern: format, truncations and now with an offset", () => {
  const format = date({ after: "2026-05-01", format: "dd/MM/yyyy" });
  assert.equal(format("02/05/2026"), true);
  assert.equal(format("2026-05-02"), false, "read only in the format");
  // truncate_actual moves a zoned value; a local one is compared as it is (as WireMock does).
  const month = date({ equals: "2026-05-01T00:00:00Z", truncate_actual: "first day of month" });
  assert.equal(month("2026-05-17T13:14:15Z"), true);
  assert.equal(
    date({ equals: "2026-05-01T00:00:00", truncate_actual: "first day of month" })("2026-05-17T13:14"),
    false,
  );
  const inAYear = date({ before: "now +1 years" });
  const soon = new Date(Date.now() + 86_400_000).toISOString();
  assert.equal(inAYear(soon), true);
  assert.equal(date({ after: "now -1 days" })(soon), true);
  assert.equal(date({ after: "now +2 days" })(soon), false);
  const today = new Date().toISOString().slice(0, 10) + "T00:00:00Z";
  assert.equal(
    date({ equals: "now", truncate_expected: "first hour of day" })(today),
    new Date().getTimezoneOffset() === 0,
  );
  assert.deepEqual(readNowOffset("now -3 DAYS"), { amount: -3, unit: "days" });
  assert.deepEqual(readNowOffset("5 hours"), { amount: 5, unit: "hours" });
  assert.equal(readNowOffset("now +1 day"), "bad", "WireMock's units are plural");
  assert.equal(readNowOffset("2026-05-01"), undefined);
});

Deno.test("date pattern: problems name the field", () => {
  const problem = (spec: unknown) => compileDatePattern(spec).problem;
  assert.equal(
    problem({ before: "tomorrow" }),
    'date.before "tomorrow" is not a date stubtool reads (2026-05-01T10:00:00Z, 2026-05-01, now +3 days)',
  );
  assert.equal(
    problem({ before: "now +1 day" }),
    'date.before "now +1 day": write now, now +N UNIT or now -N UNIT, UNIT one of seconds, minutes, hours, days, months, years',
  );
  assert.equal(problem({ before: "now", after: "now" }), "date needs exactly one of before, after, equals");
  assert.equal(
    problem({ before: "now", format: "QQQ" }),
    `date.format: date format "QQQ": letter 'Q' is not supported`,
  );
  assert.match(
    problem({ before: "now", truncate_actual: "first week" })!,
    /^date.truncate_actual must be one of 'first second of minute'/,
  );
  assert.equal(
    problem({ before: "now", zone: "UTC" }),
    "date has 'zone': it takes before, after or equals, and format, truncate_expected, truncate_actual, truncate_after_offset",
  );
  assert.equal(compileValuePattern({ all: [{ date: { after: "2026" } }, { contains: "Z" }] }).problem, undefined);
});
