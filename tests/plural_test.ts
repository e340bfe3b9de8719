import assert from "node:assert/strict";
import { plural } from "../src/util/plural.ts";

Deno.test("plural: one for exactly 1, the other form for 0 and many", () => {
  assert.equal(plural(1, "stub", "stubs"), "1 stub");
  assert.equal(plural(0, "stub", "stubs"), "0 stubs");
  assert.equal(plural(3, "unused stub is", "unused stubs are"), "3 unused stubs are");
});
