// The dashboard with --admin-token in real headless Chromium: opened once with ?token=, it
// lands on the page and its live updates carry the token's cookie (no 401, new requests show).
import assert from "node:assert/strict";
import { get, stubServer } from "../../mod.ts";
import { launch } from "./_browser.ts";

Deno.test("dashboard with an admin token: ?token= once, then the page and its updates work; without it, 401", async () => {
  await using server = await stubServer(0, { adminToken: "s3cret" });
  server.routes(get("/users/{id}").body({ id: "{id}" }));
  await using browser = await launch();
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  // Failed loads by URL: the 401 page (JSON) makes the browser ask for /favicon.ico, a 404 not ours.
  page.on("response", (response) => {
    const path = new URL(response.url()).pathname;
    if (response.status() >= 400 && path !== "/favicon.ico") errors.push(`${response.status()} ${path}`);
  });

  const denied = await page.goto(`${server.url}/__stubtool__/`);
  assert.equal(denied?.status(), 401);
  errors.length = 0; // that 401 was asked for

  const opened = await page.goto(`${server.url}/__stubtool__/?token=s3cret`);
  assert.equal(opened?.status(), 200);
  assert.equal(new URL(page.url()).search, "", "the token is not left in the address bar");
  await (await fetch(`${server.url}/users/7`)).body?.cancel();
  // Polled from outside: the page's CSP rightly refuses the evaluated functions waitForFunction uses.
  const deadline = performance.now() + 10_000;
  while (!(await page.evaluate('document.body.textContent.includes("/users/7")'))) {
    assert.ok(performance.now() < deadline, "the new request never showed on the page");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(errors, []);
  const cookies = await browser.context.cookies(`${server.url}/__stubtool__/`);
  assert.deepEqual(cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.path]), [
    ["stubtool_admin_token", true, "Strict", "/__stubtool__"],
  ]);
});
