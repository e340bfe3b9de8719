import assert from "node:assert/strict";
import {
  compileJsonTemplate,
  compileStatusTemplate,
  compileTemplate,
  HELPER_NAMES,
  TemplateError,
  type TemplateModel,
  TemplateSyntaxError,
} from "../src/templating/handlebars.ts";
import { templateModel, type TemplateRequest } from "../src/server/answers/template_model.ts";
import { loadTemplating } from "../src/templating/engine.ts";

// These call the synchronous checks directly: the template engine they use is loaded first.
await loadTemplating();

/** A request as the fixture writes it: method, path with query, headers and body. */
interface FixtureRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface FixtureCase {
  name: string;
  template: string;
  request: FixtureRequest;
  status: number;
  body?: string;
  pattern?: string;
}

const fixture: { wiremock: string; cases: FixtureCase[] } = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/handlebars_wiremock.json", import.meta.url)),
);

/** Builds the model for a request sent to `host` (the recorder sent each case under `/c<index>`). */
function modelOf(
  request: FixtureRequest,
  params: Record<string, string> = {},
  host = "127.0.0.1:18080",
): TemplateModel {
  const query = request.path.indexOf("?");
  const headers: Record<string, string> = { host };
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  const source: TemplateRequest = {
    method: request.method,
    target: request.path,
    pathname: query === -1 ? request.path : request.path.slice(0, query),
    rawQuery: query === -1 ? "" : request.path.slice(query + 1),
    scheme: "http",
    header: (name) => headers[name] ?? null,
    headers: () => headers,
    bodyText: () => request.body ?? "",
    params,
  };
  return templateModel(source);
}

/** Where stubtool answers differently from WireMock on purpose, and what it answers (`500 helper: message` for a failure). */
const DIFFERENCES: Record<string, { ours: string; why: string }> = {
  "lookup __proto__": {
    ours: "[]",
    why: "WireMock prints its Java request object's name; stubtool's prototype guards give nothing",
  },
  "jsonPath deep scan": {
    ours: "[1,2,3]",
    why: "Jayway adds a null for every object without the key; jsonpath-plus lists only what exists",
  },
  "math not a number": {
    ours: '500 math: math: "x" is not a number',
    why: "WireMock reads text that is not a number as 0 and answers a made-up number; stubtool answers 500",
  },
  "math not a number right": {
    ours: '500 math: math: "x" is not a number',
    why: "as above",
  },
  "math spaces": {
    ours: '500 math: math: " 4 " is not a number',
    why: "BigDecimal refuses the spaces and WireMock silently uses 0; stubtool answers 500",
  },
  "math unknown operator": {
    ours: `500 math: math: unknown operator "^" (use '+', '-', '*', '/' or '%')`,
    why: "WireMock prints an [ERROR: …] text into a 200 answer; stubtool answers 500",
  },
  "math long overflow": {
    ours: "9223372036854775808",
    why: "WireMock turns a whole result into a Java long, which wraps past 2^63; stubtool prints the exact value",
  },
  "math big product": {
    ours: `${"9".repeat(299)}8${"0".repeat(299)}1`,
    why: "WireMock's long wraps (it prints 1); stubtool prints the exact product",
  },
  "math big decimal product": {
    ours: `14${"9".repeat(298)}8.5`,
    why: "WireMock prints the double 1.5E300 (digits lost); stubtool prints the exact product",
  },
};

/** What stubtool renders, or `500 helper: message` when rendering fails as a request would. */
function outcome(template: string, model: TemplateModel): string {
  try {
    return compileTemplate(template).render(model);
  } catch (e) {
    if (!(e instanceof TemplateError)) throw e;
    return `500 ${e.helper}: ${e.message}`;
  }
}

