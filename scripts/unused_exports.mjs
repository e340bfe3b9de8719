// Lists the exports of src/**/*.ts that no product file (src/, mod.ts, cli.ts, handler.ts) imports,
// with who does (tests, bench, scripts, or NONE) and how often the name occurs again in its own file.
// `node scripts/unused_exports.mjs` (from the repository root). Static and dynamic imports,
// re-exports and `import("x").Type` are followed; a module imported whole counts every export used.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
const ts = createRequire(import.meta.url)("typescript");
const root = process.argv[2] ?? process.cwd();
function walk(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules" && e.name !== "fixtures" && !e.name.startsWith(".")) walk(p, out);
    } else if (/\.(ts|mjs|js)$/.test(e.name)) out.push(p);
  }
  return out;
}
const files = [...walk(path.join(root, "src")), ...["mod.ts", "cli.ts", "handler.ts"].map((f) => path.join(root, f))];
const others = {
  tests: walk(path.join(root, "tests")),
  bench: walk(path.join(root, "bench")),
  scripts: walk(path.join(root, "scripts")),
};
const exportsOf = new Map(); // file -> Map(name -> {kind, line, localUses})
const used = { product: new Set(), tests: new Set(), bench: new Set(), scripts: new Set() }; // "file#name" or "file#*"
function resolveSpec(from, spec) {
  if (!spec.startsWith(".")) return null;
  return path.resolve(path.dirname(from), spec);
}
function scan(file, bucket, recordExports) {
  const text = fs.readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const mark = (target, name) => target && used[bucket].add(`${target}#${name}`);
  const exp = new Map();
  const addExp = (name, kind, node) =>
    exp.set(name, { kind, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
  function visit(node) {
    if (ts.isImportDeclaration(node)) {
      const target = resolveSpec(file, node.moduleSpecifier.text);
      const c = node.importClause;
      if (c) {
        if (c.name) mark(target, "default");
        if (c.namedBindings) {
          if (ts.isNamespaceImport(c.namedBindings)) mark(target, "*");
          else for (const el of c.namedBindings.elements) mark(target, (el.propertyName ?? el.name).text);
        }
      }
    } else if (ts.isExportDeclaration(node)) {
      const target = node.moduleSpecifier ? resolveSpec(file, node.moduleSpecifier.text) : null;
      if (node.exportClause && ts.isNamedExports(node.exportClause)) {
        for (const el of node.exportClause.elements) {
          if (target) mark(target, (el.propertyName ?? el.name).text);
          if (recordExports) addExp(el.name.text, "re-export", el);
        }
      } else if (target) mark(target, "*");
    } else if (
      ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const target = resolveSpec(file, node.arguments[0].text);
      // const { a, b } = await import("x")  |  (await import("x")).a
      let p = node.parent;
      if (ts.isAwaitExpression(p)) p = p.parent;
      if (ts.isVariableDeclaration(p) && ts.isObjectBindingPattern(p.name)) {
        for (const el of p.name.elements) mark(target, (el.propertyName ?? el.name).getText());
      } else if (ts.isParenthesizedExpression(p) && ts.isPropertyAccessExpression(p.parent)) {
        mark(target, p.parent.name.text);
      } else mark(target, "*");
    } else if (
      ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)
    ) {
      const target = resolveSpec(file, node.argument.literal.text);
      if (node.qualifier) mark(target, node.qualifier.getText().split(".")[0]);
      else mark(target, "*");
    }
    if (recordExports && node.parent === sf) {
      const mods = ts.canHaveModifiers(node) ? ts.getModifiers(node) ?? [] : [];
      if (mods.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
        const kind = ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) ? "type" : "value";
        if (ts.isVariableStatement(node)) {
          for (const d of node.declarationList.declarations) addExp(d.name.getText(), kind, d);
        } else if (node.name) addExp(node.name.text, kind, node);
      }
    }
    ts.forEachChild(node, visit);
  }
  visit(sf);
  if (recordExports) {
    for (const [name, info] of exp) {
      const re = new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`, "g");
      info.localUses = (text.match(re) ?? []).length - 1;
    }
    exportsOf.set(file.replace(/\.ts$/, ""), exp);
  }
}
for (const f of files) scan(f, "product", true);
for (const [bucket, list] of Object.entries(others)) for (const f of list) scan(f, bucket, false);
const norm = (k) => k.replace(/\.ts#/, "#");
for (const b of Object.keys(used)) used[b] = new Set([...used[b]].map(norm));
const isUsed = (b, file, name) => used[b].has(`${file}#${name}`) || used[b].has(`${file}#*`);
const top = new Set(["mod", "cli", "handler"].map((f) => path.join(root, f)));
const rows = [];
for (const [file, exp] of exportsOf) {
  if (top.has(file)) continue;
  for (const [name, info] of exp) {
    if (isUsed("product", file, name)) continue;
    const by = ["tests", "bench", "scripts"].filter((b) => isUsed(b, file, name));
    rows.push(
      `${path.relative(root, file)}.ts:${info.line}\t${info.kind}\t${name}\tlocal=${info.localUses}\t${
        by.join(",") || "NONE"
      }`,
    );
  }
}
console.log(rows.sort().join("\n"));
console.error(rows.length + " exports not imported by product code");
