// The dashboard and the static HTML report in real headless Chromium (playwright-core drives
// the browser `npm test` provides: scripts/provision.mjs): the numbers a user reads, live updates without a
// reload, keyboard use, narrow and dark layouts, escaping, and the file:// report.
// Screenshots go to a temporary directory that is kept when a step fails (its path is
// printed), or to $STUBTOOL_SCREENSHOTS when set.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { del, get, post, type StubServer, stubServer } from "../../mod.ts";
import { fixture, runCli, startServe } from "../_cli.ts";
import { loadConfigFile } from "../../src/stubs/config.ts";
import { launch } from "./_browser.ts";

const XSS = "/<script>alert(1)</script>";
const IMG = "/x/<img/src/onerror=alert(2)>";

/** Sends a request as raw HTTP/1.1, so the target reaches the server exactly as written (`<` and all). */
async function raw(server: StubServer, method: string, target: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.getPort() });
  try {
    await conn.write(new TextEncoder().encode(`${method} ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`));
    let text = "";
    const buffer = new Uint8Array(4096);
    for (let n; (n = await conn.read(buffer)) !== null;) text += new TextDecoder().decode(buffer.subarray(0, n));
    return text.split("\r\n")[0];
  } finally {
    conn.close();
  }
}

async function request(server: StubServer, method: string, path: string): Promise<number> {
  const response = await fetch(server.url + path, { method });
  await response.body?.cancel();
  return response.status;
}

/**
 * Evaluates a JavaScript expression in the page. A string rather than a function: Deno
 * type-checks tests without the DOM library, and the expression runs in the browser anyway.
 */
function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

/** Collapsed text of an element, as JavaScript in the page. */
const textOf = (el: string) => `(${el}.textContent || "").replace(/\\s+/g, " ").trim()`;

/** The text of every cell of a table's body rows, whitespace collapsed, without the request details that open. */
function rows(page: Page, table: string): Promise<string[][]> {
  return inPage(
    page,
    `Array.from(document.querySelectorAll("#${table} tbody tr"), (tr) => Array.from(tr.children, (cell) => {
      const c = cell.cloneNode(true);
      for (const detail of c.querySelectorAll(".detail")) detail.remove();
      return ${textOf("c")};
    }))`,
  );
}

function text(page: Page, selector: string): Promise<string> {
  return inPage(page, textOf(`document.querySelector(${JSON.stringify(selector)})`));
}

/** Polls `expression` in the page until it is truthy (waitForFunction would need 'unsafe-eval' past the CSP). */
async function waitFor(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await inPage<boolean>(page, expression))) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The first line of each stub row's "Source, scenario, conditions" cell: where the stub came from. */
function sources(page: Page): Promise<string[]> {
  return inPage(
    page,
    `Array.from(document.querySelectorAll("#stubs-table tbody td.where"), (cell) => {
      const first = document.createElement("span");
      for (const node of cell.childNodes) {
        if (node.nodeName === "BR") break;
        first.append(node.cloneNode(true));
      }
      return ${textOf("first")};
    })`,
  );
}

/** Everything the page shows that a test compares, in one object. */
async function shown(page: Page) {
  return {
    coverage: await text(page, "#coverage-text"),
    meter: await inPage<number[]>(
      page,
      `[document.getElementById("coverage-meter").value, document.getElementById("coverage-meter").max]`,
    ),
    unmatched: await text(page, "#stat-unmatched"),
    stubs: await rows(page, "stubs-table"),
    unmatchedRows: await rows(page, "unmatched-table"),
  };
}