for (const [index, c] of fixture.cases.entries()) {
  Deno.test(`same as WireMock ${fixture.wiremock}: ${c.name}`, () => {
    const request = { ...c.request, path: `/c${index}${c.request.path}` };
    const out = outcome(c.template, modelOf(request));
    const difference = DIFFERENCES[c.name];
    if (difference) {
      assert.notEqual(c.body, difference.ours, "WireMock now agrees: drop the difference");
      assert.equal(out, difference.ours);
    } else if (c.status !== 200) {
      // WireMock answers 500 with a Java exception; stubtool a 500 naming the helper.
      assert.equal(c.status, 500);
      assert.match(out, /^500 [a-zA-Z]+: /);
    } else if (c.pattern !== undefined) {
      assert.match(c.body ?? "(sample) " + (c as { sample?: string }).sample, /.*/);
      assert.match(out, new RegExp(c.pattern));
    } else assert.equal(out, c.body);
  });
}

Deno.test("the WireMock fixture's random and clock cases match their own patterns (the recording is sound)", () => {
  for (const c of fixture.cases as (FixtureCase & { sample: string })[]) {
    if (c.pattern !== undefined) assert.match(c.sample, new RegExp(c.pattern), c.name);
  }
});

// --- request model -----------------------------------------------------------------------

function render(template: string, request: Partial<FixtureRequest> = {}, params: Record<string, string> = {}): string {
  return compileTemplate(template).render(modelOf({ method: "GET", path: "/", ...request }, params));
}

Deno.test("model: params are the stub's captures", () => {
  assert.equal(render("{{params.id}}/{{params.q}}", {}, { id: "7", q: "x y" }), "7/x y");
});

Deno.test("model: request.json is the parsed body, null when the body is not JSON", () => {
  assert.equal(render("{{request.json.owner.name}}", { body: '{"owner":{"name":"Bo"}}' }), "Bo");
  assert.equal(render("[{{request.json}}]", { body: "not json" }), "[]");
  assert.equal(render("{{#if request.json}}y{{else}}n{{/if}}", { body: "" }), "n");
});

Deno.test("model: header names are read in any case, query names are not", () => {
  assert.equal(render("{{request.headers.CONTENT-type}}", { headers: { "Content-Type": "text/plain" } }), "text/plain");
  assert.equal(render("[{{request.query.A}}]", { path: "/?a=1" }), "[]");
});

Deno.test("model: the body is not read unless the template reads it", () => {
  let reads = 0;
  const model = templateModel({
    method: "GET",
    target: "/a?x=1",
    pathname: "/a",
    rawQuery: "x=1",
    scheme: "http",
    header: () => null,
    headers: () => {
      throw new Error("headers read");
    },
    bodyText: () => {
      reads++;
      return "{}";
    },
    params: {},
  });
  assert.equal(compileTemplate("{{request.path}} {{request.query.x}}").render(model), "/a 1");
  assert.equal(reads, 0);
  assert.equal(
    compileTemplate("{{request.body}}{{jsonPath request.body '$'}}{{request.json}}").render(model),
    "{}{ }[object Object]",
  );
  assert.equal(reads, 1, "the body text is read once per request");
});

Deno.test("compileTemplate: readsBody says whether rendering may need the request body", () => {
  assert.equal(compileTemplate("{{request.path}} {{params.id}} {{now}}").readsBody, false);
  assert.equal(compileTemplate("{{jsonPath request.body '$.a'}}").readsBody, true);
  assert.equal(compileTemplate("{{request.json.a}}").readsBody, true);
  assert.equal(compileTemplate("{{#with request}}{{body}}{{/with}}").readsBody, true);
  assert.equal(compileTemplate("{{lookup request 'body'}}").readsBody, true);
  assert.equal(compileTemplate("no template here").readsBody, false);
});

// --- security: request data stays data -------------------------------------------------

