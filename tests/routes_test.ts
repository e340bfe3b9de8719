/**
 * The route table every admin mount declares: rows matched in order, the first pattern that
 * matches a path owns it, and a method it does not take is named in `allow`.
 */
import assert from "node:assert/strict";
import { RouteTable } from "../src/server/admin/routes.ts";

const table = new RouteTable<string>([
  { method: ["GET", "HEAD"], pattern: "", handler: "home" },
  { method: "POST", pattern: "items/reset", handler: "reset" },
  { method: "GET", pattern: "items/{id}", handler: "item" },
  { method: "PUT", pattern: "items/{id}", handler: "put item" },
  { method: "PUT", pattern: "names/{name*}", handler: "name" },
  { method: "PUT", pattern: "scenarios/{name}/state", handler: "state" },
]);

Deno.test("a row answers its method at its path, with the path's parameters as written", () => {
  assert.deepEqual(table.match("HEAD", ""), { handler: "home", params: {} });
  assert.deepEqual(table.match("PUT", "items/a%20b"), { handler: "put item", params: { id: "a%20b" } });
  assert.deepEqual(table.match("GET", "items/"), { handler: "item", params: { id: "" } });
  assert.deepEqual(table.match("PUT", "names/a/b/c"), { handler: "name", params: { name: "a/b/c" } });
  assert.deepEqual(table.match("PUT", "scenarios/cart/state"), { handler: "state", params: { name: "cart" } });
});

Deno.test("a method the path does not take gives the methods it does take, in the rows' order", () => {
  assert.deepEqual(table.match("DELETE", "items/x"), { allow: ["GET", "PUT"] });
  assert.deepEqual(table.match("POST", ""), { allow: ["GET", "HEAD"] });
});

Deno.test("the first pattern that matches owns the path: a literal row listed first shadows a parameter", () => {
  assert.deepEqual(table.match("GET", "items/reset"), { allow: ["POST"] });
});

Deno.test("a path no pattern matches is undefined: one segment more or less is another path", () => {
  assert.equal(table.match("GET", "items"), undefined);
  assert.equal(table.match("GET", "items/a/b"), undefined);
  assert.equal(table.match("PUT", "names"), undefined);
  assert.equal(table.match("PUT", "scenarios/cart/state/x"), undefined);
});

Deno.test("a rest parameter anywhere but last is refused when the table is built", () => {
  assert.throws(() => new RouteTable([{ method: "GET", pattern: "{rest*}/x", handler: 1 }]), /must be last/);
});