Deno.test({
  name: "dashboard and HTML report in headless Chromium: numbers, live update, keyboard, narrow, dark, escaping",
  // playwright-core keeps a connection and timers of its own between steps.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const keep = Deno.env.get("STUBTOOL_SCREENSHOTS");
    const shots = keep ?? await Deno.makeTempDir({ prefix: "stubtool-dashboard-" });
    if (keep) await Deno.mkdir(keep, { recursive: true });
    let failed = false;
    await using server = await stubServer(0);
    server.routes(
      get("/users/{id}").body({ id: "{id}" }),
      post("/users").status(201),
      del("/users/{id}").status(204),
      get("/search?q={term}").body({ q: "{term}" }),
      get(XSS).body({}),
    );
    await using browser = await launch();
    const page = await browser.context.newPage();
    const dialogs: string[] = [];
    const problems: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      dialog.dismiss().catch(() => {});
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    // Every Content-Security-Policy violation, in every page this context opens, as a console error.
    await browser.context.addInitScript(
      `document.addEventListener("securitypolicyviolation", (e) => console.error("CSP violation: " + ` +
        `e.violatedDirective + " (" + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber + ")"))`,
    );
    // Anything the page fetches besides itself would be a request the server counts (or an external asset).
    const fetched: string[] = [];
    page.on("request", (r) => fetched.push(r.url()));

    const step = async (name: string, fn: () => Promise<void>) => {
      const ok = await t.step(name, fn);
      if (!ok) failed = true;
    };

    assert.equal(await request(server, "GET", "/users/1"), 200);
    assert.equal(await request(server, "GET", "/users/2"), 200);
    assert.equal(await request(server, "GET", "/search?q=ada"), 200);
    assert.equal(await request(server, "PUT", "/users"), 404);
    assert.equal(await request(server, "GET", "/search"), 404);
    assert.equal(await raw(server, "GET", XSS), "HTTP/1.1 200 OK");
    assert.equal(await raw(server, "GET", IMG), "HTTP/1.1 404 Not Found");
    const dashboard = `${server.url}/__stubtool__/`;

    await step(
      "the page shows coverage, hit counts, unmatched requests with the closest stub and why, the journal",
      async () => {
        await page.goto(dashboard);
        assert.match(await page.title(), /^stubtool dashboard: 3\/5 stubs exercised$/);
        const now = await shown(page);
        assert.equal(now.coverage, "3 of 5 stubs exercised (60%)");
        assert.deepEqual(now.meter, [3, 5]);
        assert.equal(now.unmatched, "3");
        assert.equal(await text(page, "#stat-requests"), "7");
        assert.deepEqual(now.stubs, [
          ["1", "stub-1", "GET", "/users/{id}", "api", "2"],
          ["2", "stub-2", "POST", "/users", "api", "0 unused"],
          ["3", "stub-3", "DELETE", "/users/{id}", "api", "0 unused"],
          ["4", "stub-4", "GET", "/search?q={term}", "api", "1"],
          ["5", "stub-5", "GET", XSS, "api", "1"],
        ]);
        assert.deepEqual(
          await inPage(
            page,
            `Array.from(document.querySelectorAll("#stubs-table tr.unused th"), (th) => th.textContent)`,
          ),
          [
            "/users",
            "/users/{id}",
          ],
        );
        assert.deepEqual(now.unmatchedRows.map((r) => r.slice(1)), [
          [`GET ${IMG}`, "no stub came close"],
          ["GET /search", "GET /search?q={term} — missing query parameter 'q'"],
          ["PUT /users", "POST /users — method differs (stub is POST)"],
        ]);
        for (const r of now.unmatchedRows) assert.match(r[0], /^\d\d:\d\d:\d\d\.\d{3}$/);
        const journal = await rows(page, "journal-table");
        assert.deepEqual(journal.map((r) => r.slice(1, 4)), [
          [`GET ${IMG}`, "404", "no stub"],
          [`GET ${XSS}`, "200", `GET ${XSS}`],
          ["GET /search", "404", "no stub GET /search?q={term} — missing query parameter 'q'"],
          ["PUT /users", "404", "no stub POST /users — method differs (stub is POST)"],
          ["GET /search?q=ada", "200", "GET /search?q={term}"],
          ["GET /users/2", "200", "GET /users/{id}"],
          ["GET /users/1", "200", "GET /users/{id}"],
        ]);
        for (const r of journal) assert.match(r[4], /^(\d+\.\d|<0\.1)$/, "duration in ms");
        await page.screenshot({ path: join(shots, "dashboard-1280.png"), fullPage: true });
      },
    );

    await step("user-controlled strings render as text: no alert, no injected element, one script", async () => {
      assert.deepEqual(dialogs, []);
      assert.equal(await inPage(page, "document.scripts.length"), 1);
      assert.equal(await inPage(page, `document.querySelectorAll("img").length`), 0);
      assert.equal(await text(page, "#stubs-table tbody tr:nth-child(5) th"), XSS);
      assert.deepEqual(problems, [], "no script errors and no CSP violations");
    });

    await step("new requests show up without a reload: the window keeps its marker", async () => {
      await inPage(page, "window.marker = 42");
      await page.focus("#stubs-table-region");
      assert.equal(await request(server, "POST", "/users"), 201);
      assert.equal(await request(server, "GET", "/users/3"), 200);
      assert.equal(await request(server, "GET", "/nope"), 404);
      await waitFor(page, `document.getElementById("coverage-text").textContent.includes("4 of 5")`);
      const now = await shown(page);
      assert.equal(now.coverage, "4 of 5 stubs exercised (80%)");
      assert.equal(now.unmatched, "4");
      assert.deepEqual(now.stubs.map((r) => r[5]), ["3", "1", "0 unused", "1", "1"]);
      assert.equal(now.unmatchedRows.length, 4);
      assert.equal(now.unmatchedRows[0][1], "GET /nope");
      assert.equal(await text(page, "#stat-requests"), "10");
      assert.equal((await rows(page, "journal-table")).length, 10);
      assert.match(await page.title(), /4\/5 stubs exercised/);
      assert.equal(await inPage(page, "window.marker"), 42, "no reload");
      assert.equal(await inPage(page, "document.activeElement.id"), "stubs-table-region", "focus kept");
      assert.match(await text(page, "#live-status"), /^Live: changed at /);
    });

    await step("keyboard: Tab reaches the skip link, the pause button, the section links and each table", async () => {
      await page.goto(dashboard);
      const order: string[] = [];
      for (let i = 0; i < 10; i++) {
        await page.keyboard.press("Tab");
        order.push(
          await inPage<string>(
            page,
            `document.activeElement.tagName === "SUMMARY" ? "summary of " + document.activeElement.parentElement.id : ` +
              `document.activeElement.id || document.activeElement.textContent.trim() || document.activeElement.tagName`,
          ),
        );
      }
      assert.deepEqual(order, [
        "Skip to unmatched requests",
        "live-pause",
        "Stubs",
        "Unmatched requests",
        "Recent requests",
        "stubs-filter",
        "stubs-table-region",
        "unmatched-table-region",
        "summary of miss-3",
        "summary of miss-2",
      ]);
      // Space on the pause button stops updates; a request meanwhile stays off the page until resumed.
      await page.focus("#live-pause");
      await page.keyboard.press("Space");
      assert.equal(await page.getAttribute("#live-pause", "aria-pressed"), "true");
      assert.equal(await request(server, "GET", "/paused"), 404);
      await page.waitForTimeout(1500);
      assert.equal(await text(page, "#stat-unmatched"), "4");
      await page.keyboard.press("Space");
      await waitFor(page, `document.getElementById("stat-unmatched").textContent === "5"`);
    });

    await step("several refreshes with new requests in between: no console error, no CSP violation", async () => {
      await page.goto(dashboard);
      for (let i = 0; i < 4; i++) {
        const before = await text(page, "#stat-unmatched");
        assert.equal(await request(server, "GET", `/cycle/${i}`), 404);
        await waitFor(page, `document.getElementById("stat-unmatched").textContent !== ${JSON.stringify(before)}`);
        assert.match(await text(page, "#live-status"), /^Live: changed at /);
      }
      // A matched request changes the stubs, coverage and journal sections; the unmatched one stays the same node.
      const mark = `for (const s of document.querySelectorAll("main > section")) s.marked = true`;
      const marked = `Array.from(document.querySelectorAll("main > section"), (s) => s.id + ":" + (s.marked === true))`;
      await inPage(page, mark);
      assert.equal(await request(server, "GET", "/users/9"), 200);
      await waitFor(page, `!document.getElementById("stubs").marked`);
      assert.deepEqual(await inPage(page, marked), [
        ":false",
        "stubs:false",
        "scenarios:true",
        "unmatched:true",
        "violations:true",
        "journal:false",
      ]);
      // Idle refreshes: nothing is re-rendered, nothing is logged.
      await inPage(page, mark);
      const status = await text(page, "#live-status");
      await page.waitForTimeout(2500);
      assert.deepEqual(await inPage(page, marked), [
        ":true",
        "stubs:true",
        "scenarios:true",
        "unmatched:true",
        "violations:true",
        "journal:true",
      ]);
      assert.equal(await text(page, "#live-status"), status);
      assert.deepEqual(problems, [], "no script errors, console errors or CSP violations");
    });

    await step("readable on a 390 px wide window: nothing wider than the screen", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(dashboard);
      assert.ok(await inPage(page, "document.documentElement.scrollWidth <= 390"));
      const tooWide = await inPage<string[]>(
        page,
        `Array.from(document.querySelectorAll("th, td, p, h1, h2, dl"))
          .filter((el) => !el.closest("thead") && el.getBoundingClientRect().right > 390.5).map((el) => el.outerHTML.slice(0, 80))`,
      );
      assert.deepEqual(tooWide, []);
      await page.screenshot({ path: join(shots, "dashboard-390.png"), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    await step("follows prefers-color-scheme: dark", async () => {
      await page.emulateMedia({ colorScheme: "dark" });
      await page.goto(dashboard);
      const [bg, fg] = await inPage<string[]>(
        page,
        `[getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.documentElement).color]`,
      );
      assert.equal(bg, "rgb(13, 17, 23)");
      assert.equal(fg, "rgb(230, 237, 243)");
      await page.screenshot({ path: join(shots, "dashboard-dark.png"), fullPage: true });
      await page.emulateMedia({ colorScheme: "light" });
    });

    await step("stubtool report --format html --output: the same numbers from file://, static", async () => {
      const file = join(shots, "report.html");
      const cli = await runCli(["report", "--url", server.url, "--format", "html", "--output", file]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(cli.stdout, `report written to ${file}\n`);
      const live = await page.goto(dashboard).then(() => shown(page));
      const liveJournal = await rows(page, "journal-table");
      await page.goto(pathToFileURL(file).href);
      assert.match(await page.title(), /^stubtool coverage report: 4\/5 stubs exercised$/);
      const fromFile = await shown(page);
      assert.deepEqual(fromFile, live);
      assert.deepEqual(await rows(page, "journal-table"), liveJournal);
      assert.equal(await inPage(page, "document.scripts.length"), 0, "static: no script");
      assert.equal(await text(page, "#stubs-table tbody tr:nth-child(5) th"), XSS);
      assert.match(
        await text(page, "header .meta"),
        new RegExp(`^Generated \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC from ${server.url}$`),
      );
      await page.screenshot({ path: join(shots, "report.png"), fullPage: true });
      // No live refresh: more traffic does not change the page.
      await request(server, "GET", "/later");
      await page.waitForTimeout(1200);
      assert.equal((await shown(page)).unmatched, fromFile.unmatched);
      assert.deepEqual(dialogs, []);
    });

    await step("the browser fetched nothing but the dashboard and the report file", () => {
      const foreign = fetched.filter((url) => !url.startsWith(dashboard) && !url.startsWith("file://"));
      assert.deepEqual(foreign, []);
      return Promise.resolve();
    });

    await step("when the server goes away the page says so and keeps what it showed", async () => {
      await page.goto(dashboard);
      const before = await shown(page);
      await server.shutdown();
      await waitFor(page, `document.getElementById("live-meta").classList.contains("error")`);
      assert.match(await text(page, "#live-status"), /^Cannot reach the server \(.+\); retrying$/);
      assert.deepEqual(await shown(page), before);
    });

    if (failed || keep) console.log(`screenshots: ${shots}`);
    else await Deno.remove(shots, { recursive: true });
  },
});

Deno.test({
  name: "dashboard in headless Chromium: scenario transitions with their counts, live, and a flow added at runtime",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using server = await stubServer(0);
    server.routes(get("/health").body({ ok: true }));
    await using browser = await launch();
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    await page.goto(`${server.url}/__stubtool__/`);
    // No scenario yet: the section is there for the live page to fill, but not shown.
    assert.equal(await inPage(page, `document.getElementById("scenarios").hidden`), true);
    assert.equal(await inPage(page, `document.getElementById("scenarios").offsetHeight`), 0);

    server.routes(
      post("/cart/items").id("add-item").inScenario("checkout").whenState("Started").setState("has-items"),
      post("/cart/pay").id("pay").inScenario("checkout").whenState("has-items").setState("paid"),
      del("/cart").id("clear").inScenario("checkout").whenState("paid").setState("Started"),
    );
    assert.equal(await request(server, "POST", "/cart/items"), 200);
    await waitFor(page, `document.getElementById("scenarios-table") !== null`);
    assert.equal(await inPage(page, `document.getElementById("scenarios").hidden`), false);
    assert.deepEqual(await rows(page, "scenarios-table"), [
      ["checkout", "Started → has-items", "add-item", "1"],
      ["checkout", "has-items → paid", "pay", "0 never taken"],
      ["checkout", "paid → Started", "clear", "0 never taken"],
    ]);
    assert.equal(
      await text(page, "#scenarios-table caption"),
      "3 declared transitions of 1 scenario; 2 transitions never taken are highlighted",
    );

    assert.equal(await request(server, "POST", "/cart/pay"), 200);
    await waitFor(page, `document.querySelectorAll("#scenarios-table tr.unused").length === 1`);
    assert.deepEqual((await rows(page, "scenarios-table")).map((r) => r[3]), ["1", "1", "0 never taken"]);
    assert.deepEqual(problems, [], "no script errors and no CSP violations");
  },
});

Deno.test({
  name: "dashboard in headless Chromium: stub ids and places, the filter box, a request's detail, the state diagram",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "stubtool-dashboard-" });
    const file = join(dir, "stubs.yaml");
    await Deno.writeTextFile(
      file,
      `routes:
  - id: create-user
    method: POST
    path: /users
    request:
      headers:
        x-trace: "{trace}"
    status: 201
  - id: get-user
    method: GET
    path: /users/{id}
  - id: upload
    method: PUT
    path: /files/{name}
    status: 204
  - id: add-item
    method: POST
    path: /cart/items
    scenario: checkout
    when_state: Started
    set_state: has-items
  - id: pay
    method: POST
    path: /cart/pay
    scenario: checkout
    when_state: has-items
    set_state: paid
  - id: clear
    method: DELETE
    path: /cart
    scenario: checkout
    when_state: paid
    set_state: Started
`,
    );
    const { config, problems: configProblems } = await loadConfigFile(file);
    assert.ok(config, JSON.stringify(configProblems));
    await using server = await stubServer(0, { stubs: config.routes });
    await using browser = await launch();
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    await browser.context.addInitScript(
      `document.addEventListener("securitypolicyviolation", (e) => console.error("CSP violation: " + e.violatedDirective))`,
    );

    const created = await fetch(`${server.url}/users`, {
      method: "POST",
      headers: { "x-trace": "t-42", "content-type": "application/json" },
      body: '{"name":"Ada","tags":["x"]}',
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
    const binary = await fetch(`${server.url}/files/logo.png`, {
      method: "PUT",
      body: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0x01]),
    });
    assert.equal(binary.status, 204);
    await binary.body?.cancel();
    assert.equal(await request(server, "GET", "/user/7"), 404);
    assert.equal(await request(server, "POST", "/cart/items"), 200);
    await page.goto(`${server.url}/__stubtool__/`);

    await t.step("stub rows show id, source (file:line), scenario and state condition, conditions", async () => {
      assert.deepEqual((await rows(page, "stubs-table")).map((r) => r.slice(1, 5)), [
        ["create-user", "POST", "/users", `${file}:2 headers: x-trace`],
        ["get-user", "GET", "/users/{id}", `${file}:9`],
        ["upload", "PUT", "/files/{name}", `${file}:12`],
        ["add-item", "POST", "/cart/items", `${file}:16 scenario checkout: in Started → has-items`],
        ["pay", "POST", "/cart/pay", `${file}:22 scenario checkout: in has-items → paid`],
        ["clear", "DELETE", "/cart", `${file}:28 scenario checkout: in paid → Started`],
      ]);
    });

    const visible = `Array.from(document.querySelectorAll("#stubs-table tbody tr"))` +
      `.filter((tr) => !tr.hidden).map((tr) => tr.children[1].textContent)`;
    await t.step("the filter box hides the other rows, and keeps doing so across live updates", async () => {
      await page.fill("#stubs-filter", "CHECKOUT");
      assert.deepEqual(await inPage(page, visible), ["add-item", "pay", "clear"]);
      await page.fill("#stubs-filter", "files");
      assert.deepEqual(await inPage(page, visible), ["upload"]);
      assert.equal(await request(server, "GET", "/users/1"), 200);
      await waitFor(
        page,
        `document.querySelector("#stubs-table tbody tr:nth-child(2) td:last-child").textContent === "1"`,
      );
      assert.equal(await inPage(page, `document.getElementById("stubs-filter").value`), "files");
      assert.equal(await inPage(page, `document.activeElement.id`), "stubs-filter");
      assert.deepEqual(await inPage(page, visible), ["upload"]);
      await page.fill("#stubs-filter", "");
      assert.equal((await inPage<string[]>(page, visible)).length, 6);
    });

    /** The detail of the journal row whose summary reads `summary`, as label → text. */
    const detail = async (table: string, summary: string): Promise<Record<string, string>> => {
      const row = page.locator(`#${table} details.req`, { has: page.locator("summary", { hasText: summary }) });
      await row.locator("summary").click();
      return await inPage(
        page,
        `(() => {
          const d = Array.from(document.querySelectorAll("#${table} details.req[open]"))
            .find((d) => d.querySelector("summary").textContent.replace(/\\s+/g, " ").trim() === ${
          JSON.stringify(summary)
        });
          const out = { id: d.id };
          const dl = d.querySelector(".detail > dl");
          for (const dt of dl.querySelectorAll(":scope > dt")) out[dt.textContent] = dt.nextElementSibling.textContent.replace(/\\s+/g, " ").trim();
          for (const dt of d.querySelectorAll("h4 + dl > dt")) out["header " + dt.textContent] = dt.nextElementSibling.textContent;
          out.body = Array.from(d.querySelectorAll("h4 ~ p, h4 ~ pre"), (el) => el.textContent).join("\\n");
          return out;
        })()`,
      );
    };

    await t.step("a request row opens its detail: headers, the JSON body pretty-printed, the stub's id", async () => {
      const shown = await detail("journal-table", "POST /users");
      assert.equal(shown.id, "req-0");
      assert.equal(shown.Method, "POST");
      assert.equal(shown.URL, "/users");
      assert.equal(shown["Answered by"], "stub create-user POST /users");
      assert.equal(shown.Status, "201");
      assert.equal(shown["header x-trace"], "t-42");
      assert.equal(shown["header content-type"], "application/json");
      assert.equal(shown.body, '{\n  "name": "Ada",\n  "tags": [\n    "x"\n  ]\n}');
      // The stub's id links to its row.
      await page.locator("#req-0 .detail a").first().click();
      assert.equal(await inPage(page, "location.hash"), "#stub-create-user");
      assert.equal(await inPage(page, `document.querySelector(":target").children[1].textContent`), "create-user");
    });

    await t.step("a binary body shows as its size and the hex of its head", async () => {
      const shown = await detail("journal-table", "PUT /files/logo.png");
      assert.equal(shown.body, "binary, 7 bytes in hex:\n89 50 4e 47 ff 00 01");
      assert.equal(shown["Answered by"], "stub upload PUT /files/{name}");
    });

    await t.step("a miss, from the journal and from the unmatched table: each close stub with the reason", async () => {
      const fromJournal = await detail("journal-table", "GET /user/7");
      assert.equal(fromJournal.Status, "404");
      assert.match(fromJournal["Answered by"], /^no stub; GET \/users\/\{id\} — .+$/);
      const fromUnmatched = await detail("unmatched-table", "GET /user/7");
      assert.equal(fromUnmatched.id, "miss-0");
      assert.equal(fromUnmatched["Answered by"], fromJournal["Answered by"]);
      assert.equal(fromUnmatched["header host"], `127.0.0.1:${server.getPort()}`);
      assert.equal(fromUnmatched.body, "no body");
      // Open details stay open across live updates.
      assert.equal(await request(server, "GET", "/users/2"), 200);
      await waitFor(page, `document.getElementById("stat-requests").textContent === "6"`);
      assert.equal(await inPage(page, `document.getElementById("miss-0").open`), true);
      assert.equal(await inPage(page, `document.getElementById("req-0").open`), true);
    });

    const diagram = () =>
      inPage<{ states: string[]; current: string[]; edges: string[] }>(
        page,
        `(() => {
          const svg = document.querySelector('#scenarios svg.flow[data-scenario="checkout"]');
          return {
            states: Array.from(svg.querySelectorAll(".flow-node"), (g) => g.dataset.state),
            current: Array.from(svg.querySelectorAll(".flow-node.current"), (g) => g.dataset.state + ":" + g.dataset.current),
            edges: Array.from(svg.querySelectorAll(".flow-edge"), (g) =>
              g.dataset.from + ">" + g.dataset.to + " " + g.querySelector("text").textContent +
              (g.querySelector("path").getAttribute("stroke-dasharray") ? " dashed" : "")),
          };
        })()`,
      );
    await t.step("each scenario is a state diagram: states, counts, never-taken dashed, current state", async () => {
      assert.deepEqual(await diagram(), {
        states: ["Started", "has-items", "paid"],
        current: ["has-items:now"],
        edges: ["Started>has-items add-item ×1", "has-items>paid pay ×0 dashed", "paid>Started clear ×0 dashed"],
      });
      assert.equal(await request(server, "POST", "/cart/pay"), 200);
      await waitFor(page, `document.querySelectorAll("#scenarios .flow-edge.never").length === 1`);
      assert.deepEqual(await diagram(), {
        states: ["Started", "has-items", "paid"],
        current: ["paid:now"],
        edges: ["Started>has-items add-item ×1", "has-items>paid pay ×1", "paid>Started clear ×0 dashed"],
      });
      assert.equal(await inPage(page, `document.scripts.length`), 1);
      await page.screenshot({ path: join(dir, "details.png"), fullPage: true });
    });

    await t.step("no console error, no CSP violation", () => {
      assert.deepEqual(problems, []);
      return Promise.resolve();
    });
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "dashboard in headless Chromium: a spec-checking server shows the violations panel beside unmatched requests, filled live",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { openApiServe } = await import("../../src/cli/serve_openapi.ts");
    const spec = join(import.meta.dirname!, "../fixtures/openapi/checked.yaml");
    const mocked = await openApiServe({ openapi: spec, mock: true }, [], (i) => `routes[${i}]`);
    await using server = await stubServer(0, { stubs: mocked!.stubs });
    await using browser = await launch();
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    await page.goto(`${server.url}/__stubtool__/`);
    assert.equal(await inPage(page, `document.getElementById("violations").hidden`), false);
    assert.equal(
      await inPage(page, `document.getElementById("unmatched").nextElementSibling.id`),
      "violations",
      "beside the unmatched requests",
    );
    assert.equal(
      await text(page, "#violations p"),
      "None: every request the spec's operations matched followed the spec.",
    );
    assert.equal(await request(server, "GET", "/me"), 401);
    assert.equal(await request(server, "GET", "/me"), 401);
    await waitFor(page, `document.getElementById("violations-table") !== null`);
    assert.deepEqual(await rows(page, "violations-table"), [
      ["GET /me", "security", 'no credentials (Bearer, ApiKey header="X-Api-Key")', "2"],
    ]);
    assert.deepEqual(problems, [], "no script errors and no CSP violations");
  },
});

