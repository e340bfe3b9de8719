import assert from "node:assert/strict";
import { isObject } from "../src/util/json_shape.ts";

Deno.test("isObject: a JSON object is; null, an array, a string and a number are not", () => {
  assert.equal(isObject({}), true);
  assert.equal(isObject({ a: [1] }), true);
  assert.equal(isObject(null), false);
  assert.equal(isObject([]), false);
  assert.equal(isObject("{}"), false);
  assert.equal(isObject(1), false);
});
