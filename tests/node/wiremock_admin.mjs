// The WireMock admin API of the installed npm package on Node, driven by wiremock-captain
// (WireMock's npm client) as a user's Jest or node:test suite would: stub, call, verify, reset.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { WireMock } from "wiremock-captain";
import { installedPackage } from "./_package.mjs";

/** @type {typeof import("../../mod.ts")} */
let api;

before(async () => {
  ({ api } = await installedPackage());
});

describe("WireMock admin API (npm package, Node)", () => {
  it("wiremock-captain stubs, verifies and resets a stubtool server", async () => {
    const server = await api.stubServer(0);
    try {
      const mock = new WireMock(server.url);
      const features = { requestEndpointFeature: "urlPath", requestIgnoreExtraElements: true };
      const created = await mock.register(
        { method: "POST", endpoint: "/users", body: { name: "ada" } },
        { status: 201, body: { id: 1 } },
        features,
      );
      const answer = await fetch(`${server.url}/users`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "ada", extra: true }),
      });
      assert.deepEqual([answer.status, await answer.json()], [201, { id: 1 }]);
      const calls = await mock.getRequestsForAPI("POST", "/users");
      assert.equal(calls.length, 1);
      assert.equal(calls[0].stubMapping.id, created.id);
      assert.deepEqual((await mock.getAllMappings()).map((m) => m.id), [created.id]);
      await mock.clearAll();
      assert.deepEqual(await mock.getAllMappings(), []);
      assert.deepEqual(await mock.getAllRequests(), []);
      assert.equal((await fetch(`${server.url}/users`, { method: "POST", body: "{}" })).status, 404);
    } finally {
      await server.shutdown();
    }
  });

  it("wiremock-captain: priorities list first, metadata finds and removes, unmatched newest first, mappings reset empties the journal", async () => {
    const server = await api.stubServer(0);
    try {
      const mock = new WireMock(server.url);
      const low = await mock.register({ method: "GET", endpoint: "/a", metadata: { team: "x" } }, { status: 200 }, {
        stubPriority: 7,
      });
      const high = await mock.register({ method: "GET", endpoint: "/b", metadata: { team: "y" } }, { status: 200 }, {
        stubPriority: 1,
      });
      const plain = await mock.register({ method: "GET", endpoint: "/c" }, { status: 200 });
      assert.deepEqual((await mock.getAllMappings()).map((m) => m.id), [high.id, plain.id, low.id]);
      const found = await mock.findMappingByMetadata({ team: "x" }, "equalToJson");
      assert.deepEqual(found.map((m) => m.id), [low.id]);
      for (const path of ["/a", "/none/1", "/none/2"]) await (await fetch(`${server.url}${path}`)).body?.cancel();
      assert.deepEqual((await mock.getUnmatchedRequests()).map((r) => r.url), ["/none/2", "/none/1"]);
      const calls = await mock.getRequestsForAPI("GET", "/a");
      assert.equal(calls[0].stubMapping.id, low.id);
      assert.deepEqual(await mock.removeMappingByMetadata({ team: "x" }, "equalToJson"), {});
      assert.deepEqual((await mock.getAllMappings()).map((m) => m.id), [high.id, plain.id]);
      await mock.resetMappings();
      assert.deepEqual(await mock.getAllRequests(), []);
    } finally {
      await server.shutdown();
    }
  });
});