Deno.test("security: template syntax in the path, query, headers and body comes back as text", () => {
  const request = {
    path: "/%7B%7Brequest.method%7D%7D?q=%7B%7B%23each%20request%7D%7Dx%7B%7B%2Feach%7D%7D",
    headers: { "x-t": "{{constructor.constructor 'return 1'}}" },
    body: "{{> partial}}{{#with request}}{{method}}{{/with}}",
  };
  assert.equal(render("{{request.path}}", request), "/{{request.method}}");
  assert.equal(render("{{request.query.q}}", request), "{{#each request}}x{{/each}}");
  assert.equal(render("{{request.headers.x-t}}", request), "{{constructor.constructor 'return 1'}}");
  assert.equal(render("{{request.body}}", request), "{{> partial}}{{#with request}}{{method}}{{/with}}");
  assert.equal(render("{{jsonPath request.body '$'}}", request), "");
});

Deno.test("security: __proto__ and constructor in request data are plain names", () => {
  const request = {
    path: "/__proto__/constructor?__proto__=x&constructor=y",
    headers: { "__proto__": "h" },
    body: '{"__proto__":{"polluted":1},"constructor":{"prototype":2}}',
  };
  assert.equal(
    render("{{request.pathSegments.[0]}} {{request.query.__proto__}} {{request.query.constructor}}", request),
    "__proto__ x y",
  );
  assert.equal(render("{{request.json.__proto__.polluted}} {{request.json.constructor.prototype}}", request), "1 2");
  assert.equal(render("{{jsonPath request.body '$.__proto__.polluted'}}", request), "1");
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(render("[{{request.headers.__proto__}}]", request), "[]");
});

Deno.test("security: templates cannot reach constructors or prototypes", () => {
  for (
    const template of [
      "{{constructor.constructor}}",
      "{{request.constructor.constructor}}",
      "{{lookup request '__proto__'}}",
      "{{lookup (lookup request 'constructor') 'constructor'}}",
      "{{request.query.constructor}}",
      "{{request.headers.constructor}}",
      "{{request.path.constructor}}",
      "{{#with request.__proto__}}{{constructor}}{{/with}}",
      "{{jsonPath request.body '$.constructor'}}",
      '{{jsonPath request.body "$[?(@.constructor)]"}}',
    ]
  ) {
    assert.equal(render(template, { path: "/?a=1", body: "{}" }), template.includes("[?(") ? "[]" : "", template);
  }
});

Deno.test("security: a JSONPath filter is read, never run as JavaScript", () => {
  assert.throws(
    () => render('{{jsonPath request.body "$[?(globalThis.x = 1)]"}}', { body: "[1]" }),
    (e) => e instanceof TemplateError && e.helper === "jsonPath" && /filter/.test(e.message),
  );
  assert.equal((globalThis as Record<string, unknown>).x, undefined);
});

Deno.test("security: no helper reaches the file system, environment or console", () => {
  for (const name of ["log", "lookupFile", "env", "readFile", "include", "systemValue", "hostname"]) {
    assert.ok(!HELPER_NAMES.includes(name), name);
    assert.throws(() => compileTemplate(`{{${name} 'x'}}`), /unknown helper/);
  }
  assert.throws(() => compileTemplate("{{> file}}"), /partials .* are not supported/);
  assert.throws(() => compileTemplate("{{#*inline 'x'}}y{{/inline}}"), /decorators .* are not supported/);
});

// --- load-time errors --------------------------------------------------------------------

