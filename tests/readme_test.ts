// README's code blocks run, so the README cannot drift from the product. Each fenced block
// is one of:
//   - TypeScript / JavaScript: run with Deno from the clone's root, so `"./mod.ts"` is the clone's mod.ts,
//     as a user of a clone writes it; after `<!-- node: … -->`, a Node example importing the npm package
//     by name (`"stubtool"`), run by tests/node/readme.mjs against the installed package instead;
//   - a YAML config (`routes:`): passes `stubtool validate` (files it names are created);
//   - a transcript (`$ command` lines, each followed by its output), after `<!-- run: ... -->`:
//     run in bash with `stubtool` on the PATH, output compared line by line (timestamps and
//     tool versions normalized); `<!-- run: serve ARGS -->` starts `stubtool serve ARGS` first,
//     and `localhost:8080` stands for its address;
//   - Python after `<!-- run: serve ARGS -->`: run with python3 against that server;
//   - anything else says why not, just before it: `<!-- not run: reason -->`.
// `<!-- file: NAME -->` before a block also writes it as NAME for later blocks to use.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, startServe, tempDir } from "./_cli.ts";
import { COMMANDS } from "../src/cli/usage.ts";
import { StubBuilder } from "../src/stubs/builder.ts";
import { configSchema } from "../src/stubs/schema.ts";

interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
  /** The HTML comments just before the fence (`not run: …`, `run: …`, `file: …`). */
  notes: string[];
}

const README = await Deno.readTextFile(join(ROOT, "README.md"));

function blocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j].slice(indent));
    const notes: string[] = [];
    for (let k = i - 1; k >= 0; k--) {
      const note = /^\s*<!-- (.*) -->\s*$/.exec(lines[k]);
      if (note) notes.unshift(note[1]);
      else if (lines[k].trim() !== "") break;
    }
    found.push({ line: i + 1, lang: open[2], text: body.join("\n") + "\n", notes });
    i = j;
  }
  return found;
}

const ALL = blocks(README);
const note = (block: Block, kind: string) =>
  block.notes.find((n) => n.startsWith(`${kind}:`))?.slice(kind.length + 1).trim();
const isConfig = (block: Block) => block.lang === "yaml" && /^routes:/m.test(block.text);
const isCode = (block: Block) => block.lang === "ts" || block.lang === "js";

/** A folder with README's named files, `tests` and `examples`, and `stubtool` on the PATH. */
async function workspace(dir: string): Promise<Record<string, string>> {
  for (const block of ALL) {
    const file = note(block, "file");
    if (file) await Deno.writeTextFile(join(dir, file), block.text);
  }
  for (const name of ["tests", "examples"]) await Deno.symlink(join(ROOT, name), join(dir, name));
  const bin = join(dir, ".bin");
  await Deno.mkdir(bin);
  const deno = join(ROOT, "node_modules", ".bin", "deno");
  await Deno.writeTextFile(join(bin, "stubtool"), `#!/bin/sh\nexec "${deno}" run -A "${join(ROOT, "cli.ts")}" "$@"\n`);
  await Deno.chmod(join(bin, "stubtool"), 0o755);
  return { PATH: `${bin}:${Deno.env.get("PATH")}`, NO_COLOR: "1" };
}

/** Output as README shows it: no timestamps, tool versions or timings that change from run to run. */
function normalize(text: string): string {
  return text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/curl\/[\d.]+/g, "curl/<version>")
    .replace(/"duration_ms":\d+(\.\d+)?/g, '"duration_ms":<ms>')
    .replace(/after \d+\.\d+s/g, "after <s>s");
}

Deno.test("README: every code block is run by this test or says why not", () => {
  const unaccounted = ALL.filter((block) =>
    note(block, "not run") === undefined && note(block, "run") === undefined && !isCode(block) && !isConfig(block)
  );
  assert.deepEqual(unaccounted.map((b) => `README.md:${b.line} (${b.lang || "plain"})`), []);
  for (const block of ALL) {
    if (note(block, "not run") !== undefined) {
      assert.ok(note(block, "not run"), `README.md:${block.line}: give a reason`);
    }
  }
});

