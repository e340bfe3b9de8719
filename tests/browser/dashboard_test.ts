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
import { runCli } from "../_cli.ts";
import { launch } from "./_browser.ts";

const XSS = "/<script>alert(1)</script>";
const IMG = "/x/<img/src/onerror=alert(2)>";

/** Sends a request as raw HTTP/1.1, so the target reaches the server exactly as written (`<` and all). */
async function raw(server: StubServer, method: string, target: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
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

/** The text of every cell of a table's body rows, whitespace collapsed. */
function rows(page: Page, table: string): Promise<string[][]> {
  return inPage(
    page,
    `Array.from(document.querySelectorAll("#${table} tbody tr"), (tr) => Array.from(tr.children, (c) => ${
      textOf("c")
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
          ["1", "GET", "/users/{id}", "2"],
          ["2", "POST", "/users", "0 unused"],
          ["3", "DELETE", "/users/{id}", "0 unused"],
          ["4", "GET", "/search?q={term}", "1"],
          ["5", "GET", XSS, "1"],
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
      assert.deepEqual(now.stubs.map((r) => r[3]), ["3", "1", "0 unused", "1", "1"]);
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
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press("Tab");
        order.push(
          await inPage<string>(
            page,
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
        "stubs-table-region",
        "unmatched-table-region",
        "journal-table-region",
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