Deno.test("compileTemplate: a template that cannot run is a one-line SyntaxError with its line and column", () => {
  const cases: [string, string][] = [
    ["{{#if a}}x{{/each}}", "line 1, column 4: if doesn't match each"],
    [
      "a\n{{foo bar=}}",
      'line 2: expected OPEN_SEXPR, ID, STRING, NUMBER, BOOLEAN, UNDEFINED, NULL, DATA, got CLOSE, near "a{{foo bar=}}"',
    ],
    ["x {{nope 1}}", "line 1, column 3: unknown helper 'nope' (did you mean 'ne'?)"],
    ["{{zzzzzz 1}}", "line 1, column 1: unknown helper 'zzzzzz' (allowed: " + HELPER_NAMES.join(", ") + ")"],
    [
      "{{now timezone='Mars/Base'}}",
      'line 1, column 1: now: unknown time zone "Mars/Base" (use an IANA name such as "Europe/Paris")',
    ],
    ["{{now format='yyyy-qq'}}", "line 1, column 1: now: date format \"yyyy-qq\": letter 'q' is not supported"],
    [
      "{{now offset='soon'}}",
      "line 1, column 1: now: offset \"soon\": write a number and a unit, e.g. '3 days' or '-90 minutes'",
    ],
    ["{{math 1 '^' 2}}", "line 1, column 1: math: unknown operator \"^\" (use '+', '-', '*', '/' or '%')"],
    [
      "{{randomValue type='WORDS'}}",
      'line 1, column 1: randomValue: unknown type "WORDS" (use one of ALPHANUMERIC, ALPHABETIC, NUMERIC, HEXADECIMAL, ALPHANUMERIC_AND_SYMBOLS, UUID)',
    ],
  ];
  for (const [template, message] of cases) {
    assert.throws(() => compileTemplate(template), (e) => {
      assert.ok(e instanceof SyntaxError, template);
      assert.equal((e as Error).message, message);
      assert.ok(!(e as Error).message.includes("\n"));
      return true;
    });
  }
});

Deno.test("compileJsonTemplate: a bad leaf names its place inside the body", () => {
  assert.throws(() => compileJsonTemplate({ items: [{ ok: "x" }, { name: "{{#if}}" }] }), (e) => {
    assert.ok(e instanceof TemplateSyntaxError);
    assert.equal(e.path, ".items[1].name");
    assert.match(e.message, /^items\[1\]\.name: line 1: /);
    return true;
  });
  assert.throws(
    () => compileJsonTemplate({ "a b": "{{nope 1}}" }),
    (e) => (e as TemplateSyntaxError).path === '["a b"]',
  );
});

// --- rendering bodies, status, errors ----------------------------------------------------

Deno.test("compileJsonTemplate: string leaves render as JSON strings, keys and other values stay", () => {
  const template = compileJsonTemplate({ "{{k}}": "{{params.id}}", n: 1, list: ["{{request.query.q}}", null, true] });
  assert.equal(template.dynamic, true);
  const out = template.render(modelOf({ method: "GET", path: "/?q=%22%3C%0A" }, { id: "7" }));
  assert.equal(out, '{"{{k}}":"7","n":1,"list":["\\"<\\n",null,true]}');
  assert.deepEqual(JSON.parse(out).list[0], '"<\n');
});

Deno.test("compileJsonTemplate: a body without templates is its JSON text", () => {
  const template = compileJsonTemplate({ a: "plain", b: [1] });
  assert.equal(template.dynamic, false);
  assert.equal(template.render(modelOf({ method: "GET", path: "/" })), '{"a":"plain","b":[1]}');
});

Deno.test("compileStatusTemplate: a status written as a string template renders to a code", () => {
  assert.equal(compileStatusTemplate(201).render(modelOf({ method: "GET", path: "/" })), 201);
  assert.equal(compileStatusTemplate("404").render(modelOf({ method: "GET", path: "/" })), 404);
  const status = compileStatusTemplate("{{request.query.code}}");
  assert.equal(status.render(modelOf({ method: "GET", path: "/?code=418" })), 418);
  assert.throws(
    () => status.render(modelOf({ method: "GET", path: "/?code=abc" })),
    (e) => e instanceof TemplateError && e.message === 'status rendered to "abc", not a status code from 100 to 599',
  );
  assert.throws(() => compileStatusTemplate("2OO"), /must be a status code from 100 to 599, got "2OO"/);
});