/** The cells of a table row (`| a | b |`), trimmed; `\|` inside a cell is not a separator. */
function cells(row: string): string[] {
  return row.trim().replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** Tables outside code blocks: runs of lines that start with `|`, with the line before each run. */
function tables(markdown: string): { line: number; before: string; rows: string[] }[] {
  const lines = markdown.split("\n");
  const found: { line: number; before: string; rows: string[] }[] = [];
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i])) fenced = !fenced;
    if (fenced || !lines[i].startsWith("|")) continue;
    const start = i;
    while (i + 1 < lines.length && lines[i + 1].startsWith("|")) i++;
    found.push({ line: start + 1, before: lines[start - 1] ?? "", rows: lines.slice(start, i + 1) });
  }
  return found;
}

Deno.test("README: every table renders as a table: a blank line before it, a header and a delimiter row, no ragged rows", () => {
  for (const { line, before, rows } of tables(README)) {
    assert.equal(before.trim(), "", `README.md:${line}: a table needs a blank line before it`);
    assert.ok(rows.length >= 2, `README.md:${line}: a table needs a header and a delimiter row`);
    const width = cells(rows[0]).length;
    assert.ok(cells(rows[1]).every((cell) => /^:?-+:?$/.test(cell)), `README.md:${line + 1}: not a delimiter row`);
    rows.forEach((row, k) => assert.equal(cells(row).length, width, `README.md:${line + k}: ${width} cells expected`));
  }
});

Deno.test("regression: README's admin endpoints were one paragraph, not rows of the Server endpoints table", () => {
  const section = README.slice(README.indexOf("## Server endpoints"), README.indexOf("## Driving stubtool"));
  const [table] = tables(section);
  assert.deepEqual(table.rows.slice(2).map((row) => cells(row)[0]), [
    "`GET /__stubtool__/`",
    "`GET /__stubtool__/health`",
    "`GET /__stubtool__/report`",
    "`GET /__stubtool__/requests`",
    "`POST /__stubtool__/reset`",
    "no stub matched",
    "response function throws, hangs or returns garbage",
    "request body over `--max-body` (10 MiB)",
    "`GET /__stubtool__/stubs`",
    "`POST /__stubtool__/stubs`",
    "`GET`, `PUT`, `DELETE /__stubtool__/stubs/{id}`",
    "`DELETE /__stubtool__/stubs`",
    "`POST /__stubtool__/stubs/reset`",
    "`POST /__stubtool__/requests/find`",
  ]);
  assert.equal(tables(section).length, 1, "one table, nothing after it that looks like rows");
  assert.doesNotMatch(section, /\| \|/, "no row text run together into a paragraph");
});

const isNode = (block: Block) => note(block, "node") !== undefined;
const IMPORT_MAP: Record<string, string> = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)))
  .imports;

