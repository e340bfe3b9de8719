// README's first command, as a user runs it: `npm start` serves the bundled example. (Its
// `--port 0` is passed through npm to serve, so the test does not need port 8080 free.)
import assert from "node:assert/strict";
import { BANNER, ROOT } from "./_cli.ts";

Deno.test("npm start serves examples/stubs.yaml: the banner, a stub's answer, a clean stop on SIGTERM", async () => {
  // Its own process group, so the stop reaches serve as a terminal's Ctrl+C would (npm does not pass SIGTERM on).
  const child = new Deno.Command("setsid", {
    args: ["npm", "start", "--silent", "--", "--port", "0"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  const deadline = Date.now() + 60_000;
  while (!/^report: /m.test(out)) {
    assert.ok(Date.now() < deadline, `no banner within 60 s:\n${out}`);
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  const url = BANNER.exec(out)?.[1];
  assert.ok(url, out);
  assert.match(out, /^config: examples\/stubs\.yaml \(10 route\(s\)\)$/m);
  const answer = await fetch(`${url}/users/1`);
  assert.equal(answer.status, 200);
  await answer.body?.cancel();
  Deno.kill(-child.pid, "SIGTERM");
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      out += value;
    }
  })();
  const [status] = await Promise.all([child.status, rest, child.stderr.cancel()]);
  assert.equal(status.success || status.signal === "SIGTERM", true, `npm start ended with ${JSON.stringify(status)}`);
  assert.match(out, /^stopped: \d+\/10 stubs exercised, 0 unmatched request\(s\)$/m, "serve stopped cleanly");
});
