import assert from "node:assert/strict";
import { isExactJsonMediaType, isJsonMediaType } from "../src/util/media.ts";

Deno.test("isJsonMediaType: */json and *+json with any parameters; other types are not", () => {
  for (const type of ["application/json", "text/json", "application/problem+json; charset=utf-8", "APPLICATION/JSON"]) {
    assert.equal(isJsonMediaType(type), true, type);
  }
  for (const type of ["text/plain", "application/jsonp", "application/json-seq", "application/x-json5"]) {
    assert.equal(isJsonMediaType(type), false, type);
  }
});

Deno.test("isExactJsonMediaType: one type/subtype naming JSON, parameters and case ignored; no extra slash", () => {
  assert.equal(isExactJsonMediaType(" Application/Problem+JSON ; charset=utf-8"), true);
  assert.equal(isExactJsonMediaType("application/x/json"), false);
  assert.equal(isJsonMediaType("application/x/json"), true, "the looser rule for content-type headers takes it");
  assert.equal(isExactJsonMediaType("*/*"), false);
});