Deno.test('regression: README\'s TypeScript examples imported "stubtool", which Deno cannot resolve from a clone', () => {
  for (const block of ALL.filter(isCode)) {
    const from = [...block.text.matchAll(/^import [^"\n]* from "([^"]+)"/gm)].map((m) => m[1]);
    if (isNode(block)) {
      assert.equal(block.lang, "js", `README.md:${block.line}: a Node example is plain JavaScript`);
      assert.deepEqual(from, ["stubtool"], `README.md:${block.line}: a Node example imports the npm package`);
    } else {
      // Besides node: built-ins, a client library the example talks to (openai) comes from deno.json's import map.
      const ours = from.filter((f) => !f.startsWith("node:") && !(f in IMPORT_MAP));
      assert.deepEqual(ours, ["./mod.ts"], `README.md:${block.line}`);
    }
    assert.doesNotMatch(block.text, /jsr:/, `README.md:${block.line}: nothing is published on JSR yet`);
  }
  assert.ok(ALL.some((b) => isCode(b) && isNode(b)), "the Install section shows the Node import");
});

/** Runs a Deno example written as README shows it, from `dir` (the clone's root: `./mod.ts` resolves there). */
async function runDenoExample(dir: string, block: Block, source: string, args: string[] = []) {
  const file = join(dir, `.readme-example-${block.line}-${crypto.randomUUID().slice(0, 8)}.${block.lang}`);
  await Deno.writeTextFile(file, source);
  try {
    await using cwd = await tempDir();
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-check", ...args, file],
      cwd: cwd.path,
      stdout: "null",
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
  } finally {
    await Deno.remove(file);
  }
}

for (const block of ALL.filter((b) => isCode(b) && !isNode(b) && !note(b, "not run"))) {
  Deno.test(`README.md:${block.line}: the ${block.lang} example runs`, async () => {
    await runDenoExample(ROOT, block, block.text);
  });
}

Deno.test("README: from outside the clone, the path to its mod.ts and --config its deno.json work as README says", async () => {
  const block = ALL.find((b) => isCode(b) && !isNode(b) && b.text.includes("scopes: true") && b.text.length < 800)!;
  await using dir = await tempDir();
  const source = block.text.replace('from "./mod.ts"', `from "${join(ROOT, "mod.ts")}"`);
  await runDenoExample(dir.path, block, source, ["--config", join(ROOT, "deno.json")]);
});

for (const block of ALL.filter((b) => isConfig(b) && !note(b, "not run"))) {
  Deno.test(`README.md:${block.line}: the config example is valid`, async () => {
    await using dir = await tempDir();
    const env = await workspace(dir.path);
    const file = join(dir.path, "example.yaml");
    await Deno.writeTextFile(file, block.text);
    // Body files it names exist next to it.
    for (const [, name] of block.text.matchAll(/body_file: (\S+)/g)) {
      await Deno.mkdir(join(dir.path, name, ".."), { recursive: true });
      await Deno.writeFile(join(dir.path, name), new Uint8Array([1, 2, 3]));
    }
    const { code, stdout, stderr } = await new Deno.Command("stubtool", {
      args: ["validate", file],
      cwd: dir.path,
      env,
    }).output();
    const out = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    assert.equal(code, 0, out);
    assert.doesNotMatch(out, /\[WARN\]/, "README examples carry no warnings");
  });
}

for (const block of ALL.filter((b) => note(b, "run") !== undefined)) {
  const run = note(block, "run")!;
  Deno.test(`README.md:${block.line}: the ${block.lang || "transcript"} runs as shown`, async () => {
    await using dir = await tempDir();
    const env = await workspace(dir.path);
    const serveArgs = run.startsWith("serve") ? run.slice("serve".length).trim().split(/\s+/).filter(Boolean) : [];
    const served = run.startsWith("serve")
      ? await startServe(["--port", "0", "--quiet", ...serveArgs], { cwd: dir.path })
      : undefined;
    await using _ = served?.process;
    const address = served ? new URL(served.url).host : "localhost:8080";
    const port = address.split(":").pop()!;
    const here = (text: string) => text.replaceAll("localhost:8080", `localhost:${port}`);
    const back = (text: string) => text.replaceAll(`localhost:${port}`, "localhost:8080");
    if (block.lang === "python") {
      const file = join(dir.path, "example.py");
      await Deno.writeTextFile(file, here(block.text));
      const { code, stderr } = await new Deno.Command("python3", { args: [file], cwd: dir.path }).output();
      assert.equal(code, 0, new TextDecoder().decode(stderr));
      return;
    }
    // One bash session: `$?` and files carry from one command to the next.
    const steps: { command: string; expected: string[] }[] = [];
    for (const line of block.text.replace(/\n$/, "").split("\n")) {
      if (line.startsWith("$ ")) steps.push({ command: line.slice(2), expected: [] });
      else steps.at(-1)!.expected.push(line);
    }
    // Each command's output follows its marker; `(exit $status)` hands the previous status on to `$?`.
    const script = steps.map((s, i) => `printf '\\n@@step ${i}\\n'; (exit $status); ${here(s.command)} 2>&1; status=$?`)
      .join("\n");
    // The CLI's default URL (http://localhost:$STUBTOOL_PORT) is the server's.
    const { stdout } = await new Deno.Command("bash", {
      args: ["-c", `status=0\n${script}`],
      cwd: dir.path,
      env: { ...env, STUBTOOL_PORT: port },
    }).output();
    const outputs = new TextDecoder().decode(stdout).split(/\n@@step \d+\n/).slice(1);
    steps.forEach((step, i) => {
      const actual = normalize(back(outputs[i] ?? "")).replace(/\n$/, "");
      assert.equal(actual, normalize(step.expected.join("\n")), `README.md:${block.line}: $ ${step.command}`);
    });
  });
}

/** The first cells of the README table whose header row starts with `| first`, after `heading`. */
function firstColumn(heading: string, first: string): string[] {
  const section = README.slice(README.indexOf(heading));
  const table = tables(section).find((t) => cells(t.rows[0])[0] === first);
  assert.ok(table, `a table starting with '${first}' under '${heading}'`);
  return table.rows.slice(2).map((row) => cells(row)[0]);
}

Deno.test("regression: README's config field table lacked scenario, when_state, set_state, template, callbacks, head, name (it follows the schema)", () => {
  const fields = firstColumn("## Config file", "Field").map((cell) => cell.replaceAll("`", ""));
  const schema = configSchema() as {
    properties: Record<string, unknown>;
    $defs: { stub: { properties: Record<string, unknown> } };
  };
  assert.deepEqual([...fields].sort(), Object.keys(schema.$defs.stub.properties).sort());
  const section = README.slice(README.indexOf("## Config file"), README.indexOf("### Headers sent more than once"));
  const topLevel = /Top-level keys besides `routes`: ([^]*?)\n\n/.exec(section)![1];
  for (const key of Object.keys(schema.properties).filter((k) => k !== "routes")) {
    assert.match(topLevel, new RegExp(`\`${key}\``), `README names the top-level key ${key}`);
  }
});

Deno.test("regression: README's builder table lacked .inScenario/.whenState/.setState/.template/.callback (it follows the builder's methods)", () => {
  const listed = firstColumn("## Programmatic API", "Builder").flatMap((cell) =>
    [...cell.matchAll(/`\.(\w+)\(/g)].map((m) => m[1])
  );
  const methods = Object.getOwnPropertyNames(StubBuilder.prototype).filter((name) => name !== "constructor");
  assert.deepEqual([...new Set(listed)].sort(), methods.sort());
});

Deno.test("regression: README's command synopsis lacked validate --wiremock (it names every flag of every command)", () => {
  const start = README.indexOf("```", README.indexOf("## Command line"));
  const synopsis = README.slice(start, README.indexOf("```", start + 3));
  const after = README.slice(README.indexOf("```", start + 3), README.indexOf("Exit codes:", start));
  const missing: string[] = [];
  for (const command of COMMANDS.filter((c) => c.name !== "schema")) {
    const line = synopsis.slice(synopsis.indexOf(`stubtool ${command.name} `)).split(/\nstubtool /)[0];
    for (const flag of command.flags) {
      const shown = line.includes(`--${flag.name}`) || (flag.short !== undefined && line.includes(`-${flag.short} `)) ||
        (/RECORDING FLAGS/.test(line) && after.includes(`--${flag.name}`)) ||
        after.includes(`\`${command.name}\``) && after.includes(`--${flag.name}`);
      if (!shown) missing.push(`${command.name} --${flag.name}`);
    }
  }
  assert.deepEqual(missing, []);
});
