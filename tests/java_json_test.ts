// jsonBody numbers as WireMock writes them: the file's text parsed again keeping each number,
// written as Java's BigDecimal.toPlainString() (checked against WireMock 3.13.2 in the
// p20_matchers goldens).
import assert from "node:assert/strict";
import { javaJsonText, javaPlainNumber, parseKeepingNumbers } from "../src/formats/wiremock/java_json.ts";

Deno.test("javaPlainNumber: a number's text as BigDecimal writes it plainly", () => {
  const cases: [string, string | undefined][] = [
    ["1.0", "1.0"],
    ["2", "2"],
    ["2.50", "2.50"],
    ["1e3", "1000"],
    ["1E2", "100"],
    ["-0.0", "0.0"],
    ["-0", "0"],
    ["0.00", "0.00"],
    ["1.5E-3", "0.0015"],
    ["-12.5e+1", "-125"],
    ["0.10", "0.10"],
    ["12345678901234567890", "12345678901234567890"],
    ["0e3", undefined],
    ["1e2000", undefined],
    ["1e-2000", undefined],
    ["x", undefined],
  ];
  for (const [text, want] of cases) assert.equal(javaPlainNumber(text), want, text);
});

Deno.test("parseKeepingNumbers: JSON.parse's shape (own __proto__, a repeated key's first place and last value), numbers kept", () => {
  const text = '{"a": 1.0, "__proto__": [1e3, "x\\u00e9\u{1F642}", {"k": -0.0}], "a": 2.50, "t": true, "n": null}';
  const kept = parseKeepingNumbers(text);
  assert.equal(javaJsonText(kept), '{"a":2.50,"__proto__":[1000,"xé\\uD83D\\uDE42",{"k":0.0}],"t":true,"n":null}');
  assert.deepEqual(Object.keys(kept as object), Object.keys(JSON.parse(text)));
  assert.equal(Object.getPrototypeOf(kept), Object.prototype);
  for (const bad of ["[1,]", "[1] x", '"\\q"', "{'a':1}", "01", ""]) {
    assert.equal(parseKeepingNumbers(bad), undefined, bad);
  }
  // Deeper than 200 levels is not parsed again (the caller refuses such numbers as before).
  assert.equal(parseKeepingNumbers("[".repeat(201) + "1" + "]".repeat(201)), undefined);
  assert.notEqual(parseKeepingNumbers("[".repeat(200) + "1" + "]".repeat(200)), undefined);
});
