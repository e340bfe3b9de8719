// A text holding `{{` loads the template engine before the first pass of its check, so a
// config with a template is checked once, not once without the engine and again with it.
// Its own file: the engine must not be loaded yet (module state is fresh per test file).
import assert from "node:assert/strict";
import { engine, withTemplating } from "../src/templating/engine.ts";

Deno.test("engine: a check whose source holds {{ runs once: the template engine (only) loads before the first pass", async () => {
  assert.throws(() => engine(), /the template engine is not loaded yet/);
  let passes = 0;
  const check = () => {
    passes++;
    return typeof engine().handlebars.create;
  };
  assert.equal(
    await withTemplating(check, 'routes:\n  - { path: /a, template: true, body: "{{params.id}}" }\n'),
    "function",
  );
  assert.equal(passes, 1);
  assert.throws(() => engine("xml"), /the XML libraries are not loaded yet/);
});
