import assert from "node:assert/strict";
import { checkCallbackUrl, validateCallbacks } from "../src/stubs/callback_field.ts";

const LITERAL = (url: string) =>
  `url must write the scheme, host and port out (a {name} or {{…}} may fill only the path and query), got ${
    JSON.stringify(url)
  }`;

Deno.test("checkCallbackUrl: placeholders and templates may fill the path and query", () => {
  for (
    const url of [
      "http://hooks.example/orders",
      "https://hooks.example:8443/orders/{id}?status={status}",
      "HTTP://127.0.0.1:9000/{{request.pathSegments.[1]}}",
      "http://hooks.example?{q}",
      "http://hooks.example#{frag}",
      "http://user:pw@hooks.example/x",
      "http://[::1]:8080/{id}",
      "http://hooks.example",
    ]
  ) {
    assert.equal(checkCallbackUrl(url), undefined, url);
  }
});

Deno.test("checkCallbackUrl: a placeholder or template in the scheme, host or port is refused", () => {
  for (
    const url of [
      "http://{host}/orders",
      "http://hooks.example:{port}/orders",
      "http://{{request.headers.host}}/orders",
      "http://hooks.{{env}}.example/x",
      "http://hooks.example{path}",
      "http://hooks.example{{request.path}}",
      "http://user@{host}/x",
    ]
  ) {
    assert.equal(checkCallbackUrl(url), LITERAL(url), url);
  }
  assert.equal(
    checkCallbackUrl("{{request.headers.callback}}/x"),
    'url must start with http:// or https:// followed by the host, got "{{request.headers.callback}}/x"',
  );
});

Deno.test("regression: a URL with no literal host cannot take it from the path (http:///{host} parses with host {host})", () => {
  // The URL parser reads `http:///evil.example/x` as host evil.example.
  assert.equal(checkCallbackUrl("http:///{host}/x"), 'url must name a host after http://, got "http:///{host}/x"');
  assert.equal(checkCallbackUrl("http://\\{host}/x"), 'url must name a host after http://, got "http://\\\\{host}/x"');
});

Deno.test("checkCallbackUrl: only http and https, no control characters, a valid URL", () => {
  assert.equal(
    checkCallbackUrl("file:///etc/passwd"),
    'url must start with http:// or https:// followed by the host, got "file:///etc/passwd"',
  );
  assert.equal(
    checkCallbackUrl(" http://hooks.example/"),
    'url must start with http:// or https:// followed by the host, got " http://hooks.example/"',
  );
  assert.equal(
    checkCallbackUrl("http://hooks.example/\n{id}"),
    'url must not contain control characters (tab, CR, LF…), got "http://hooks.example/\\n{id}"',
  );
  assert.equal(checkCallbackUrl("http://hooks example/"), 'url is not a valid URL, got "http://hooks example/"');
  assert.equal(
    checkCallbackUrl("http://hooks.example:99999/"),
    'url is not a valid URL, got "http://hooks.example:99999/"',
  );
});

Deno.test("validateCallbacks: sound callbacks come back checked, with delay_ms as delayMs", () => {
  assert.deepEqual(
    validateCallbacks([
      { method: "post", url: "http://hooks.example/orders/{id}", headers: { "x-n": 5 }, body: { id: "{id}" } },
      { method: "GET", url: "https://hooks.example/ping", delay_ms: 250 },
      { method: "PUT", url: "https://hooks.example/text", body: "plain {id}", delay_ms: 0 },
    ]),
    {
      callbacks: [
        {
          method: "POST",
          url: "http://hooks.example/orders/{id}",
          // Headers come as validate.ts makes them: a mapping without a prototype.
          headers: Object.assign(Object.create(null), { "x-n": "5" }),
          body: { id: "{id}" },
        },
        { method: "GET", url: "https://hooks.example/ping", delayMs: 250 },
        { method: "PUT", url: "https://hooks.example/text", body: "plain {id}" },
      ],
      problems: [],
    },
  );
});

Deno.test("validateCallbacks: every problem, placed at its entry, unknown fields with a did-you-mean", () => {
  assert.deepEqual(
    validateCallbacks([
      { method: "POST", urll: "http://hooks.example/x" },
      { method: "ANY", url: "http://{host}/x", delay_ms: -1 },
      { method: 5, url: 7, headers: { "content-length": "3", "x-ok": "a\nb" }, body: () => 1 },
      "http://hooks.example",
      { url: "http://hooks.example/x", delay_ms: 1.5 },
    ]),
    {
      callbacks: [],
      problems: [
        { place: "callbacks[0]", message: "unknown field 'urll' (did you mean 'url'?)" },
        { place: "callbacks[0]", message: "url is required: the http:// or https:// address to call" },
        {
          place: "callbacks[1]",
          message: 'method must be a method, got "ANY" (allowed: DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)',
        },
        { place: "callbacks[1]", message: LITERAL("http://{host}/x") },
        { place: "callbacks[1]", message: "delay_ms must be whole milliseconds from 0 to 2147483647, got -1" },
        {
          place: "callbacks[2]",
          message: "method must be a method, got 5 (allowed: DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)",
        },
        { place: "callbacks[2]", message: "url must be a string, got 7" },
        { place: "callbacks[2]", message: "headers.content-length is set by the server itself; remove it" },
        { place: "callbacks[2]", message: "headers.x-ok must not contain CR, LF, NUL or other control characters" },
        { place: "callbacks[2]", message: "body is a function, which JSON cannot hold" },
        {
          place: "callbacks[3]",
          message: 'must be a mapping like {method: POST, url: http://hooks.example/x}, got "http://hooks.example"',
        },
        {
          place: "callbacks[4]",
          message: "method is required (allowed: DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT)",
        },
        { place: "callbacks[4]", message: "delay_ms must be whole milliseconds from 0 to 2147483647, got 1.5" },
      ],
    },
  );
});

Deno.test("validateCallbacks: the field must be a non-empty list", () => {
  for (const [value, shown] of [[[], "a list"], [{ url: "x" }, "a mapping"], ["http://x", '"http://x"']] as const) {
    assert.deepEqual(validateCallbacks(value), {
      callbacks: [],
      problems: [{
        place: "callbacks",
        message: `must be a non-empty list of callbacks ({method, url, headers, body, delay_ms}), got ${shown}`,
      }],
    });
  }
});
