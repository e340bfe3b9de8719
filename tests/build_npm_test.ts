import assert from "node:assert/strict";
import { bareImports, rewriteDeclarationSpecifiers, rewriteDocExamples } from "../scripts/build_npm.ts";

Deno.test("bareImports: the packages compiled output imports, not relative files or node: builtins", () => {
  const code = [
    `import "./_dispose.js";`,
    `import { parse } from "yaml";`,
    `import * as path from "node:path";`,
    `export { x } from "./src/x.js";`,
    `const m = await import("@scope/pkg/sub");`,
    `import {`,
    `  a,`,
    `  b,`,
    `} from "multi-line";`,
    `import("./adapters/node.js");`,
    `// a comment mentioning from "nowhere" is not an import`,
    `/**`,
    ` * import { get } from "stubtool";`,
    ` */`,
    `// import "commented-out";`,
  ].join("\n");
  assert.deepEqual(bareImports(code).sort(), ["@scope/pkg", "multi-line", "yaml"]);
});

Deno.test("rewriteDeclarationSpecifiers: relative .ts specifiers in .d.ts become .js, others stay", () => {
  const dts = [
    `import { type StubBuilder } from "./src/builder.ts";`,
    `export * from "../mod.ts";`,
    `export type X = import("./model.ts").Stub;`,
    `import type { Document } from "yaml";`,
    `declare const s: "./not-an-import.ts";`,
  ].join("\n");
  assert.equal(
    rewriteDeclarationSpecifiers(dts),
    [
      `import { type StubBuilder } from "./src/builder.js";`,
      `export * from "../mod.js";`,
      `export type X = import("./model.js").Stub;`,
      `import type { Document } from "yaml";`,
      `declare const s: "./not-an-import.ts";`,
    ].join("\n"),
  );
});

Deno.test('rewriteDocExamples: examples in doc comments import from "stubtool", code keeps its imports', () => {
  const text = [
    ` * import { get, stubServer } from "./mod.ts";`,
    ` * import { StubHandler } from "../handler.ts";`,
    ` * import { parse } from "yaml";`,
    `export * from "./mod.ts";`,
  ].join("\n");
  assert.equal(
    rewriteDocExamples(text),
    [
      ` * import { get, stubServer } from "stubtool";`,
      ` * import { StubHandler } from "stubtool";`,
      ` * import { parse } from "yaml";`,
      `export * from "./mod.ts";`,
    ].join("\n"),
  );
});
