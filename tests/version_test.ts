import assert from "node:assert/strict";
import { VERSION } from "../src/version.ts";

Deno.test("VERSION equals the version in deno.json (one source of truth)", async () => {
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.equal(VERSION, denoJson.version);
});