Deno.test("render: a helper failing at request time throws TemplateError naming the helper", () => {
  const cases: [string, Partial<FixtureRequest>, string, string][] = [
    ["{{math 1 '/' request.query.d}}", { path: "/?d=0" }, "math", "math: division by zero"],
    [
      "{{now timezone=request.query.tz}}",
      { path: "/?tz=Nowhere" },
      "now",
      'now: unknown time zone "Nowhere" (use an IANA name such as "Europe/Paris")',
    ],
    [
      "{{base64 request.query.b decode=true}}",
      { path: "/?b=%25%25" },
      "base64",
      'base64: "%%" is not base64 text',
    ],
  ];
  for (const [template, request, helper, message] of cases) {
    assert.throws(() => render(template, request), (e) => {
      assert.ok(e instanceof TemplateError, template);
      assert.equal(e.helper, helper);
      assert.equal(e.message, message);
      return true;
    });
  }
});

Deno.test("render: a template without {{ is returned as written, without Handlebars", () => {
  const template = compileTemplate("plain {text} \\{{ }");
  assert.equal(template.dynamic, true);
  const plain = compileTemplate("plain {id} text");
  assert.equal(plain.dynamic, false);
  assert.equal(plain.render(modelOf({ method: "GET", path: "/" })), "plain {id} text");
});

// --- helpers beyond the WireMock recording --------------------------------------------------

Deno.test("now: offsets move the date by calendar units, formats follow SimpleDateFormat", () => {
  const year = new Date().getUTCFullYear();
  assert.equal(render("{{now offset='1 years' format='yyyy'}}"), String(year + 1));
  const epoch = Number(render("{{now format='epoch'}}"));
  const shifted = Number(render("{{now offset='-90 minutes' format='epoch'}}"));
  assert.ok(Math.abs(epoch - shifted - 90 * 60_000) < 60_000);
  assert.match(
    render("{{now format=\"yyyy-MM-dd'T'HH:mm:ss.SSSXXX\" timezone='UTC'}}"),
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
  );
  assert.match(render("{{now format='hh:mm a' timezone='Asia/Kolkata'}}"), /^(0\d|1[0-2]):\d\d (AM|PM)$/);
});

Deno.test("jsonPath: a default when the path finds nothing", () => {
  assert.equal(render("{{jsonPath request.body '$.x' default='none'}}", { body: "{}" }), "none");
});

Deno.test("model: the getters templates may read are exactly the request model's getters", async () => {
  const { MODEL_GETTERS } = await import("../src/templating/handlebars.ts");
  const request = Object.getPrototypeOf(modelOf({ method: "GET", path: "/" }).request);
  const getters = Object.entries(Object.getOwnPropertyDescriptors(request)).filter(([, d]) => d.get !== undefined);
  assert.deepEqual(getters.map(([name]) => name).sort(), [...MODEL_GETTERS].sort());
});

Deno.test("security: the prototype guards hold on every render, not only the first (helpers are set up once)", () => {
  const template = compileTemplate("[{{request.constructor.constructor}}{{lookup request 'text'}}{{request.parse}}]");
  for (let i = 0; i < 3; i++) assert.equal(template.render(modelOf({ method: "GET", path: "/" })), "[]");
});

Deno.test("helpers: unless, symbols, and a literal 10.0 read as 10 by Handlebars", () => {
  assert.equal(render("{{#unless request.query.a}}none{{/unless}}"), "none");
  assert.match(render("{{randomValue length=40 type='ALPHANUMERIC_AND_SYMBOLS'}}"), /^[!-~]{40}$/);
  assert.equal(render("{{math 10.0 '/' 4}}"), "3");
  assert.equal(render("{{math '10.0' '/' 4}}"), "2.5");
});

