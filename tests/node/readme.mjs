// README's Node examples (a ```js block after `<!-- node: … -->`) run with Node in a project that
// installed the npm package, importing it by name as README shows: `import … from "stubtool"`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { installedPackage, ROOT } from "./_package.mjs";

/** The ```js blocks just after a `<!-- node: … -->` line (blank lines between allowed), with their line. */
function nodeExamples(markdown) {
  const lines = markdown.split("\n");
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^<!-- node: .* -->$/.test(lines[i].trim())) continue;
    let j = i + 1;
    while (lines[j].trim() === "") j++;
    assert.equal(lines[j], "```js", `README.md:${j + 1}: a node: note comes before a js block`);
    const end = lines.indexOf("```", j + 1);
    found.push({ line: j + 1, text: lines.slice(j + 1, end).join("\n") + "\n" });
  }
  return found;
}

const examples = nodeExamples(readFileSync(join(ROOT, "README.md"), "utf8"));

test("README: there is a Node example importing the npm package by name", () => {
  assert.ok(examples.length >= 1);
  for (const { text } of examples) assert.match(text, /from "stubtool"/);
});

for (const { line, text } of examples) {
  test(`README.md:${line}: the Node example runs against the installed npm package`, async () => {
    const { dir } = await installedPackage();
    const file = join(dir, `readme-${line}.mjs`);
    writeFileSync(file, text);
    const result = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    assert.equal(result.status, 0, result.stderr);
  });
}
