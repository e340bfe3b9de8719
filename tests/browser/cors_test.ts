// Browser apps against stubtool in real headless Chromium: a page on another origin does a
// preflighted JSON POST and a credentialed GET against a server with CORS on, reads a custom
// response header and a 404's `closest`; the same page cannot wipe the coverage with a
// no-cors POST or a plain form to /__stubtool__/reset.
import assert from "node:assert/strict";
import { get, post, stubServer } from "../../mod.ts";
import { launch } from "./_browser.ts";

Deno.test("a page on another origin uses a --cors server like a real API, and cannot reset it", async () => {
  await using mock = await stubServer(0, { cors: true });
  mock.routes(
    post("/payments").withJson({ amount: 42 }).status(201).header("x-request-id", "req-1").body({ id: "pay_1" }),
    get("/me").withHeader("authorization", "Bearer {token}").body({ token: "{token}" }),
  );
  // The app's page comes from another origin (another port): every call to the mock is cross-origin.
  await using app = await stubServer(0);
  const page = `<!doctype html><meta charset="utf-8"><title>app</title><form id="f" method="POST"
    action="${mock.url}/__stubtool__/reset" target="sink"></form><iframe name="sink"></iframe>
    <script>
    window.results = (async () => {
      const out = {};
      const paid = await fetch("${mock.url}/payments", {
        method: "POST",
        headers: { "content-type": "application/json", "x-trace": "t-1" },
        body: JSON.stringify({ amount: 42 }),
      });
      out.payment = [paid.status, paid.headers.get("x-request-id"), await paid.json()];
      const me = await fetch("${mock.url}/me", { credentials: "include", headers: { authorization: "Bearer abc" } });
      out.me = [me.status, await me.json()];
      const missing = await fetch("${mock.url}/payments", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount: 41 }),
      });
      out.missing = [missing.status, (await missing.json()).closest.map((c) => c.reason)];
      await fetch("${mock.url}/__stubtool__/reset", { method: "POST", mode: "no-cors" }).catch(() => {});
      document.getElementById("f").submit();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return out;
    })();
    </script>`;
  app.routes(get("/app").header("content-type", "text/html; charset=utf-8").body(page));

  await using browser = await launch();
  const tab = await browser.context.newPage();
  const errors: string[] = [];
  tab.on("pageerror", (error) => errors.push(String(error)));
  await tab.goto(`${app.url}/app`);
  const results = await tab.evaluate("window.results") as Record<string, unknown>;
  assert.deepEqual(errors, []);
  assert.deepEqual(results, {
    payment: [201, "req-1", { id: "pay_1" }],
    me: [200, { token: "abc" }],
    missing: [404, ["body field /amount is 41, stub wants 42"]],
  });
  // The page's reset attempts were refused: the hits are still there.
  const report = await mock.report();
  assert.deepEqual(report.stubs.map((s) => s.hit_count), [1, 1]);
  assert.equal(report.summary.unmatched_requests, 1);
});