Deno.test("model: request.path.[n] is the n-th segment and request.path.NAME a path placeholder as sent, as in WireMock", () => {
  const request: TemplateRequest = {
    method: "GET",
    target: "/users/a%20b/x?q=1",
    pathname: "/users/a%20b/x",
    rawQuery: "q=1",
    scheme: "http",
    header: () => null,
    headers: () => ({}),
    bodyText: () => "",
    params: { id: "a b" },
    pathParams: { id: "a%20b" },
  };
  const out = compileTemplate(
    "{{request.path}}|{{request.path.[0]}}|{{request.path.[2]}}|{{request.path.id}}|{{request.path.nope}}|{{params.id}}",
  ).render(templateModel(request));
  assert.equal(out, "/users/a b/x|users|x|a%20b||a b");
  // Without placeholders (a stub whose path has none) the names render empty.
  assert.equal(render("[{{request.path.id}}]", { path: "/users/7" }), "[]");
});

Deno.test("jsonPath: Jayway's length() gives the size of a list, a text or an object", () => {
  const body = '{"items":[1,2,3],"name":"abcd","o":{"a":1,"b":2},"people":[{"n":1},{"n":2}]}';
  assert.equal(
    render(
      "{{jsonPath request.body '$.items.length()'}} {{jsonPath request.body '$.name.length()'}} " +
        "{{jsonPath request.body '$.o.length()'}} {{jsonPath request.body '$.people[*].n.length()'}} " +
        "[{{jsonPath request.body '$.missing.length()'}}]",
      { body },
    ),
    "3 4 2 2 []",
  );
});

Deno.test("handlebars-java string helpers as WireMock 3 ships them (defaultIfEmpty, abbreviate, center, …)", () => {
  const cases: [string, string, Partial<FixtureRequest>?][] = [
    ["{{defaultIfEmpty request.query.q 'none'}}", "none"],
    // A query parameter sent empty is a value (a list of one), as in WireMock: not empty.
    ["[{{defaultIfEmpty request.query.q 'none'}}]", "[]", { path: "/?q=" }],
    ["{{defaultIfEmpty '' 'd'}} {{defaultIfEmpty 'x' 'd'}}", "d x"],
    ["{{abbreviate 'Truncates a string' 10}}", "Truncat..."],
    ["{{abbreviate 'short' 10}}", "short"],
    ["{{capitalizeFirst 'hello world'}}", "Hello world"],
    ["{{center 'x' size=5 pad='*'}}|{{center 'ab' size=5}}|", "**x**| ab  |"],
    ["{{ljust 'x' size=4 pad='.'}} {{rjust 'x' size=4 pad='.'}} {{rjust 'long' size=2}}", "x... ...x long"],
    ["{{cut 'a b c' ' '}} {{cut 'a-b' '-'}}", "abc ab"],
    ["{{replace 'a-b-c' '-' '+'}}", "a+b+c"],
    ["{{substring 'hello' 1 3}} {{substring 'hello' 2}}", "el llo"],
    ["{{slugify 'Héllo, World  Again'}}", "hello-world-again"],
    ["{{stripTags '<b>bold</b> text'}}", "bold text"],
    ["{{yesno true}} {{yesno false}} {{yesno request.query.none}} {{yesno true yes='Y'}}", "yes no maybe Y"],
    ["{{stringFormat '%s-%d %%' 'a' 2}}", "a-2 %"],
    ["{{wordWrap 'one two three' 5}}", "one\ntwo\nthree"],
    ["{{wordWrap 'abcdefgh ij' 3}}", "abcdefgh\nij"],
  ];
  for (const [template, want, request] of cases) assert.equal(render(template, request), want, template);
  assert.throws(() => render("{{substring 'abc' 2 9}}"), /substring: 2\.\.9 is outside the text/);
  assert.throws(() => render("{{stringFormat '%x' 1}}"), /stringFormat: stubtool formats %s, %d and %% only/);
  assert.throws(() => render("{{abbreviate 'abcdef' 3}}"), /abbreviate: the width must be 4 or more/);
});
