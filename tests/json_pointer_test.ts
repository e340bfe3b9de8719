import assert from "node:assert/strict";
import { atPointer, pointerStep, pointerToken } from "../src/util/json_pointer.ts";

Deno.test("pointerToken escapes ~ before /, so a key written and read back is the same key", () => {
  assert.equal(pointerToken("a~1/b"), "a~01~1b");
  const doc = { "a~1/b": { c: [10, 20] } };
  assert.equal(atPointer(doc, pointerStep("a~1/b") + pointerStep("c") + pointerStep(1)), 20);
});

Deno.test("atPointer: the whole for '', undefined for a missing step, and only own fields (a $ref to /constructor finds nothing)", () => {
  assert.deepEqual(atPointer({ a: 1 }, ""), { a: 1 });
  assert.equal(atPointer({ a: 1 }, "/b"), undefined);
  assert.equal(atPointer({ a: 1 }, "/a/b"), undefined);
  assert.equal(atPointer({}, "/constructor"), undefined);
  assert.equal(atPointer({ "": 3 }, "/"), 3);
});