Deno.test({
  name: "dashboard in headless Chromium: each stub's source: FILE:LINE of the config, WireMock file and index, " +
    "--stub, OpenAPI operation, admin for stubs added at runtime; the same in report --format html",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "stubtool-sources-" });
    const config = join(dir, "shop.yaml");
    await Deno.writeTextFile(
      config,
      `# The shop's stubs.
routes:
  - id: list-users
    method: GET
    path: /users

  # one per user, written as a flow mapping
  - {id: get-user, method: GET, path: "/users/{id}"}
`,
    );
    await Deno.mkdir(join(dir, "wiremock", "mappings"), { recursive: true });
    const mappings = join(dir, "wiremock", "mappings", "orders.json");
    await Deno.writeTextFile(
      mappings,
      JSON.stringify({
        mappings: [
          { id: "0b9a1f3e-0000-4000-8000-000000000001", request: { method: "GET", urlPath: "/orders" }, response: {} },
          {
            id: "0b9a1f3e-0000-4000-8000-000000000002",
            request: { method: "DELETE", urlPath: "/orders" },
            response: {},
          },
        ],
      }),
    );
    const spec = fixture("openapi/petstore.yaml");
    const served = await startServe([
      "--port",
      "0",
      "--config",
      config,
      "--wiremock",
      join(dir, "wiremock"),
      "--stub",
      "GET /inline -> 200",
      "--openapi",
      spec,
      "--mock",
    ]);
    await using _server = served.process;
    await using browser = await launch();
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    await page.goto(`${served.url}/__stubtool__/`);

    const wiremock = `${mappings} mappings`;
    // Below every configured stub: the table says so.
    const pets = (method: string, path: string) => `openapi ${method} ${path} of ${spec} priority -1`;
    const started = [
      ["list-users", "GET", "/users", `${config}:3`],
      ["get-user", "GET", "/users/{id}", `${config}:8`],
      ["0b9a1f3e-0000-4000-8000-000000000001", "GET", "/orders", `${wiremock}[0]`],
      ["0b9a1f3e-0000-4000-8000-000000000002", "DELETE", "/orders", `${wiremock}[1]`],
      ["stub-1", "GET", "/inline", "--stub[0]"],
      ["listPets", "GET", "/pets", pets("GET", "/pets")],
      ["createPets", "POST", "/pets", pets("POST", "/pets")],
      ["showPetById", "GET", "/pets/{petId}", pets("GET", "/pets/{petId}")],
      // The operations again under the spec's server path: each still names its operation.
      ["stub-2", "GET", "/v1/pets", pets("GET", "/pets")],
      ["stub-3", "POST", "/v1/pets", pets("POST", "/pets")],
      ["stub-4", "GET", "/v1/pets/{petId}", pets("GET", "/pets/{petId}")],
    ];
    await t.step(
      "config stubs show FILE:LINE, WireMock mappings their file and index, --stub and OpenAPI theirs",
      async () => {
        assert.deepEqual((await rows(page, "stubs-table")).map((r) => r.slice(1, 5)), started);
        assert.equal(
          await inPage(page, `document.querySelector("#stubs-table tbody tr td.where span").title`),
          `routes[0] of ${config}`,
          "the place the near-miss explanations use is the source's tooltip",
        );
      },
    );

    await t.step("stubs added at runtime, over both admin APIs, show admin, live", async () => {
      const added = await fetch(`${served.url}/__stubtool__/stubs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: "added", method: "GET", path: "/added" }),
      });
      assert.equal(added.status, 201, await added.text());
      const mapped = await fetch(`${served.url}/__admin/mappings`, {
        method: "POST",
        body: JSON.stringify({
          id: "0b9a1f3e-0000-4000-8000-000000000003",
          request: { method: "GET", urlPath: "/mapped" },
          response: { status: 200 },
        }),
      });
      assert.equal(mapped.status, 201, await mapped.text());
      await waitFor(page, `document.querySelectorAll("#stubs-table tbody tr").length === ${started.length + 2}`);
      assert.deepEqual((await rows(page, "stubs-table")).slice(0, -1).map((r) => r.slice(1, 5)), [
        ...started,
        ["added", "GET", "/added", "admin"],
      ]);
      assert.deepEqual((await sources(page)).slice(-2), ["admin", "admin"]);
    });

    await t.step("the filter box finds a stub by its file:line", async () => {
      await page.fill("#stubs-filter", "shop.yaml:8");
      assert.deepEqual(
        await inPage(
          page,
          `Array.from(document.querySelectorAll("#stubs-table tbody tr")).filter((tr) => !tr.hidden)` +
            `.map((tr) => tr.children[1].textContent)`,
        ),
        ["get-user"],
      );
    });

    await t.step("report --format html shows the same sources", async () => {
      const file = join(dir, "report.html");
      const { code, stderr } = await runCli(["report", "--url", served.url, "--format", "html", "--output", file]);
      assert.equal(code, 0, stderr);
      const report = await browser.context.newPage();
      await report.goto(pathToFileURL(file).href);
      assert.deepEqual(await sources(report), [...await sources(page)]);
      assert.deepEqual((await sources(report)).slice(0, 5), [
        `${config}:3`,
        `${config}:8`,
        `${wiremock}[0]`,
        `${wiremock}[1]`,
        "--stub[0]",
      ]);
    });

    await t.step("no console error, no CSP violation", () => {
      assert.deepEqual(problems, []);
      return Promise.resolve();
    });
    await Deno.remove(dir, { recursive: true });
  },
});
