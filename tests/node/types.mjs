// The package's .d.ts as a TypeScript user on Node sees them: tsc (strict, NodeNext, checking
// the package's declarations too) on a usage file in the consumer project, whose output then
// runs on Node (so `await using` works there); and a misuse file that must not type-check.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { installedPackage, ROOT, run } from "./_package.mjs";

const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    skipLibCheck: false,
    noEmitOnError: true,
    types: ["node"],
    typeRoots: [join(ROOT, "node_modules", "@types")],
    outDir: "out",
  },
  files: ["usage.ts"],
};

const USAGE = `import { get, post, type Report, type StubServer, stubServer } from "stubtool";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

const results: Record<string, unknown> = {};
let disposed: StubServer | undefined;
{
  await using server = await stubServer(0, { hostname: "127.0.0.1", maxUnmatched: 10 });
  disposed = server;
  server.routes(
    get("/users/{id}").responseFunc(({ params }) => {
      expectType<Equal<typeof params, { id: string }>>();
      const id: string = params.id;
      // @ts-expect-error: only \`id\` is a placeholder of this path
      void params.name;
      return [200, { id: id.toUpperCase() }];
    }),
    get("/orgs/{org}/repos/{repo}?page={page}").delay(5).responseFunc(async ({ params, queryParams, headers }) => {
      expectType<Equal<typeof params, { org: string; repo: string }>>();
      const pages: string[] | undefined = queryParams.page;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return [200, { org: params.org, repo: params.repo, pages, agent: typeof headers["user-agent"] }, {
        "x-org": params.org,
      }];
    }),
    post("/login").status(201).header("x-a", "b").headers({ "x-c": "d" }).body({ ok: true }).delay(1, 3),
    get("/flaky").sequence({ status: 503 }, { status: 200, body: { ok: true } }).sequenceMode("cycle"),
  );
  results.user = await (await fetch(\`\${server.url}/users/abc\`)).json();
  const repo = await fetch(\`\${server.url}/orgs/deno/repos/std?page=2\`);
  results.repo = await repo.json();
  results.org = repo.headers.get("x-org");
  const report: Report = await server.report();
  results.hits = report.stubs.map((s) => s.hit_count);
  const port: number = server.getPort();
  results.port = port > 0;
}
try {
  await fetch(\`\${disposed!.url}/users/x\`);
  results.afterDispose = "still serving";
} catch {
  results.afterDispose = "refused";
}
console.log(JSON.stringify(results));
`;

/** Each line is a misuse that must be a type error (and nothing else may be). */
const MISUSE = [
  `import { get, post, stubServer } from "stubtool";`,
  `const server = await stubServer(0);`,
  `server.routes(get("/users/{id}").responseFunc(({ params }) => [200, { name: params.name }]));`,
  `server.routes(post("/orders").status("201"));`,
  `server.routes(get("/x").responseFunc(() => ({ status: 200 })));`,
  `await stubServer(0, { hostnme: "0.0.0.0" });`,
  `const port: string = server.getPort();`,
];

let dir;

before(async () => {
  ({ dir } = await installedPackage());
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  writeFileSync(join(dir, "usage.ts"), USAGE);
  writeFileSync(
    join(dir, "tsconfig.misuse.json"),
    JSON.stringify({ extends: "./tsconfig.json", files: ["misuse.ts"] }),
  );
  writeFileSync(join(dir, "misuse.ts"), MISUSE.join("\n") + "\n");
});

describe("npm package: TypeScript declarations", () => {
  it("a strict NodeNext project type-checks against them, and its output runs on Node (await using too)", () => {
    run("node", [TSC, "-p", "tsconfig.json"], dir);
    const results = JSON.parse(run("node", [join("out", "usage.js")], dir).stdout);
    assert.deepEqual(results, {
      user: { id: "ABC" },
      repo: { org: "deno", repo: "std", pages: ["2"], agent: "string" },
      org: "deno",
      hits: [1, 1, 0, 0],
      port: true,
      afterDispose: "refused",
    });
  });

  it("misuse fails type-checking: unknown placeholder, wrong argument types, malformed result, unknown option", () => {
    const result = run("node", [TSC, "--noEmit", "-p", "tsconfig.misuse.json"], dir, { allowFailure: true });
    assert.notEqual(result.status, 0, "misuse.ts type-checked");
    const errors = [...result.stdout.matchAll(/^misuse\.ts\((\d+),\d+\): error (TS\d+): (.*)$/gm)];
    assert.deepEqual(errors.map((e) => Number(e[1])), [3, 4, 5, 6, 7], result.stdout);
    assert.match(errors[0][3], /Property 'name' does not exist on type '\{ id: string; \}'/);
  });
});
