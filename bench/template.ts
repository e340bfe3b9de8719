/**
 * What one render of a response template costs: a JSON body that reads a path capture, a
 * field of the JSON request body and the clock, against the `{id}` placeholder body a plain
 * stub renders (the baseline, measured in the same run).
 *
 *     deno run -A bench/template.ts [iterations]
 * @module
 */

import { compileJsonTemplate } from "../src/templating/handlebars.ts";
import { loadTemplating } from "../src/templating/engine.ts";
import { templateModel } from "../src/server/answers/template_model.ts";
import { compileJson, render } from "../src/stubs/placeholders.ts";

// The template engine loads on demand (src/templating/engine.ts): here, before anything compiles.
await loadTemplating();

const iterations = Number(Deno.args[0] ?? 200_000);
const body = JSON.stringify({ name: "Ada", owner: { id: 1 }, tags: ["a", "b"] });
const headers = { host: "127.0.0.1:8080", "content-type": "application/json" };

function model() {
  return templateModel({
    method: "POST",
    target: "/users/7?x=1",
    pathname: "/users/7",
    rawQuery: "x=1",
    scheme: "http",
    header: (name) => headers[name as keyof typeof headers] ?? null,
    headers: () => headers,
    bodyText: () => body,
    params: { id: "7" },
  });
}

const template = compileJsonTemplate({
  id: "{{params.id}}",
  name: "{{jsonPath request.body '$.name'}}",
  at: "{{now format='epoch'}}",
  kind: "user",
});
const plain = compileJson({ id: "{id}", kind: "user" }, ["id"]);
const withoutBody = compileJsonTemplate({ id: "{{params.id}}", at: "{{now format='epoch'}}", kind: "user" });

function measure(label: string, run: () => string): number {
  let sink = 0;
  for (let i = 0; i < iterations / 10; i++) sink += run().length; // warm up
  const start = performance.now();
  for (let i = 0; i < iterations; i++) sink += run().length;
  const ns = ((performance.now() - start) * 1e6) / iterations;
  console.log(`${label.padEnd(58)} ${ns.toFixed(0).padStart(6)} ns/render  (${sink > 0 ? "ok" : "?"})`);
  return ns;
}

console.log(`example: ${template.render(model())}`);
const base = measure("baseline: {id} placeholder body", () => render(plain, ["7"]));
const full = measure("template: model + params.id + jsonPath + now (fresh model)", () => template.render(model()));
measure("template: model + params.id + now (no body read)", () => withoutBody.render(model()));
console.log(`template / baseline: ${(full / base).toFixed(1)}×`);
