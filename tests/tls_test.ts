/**
 * HTTPS on both adapters: a self-signed certificate made at start that a client
 * trusting its PEM accepts for localhost and 127.0.0.1, certificate files, and HTTP/2 over
 * TLS with `curl --http2` where curl is there.
 */
import assert from "node:assert/strict";
import { get, stubServer } from "../mod.ts";
import { selfSignedCertificate } from "../src/server/tls.ts";
import { ADAPTERS } from "./_http.ts";

/** curl as a subprocess (a TLS client of its own): its output and the HTTP version it spoke. */
async function curl(url: string, ca: string, ...args: string[]): Promise<{ body: string; version: string }> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/ca.pem`, ca);
    const { code, stdout, stderr } = await new Deno.Command("curl", {
      args: ["-sS", "--cacert", `${dir}/ca.pem`, "-w", "\n%{http_version}", ...args, url],
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    const text = new TextDecoder().decode(stdout);
    const cut = text.lastIndexOf("\n");
    return { body: text.slice(0, cut), version: text.slice(cut + 1) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] tls: "self-signed" serves https; a client trusting the certificate talks to it, HTTP/2 and HTTP/1.1`, async () => {
    await using server = await stubServer(0, { adapter, tls: "self-signed" });
    server.routes(
      get("/users/{id}").body({ id: "{id}" }),
      get("/cookies").header("set-cookie", ["a=1", "b=2"]).body("c"),
    );
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(server.certificate!, /^-----BEGIN CERTIFICATE-----\n/);
    const client = Deno.createHttpClient({ caCerts: [server.certificate!] });
    try {
      for (const host of ["127.0.0.1", "localhost"]) {
        const response = await fetch(`https://${host}:${server.getPort()}/users/7`, { client });
        assert.deepEqual(await response.json(), { id: "7" }, host);
      }
      const h2 = await curl(`https://localhost:${server.getPort()}/users/8`, server.certificate!, "--http2");
      assert.deepEqual([JSON.parse(h2.body), h2.version], [{ id: "8" }, "2"]);
      const h1 = await curl(`https://localhost:${server.getPort()}/users/9`, server.certificate!, "--http1.1");
      assert.deepEqual([JSON.parse(h1.body), h1.version], [{ id: "9" }, "1.1"]);
      const cookies = await fetch(`${server.url}/cookies`, { client });
      await cookies.body?.cancel();
      assert.deepEqual(cookies.headers.getSetCookie(), ["a=1", "b=2"]);
      assert.equal((await server.report()).stubs[0].hit_count, 4);
    } finally {
      client.close();
    }
    // A client that does not trust it refuses to talk.
    await assert.rejects(fetch(`${server.url}/users/1`));
  });

  Deno.test(`[${adapter}] tls: a certificate and key given as PEM`, async () => {
    const files = await selfSignedCertificate();
    await using server = await stubServer(0, { adapter, tls: files });
    server.routes(get("/ok").body("ok"));
    const client = Deno.createHttpClient({ caCerts: [files.cert] });
    try {
      assert.equal(await (await fetch(`${server.url}/ok`, { client })).json(), "ok");
    } finally {
      client.close();
    }
  });
}
