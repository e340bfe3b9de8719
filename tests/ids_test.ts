import assert from "node:assert/strict";
import { STUB_ID } from "../src/util/ids.ts";

Deno.test("STUB_ID: letters, digits, _ . : - up to 100; a WireMock UUID fits; spaces, slashes and 101 characters do not", () => {
  for (const id of ["a", "get-user:42", "v1.2_x", "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7", "x".repeat(100)]) {
    assert.equal(STUB_ID.test(id), true, id);
  }
  for (const id of ["", "a b", "a/b", "é", "x".repeat(101)]) assert.equal(STUB_ID.test(id), false, id);
});
