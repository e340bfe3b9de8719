/**
 * Records what WireMock's response templates print, as golden answers for
 * tests/handlebars_test.ts. Run WireMock 3 on loopback first, e.g.
 *
 *     java -jar node_modules/wiremock/build/wiremock-standalone-3.13.2.jar \
 *       --port 18080 --bind-address 127.0.0.1 --root-dir /tmp/wm-hb --disable-banner
 *
 * then `deno run -A scripts/record_handlebars_wiremock.ts http://127.0.0.1:18080`.
 * Each case becomes one mapping with `"transformers": ["response-template"]`; the request
 * is sent and the body WireMock answers is written to tests/fixtures/handlebars_wiremock.json.
 * Cases whose output is random or depends on the clock carry a `pattern` the test checks by.
 * @module
 */

interface Case {
  name: string;
  template: string;
  request?: { method?: string; path?: string; headers?: Record<string, string>; body?: string };
  /** A regular expression the output must match, for random and clock-dependent helpers. */
  pattern?: string;
}

const json = JSON.stringify({
  id: 7,
  name: "Ada",
  price: 12.5,
  ok: true,
  none: null,
  kind: "x",
  tags: ["a", "b"],
  owner: { id: 1, name: "Bo" },
  items: [{ kind: "x", n: 1 }, { kind: "y", n: 2 }, { kind: "x", n: 3 }],
});
const jsonRequest = { method: "POST", headers: { "content-type": "application/json" }, body: json };

const cases: Case[] = [
  { name: "request.method", template: "{{request.method}}", request: { method: "PUT" } },
  { name: "request.url", template: "{{request.url}}", request: { path: "/a/b?x=1&y=%20z" } },
  { name: "request.path", template: "{{request.path}}", request: { path: "/a/b?x=1" } },
  { name: "request.path encoded", template: "{{request.path}}", request: { path: "/a%20b/c?x=1" } },
  { name: "request.pathSegments", template: "{{request.pathSegments.[0]}}|{{request.pathSegments.[1]}}" },
  { name: "request.pathSegments missing", template: "[{{request.pathSegments.[9]}}]" },
  { name: "request.query first", template: "{{request.query.a}}", request: { path: "/q?a=1&a=2&b=x" } },
  { name: "request.query second", template: "{{request.query.a.[1]}}", request: { path: "/q?a=1&a=2" } },
  { name: "request.query decoded", template: "{{request.query.a}}", request: { path: "/q?a=x%20y%26z" } },
  { name: "request.query plus", template: "{{request.query.a}}", request: { path: "/q?a=x+y" } },
  { name: "request.query missing", template: "[{{request.query.zz}}]", request: { path: "/q?a=1" } },
  {
    name: "request.query each",
    template: "{{#each request.query.a}}{{this}};{{/each}}",
    request: { path: "/q?a=1&a=2" },
  },
  { name: "request.query size", template: "{{size request.query.a}}", request: { path: "/q?a=1&a=2" } },
  { name: "request.headers lower", template: "{{request.headers.x-foo}}", request: { headers: { "X-Foo": "bar" } } },
  {
    name: "request.headers mixed case",
    template: "{{request.headers.X-Foo}}",
    request: { headers: { "x-foo": "bar" } },
  },
  { name: "request.headers missing", template: "[{{request.headers.x-none}}]" },
  { name: "request.headers.[n]", template: "{{request.headers.x-foo.[0]}}", request: { headers: { "x-foo": "bar" } } },
  {
    name: "request.cookies",
    template: "{{request.cookies.session}}",
    request: { headers: { cookie: "a=1; session=abc" } },
  },
  { name: "request.cookies missing", template: "[{{request.cookies.none}}]" },
  { name: "request.body", template: "{{request.body}}", request: { method: "POST", body: "hello body" } },
  { name: "request.body empty", template: "[{{request.body}}]" },
  { name: "request.scheme", template: "{{request.scheme}}" },
  { name: "request.host", template: "{{request.host}}" },
  { name: "request.port", template: "{{request.port}}" },
  { name: "request.baseUrl", template: "{{request.baseUrl}}" },
  { name: "no escaping in body", template: "{{request.query.x}}", request: { path: "/q?x=%3Cb%3E%26%22%27%3D%60" } },
  { name: "triple stash", template: "{{{request.query.x}}}", request: { path: "/q?x=%3Cb%3E%26" } },
  {
    name: "request data is not a template",
    template: "{{request.body}}",
    request: { method: "POST", body: "{{request.method}} {{#each x}}y{{/each}}" },
  },
  { name: "constructor.constructor", template: "[{{constructor.constructor}}]" },
  { name: "lookup __proto__", template: "[{{lookup request '__proto__'}}]" },
  { name: "request.__proto__", template: "[{{request.__proto__}}]" },
  { name: "jsonPath string", template: "{{jsonPath request.body '$.name'}}", request: jsonRequest },
  { name: "jsonPath integer", template: "{{jsonPath request.body '$.id'}}", request: jsonRequest },
  { name: "jsonPath decimal", template: "{{jsonPath request.body '$.price'}}", request: jsonRequest },
  { name: "jsonPath boolean", template: "{{jsonPath request.body '$.ok'}}", request: jsonRequest },
  { name: "jsonPath null", template: "[{{jsonPath request.body '$.none'}}]", request: jsonRequest },
  { name: "jsonPath object", template: "{{jsonPath request.body '$.owner'}}", request: jsonRequest },
  { name: "jsonPath array", template: "{{jsonPath request.body '$.tags'}}", request: jsonRequest },
  { name: "jsonPath array of objects", template: "{{jsonPath request.body '$.items'}}", request: jsonRequest },
  { name: "jsonPath missing", template: "[{{jsonPath request.body '$.nope'}}]", request: jsonRequest },
  { name: "jsonPath index", template: "{{jsonPath request.body '$.tags[1]'}}", request: jsonRequest },
  {
    name: "jsonPath filter on array",
    template: "{{jsonPath request.body \"$.items[?(@.kind == 'x')].n\"}}",
    request: jsonRequest,
  },
  {
    name: "jsonPath filter one result",
    template: "{{jsonPath request.body '$.items[?(@.n == 2)].kind'}}",
    request: jsonRequest,
  },
  {
    name: "jsonPath root filter on object",
    template: "{{jsonPath request.body \"$.[?(@.kind == 'x')].name\"}}",
    request: jsonRequest,
  },
  {
    name: "jsonPath root filter no match",
    template: "[{{jsonPath request.body \"$.[?(@.kind == 'q')].name\"}}]",
    request: jsonRequest,
  },
  { name: "jsonPath wildcard", template: "{{jsonPath request.body '$.items[*].n'}}", request: jsonRequest },
  { name: "jsonPath deep scan", template: "{{jsonPath request.body '$..n'}}", request: jsonRequest },
  { name: "jsonPath filter gt", template: "{{jsonPath request.body '$.items[?(@.n > 1)].n'}}", request: jsonRequest },
  {
    name: "jsonPath filter and",
    template: "{{jsonPath request.body \"$.items[?(@.kind == 'x' && @.n > 1)].n\"}}",
    request: jsonRequest,
  },
  {
    name: "jsonPath not json",
    template: "[{{jsonPath request.body '$.a'}}]",
    request: { method: "POST", body: "not json" },
  },
  { name: "jsonPath on parseJson", template: "{{jsonPath (parseJson request.body) '$.name'}}", request: jsonRequest },
  {
    name: "jsonPath with",
    template: "{{#with (jsonPath request.body '$.owner')}}{{name}}{{/with}}",
    request: jsonRequest,
  },
  { name: "math +", template: "{{math 1 '+' 2}}" },
  { name: "math -", template: "{{math 1 '-' 5}}" },
  { name: "math *", template: "{{math 3 '*' 4}}" },
  { name: "math / exact", template: "{{math 10 '/' 5}}" },
  { name: "math / inexact", template: "{{math 10 '/' 4}}" },
  { name: "math %", template: "{{math 7 '%' 3}}" },
  { name: "math decimal", template: "{{math 1.5 '*' 2}}" },
  { name: "math strings", template: "{{math '3' '+' '4'}}" },
  { name: "math decimal string", template: "{{math '10.0' '/' 4}}" },
  { name: "math decimal sum", template: "{{math '0.1' '+' '0.2'}}" },
  { name: "math integer division", template: "{{math 1 '/' 3}}" },
  { name: "math large decimal", template: "{{math 5000000 '*' '3.0'}}" },
  { name: "math on a capture", template: "{{math request.query.n '+' 1}}", request: { path: "/q?n=41" } },
  {
    name: "math not a number",
    template: "{{math request.query.a '/' request.query.b}}",
    request: { path: "/q?a=x&b=2" },
  },
  { name: "math not a number right", template: "{{math 5 '+' request.query.b}}", request: { path: "/q?b=x" } },
  { name: "math empty operand", template: "{{math request.query.none '+' 1}}", request: { path: "/q" } },
  { name: "math division by zero", template: "{{math 6 '/' 0}}" },
  { name: "math remainder by zero", template: "{{math 6 '%' 0}}" },
  { name: "math decimal division", template: "{{math '7.50' '/' '2'}}" },
  { name: "math decimal by decimal", template: "{{math '1' '/' '0.3'}}" },
  { name: "math negative half", template: "{{math '-5' '/' '2'}}" },
  { name: "math long", template: "{{math 2147483647 '+' 1}}" },
  { name: "math long overflow", template: "{{math '9223372036854775807' '+' '1'}}" },
  {
    name: "math big product",
    template: "{{math request.query.a '*' request.query.a}}",
    request: {
      path:
        "/q?a=999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999",
    },
  },
  {
    name: "math big decimal product",
    template: "{{math request.query.a '*' '1.5'}}",
    request: {
      path:
        "/q?a=999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999",
    },
  },
  { name: "math exponent", template: "{{math '1e3' '+' '1'}}" },
  { name: "math leading plus", template: "{{math '+4' '+' '.5'}}" },
  { name: "math spaces", template: "{{math ' 4 ' '+' 1}}" },
  { name: "math unknown operator", template: "{{math 4 request.query.op 1}}", request: { path: "/q?op=%5E" } },
  { name: "base64 encode", template: "{{base64 'hello world'}}" },
  { name: "base64 decode", template: "{{base64 'aGVsbG8gd29ybGQ=' decode=true}}" },
  { name: "base64 block", template: "{{#base64}}abc{{/base64}}" },
  { name: "urlEncode", template: "{{urlEncode 'a b&c=d/é'}}" },
  { name: "urlEncode decode", template: "{{urlEncode 'a+b%26c%3Dd' decode=true}}" },
  { name: "trim", template: "[{{trim '  x y  '}}]" },
  { name: "upper", template: "{{upper 'abc'}}" },
  { name: "lower", template: "{{lower 'ABC'}}" },
  { name: "capitalize", template: "{{capitalize 'hello world'}}" },
  { name: "capitalize keeps the rest", template: "{{capitalize 'hELLO wOrld'}}" },
  { name: "urlEncode java set", template: "{{urlEncode 'a~b*c'}}" },
  { name: "base64 no padding", template: "{{base64 'hi' padding=false}}" },
  { name: "toJson query", template: "{{toJson request.query}}", request: { path: "/q?a=1" } },
  { name: "formatJson empty and nested", template: `{{formatJson '{"a":{}, "b":[], "c":[{"d":1}]}'}}` },
  { name: "size string", template: "{{size 'abcd'}}" },
  { name: "size json array", template: "{{size (parseJson '[1,2,3]')}}" },
  { name: "join", template: `{{join (parseJson '["a","b","c"]') ','}}` },
  { name: "arrayJoin", template: "{{arrayJoin ',' (array 'a' 'b' 'c')}}" },
  { name: "arrayJoin prefix", template: "{{arrayJoin ', ' (array 1 2) prefix='[' suffix=']'}}" },
  { name: "join literals", template: "{{join '-' 'a' 'b' 'c'}}" },
  { name: "contains string", template: "{{contains 'abcdef' 'cd'}}" },
  { name: "contains false", template: "{{contains 'abcdef' 'zz'}}" },
  { name: "contains block", template: "{{#contains 'abcdef' 'cd'}}yes{{else}}no{{/contains}}" },
  { name: "eq", template: "{{#eq 'a' 'a'}}same{{else}}diff{{/eq}}" },
  { name: "eq inline", template: "{{eq 'a' 'b'}}" },
  { name: "eq number and string", template: "{{#eq 1 '1'}}same{{else}}diff{{/eq}}" },
  { name: "neq", template: "{{#neq 'a' 'b'}}diff{{else}}same{{/neq}}" },
  { name: "neq inline", template: "{{neq 1 2}}" },
  { name: "gt strings", template: "{{gt '10' '9'}}" },
  { name: "eq on a query list", template: "{{#eq request.query.a 'x'}}y{{else}}n{{/eq}}", request: { path: "/q?a=x" } },
  {
    name: "eq on a query value",
    template: "{{#eq request.query.a.[0] 'x'}}y{{else}}n{{/eq}}",
    request: { path: "/q?a=x" },
  },
  {
    name: "contains on a query list",
    template: "{{#contains request.query.a 'x'}}y{{else}}n{{/contains}}",
    request: { path: "/q?a=x" },
  },
  { name: "gt", template: "{{#gt 3 2}}yes{{else}}no{{/gt}}" },
  { name: "lt", template: "{{#lt 3 2}}yes{{else}}no{{/lt}}" },
  { name: "gte", template: "{{#gte 2 2}}yes{{else}}no{{/gte}}" },
  { name: "lte", template: "{{#lte 3 2}}yes{{else}}no{{/lte}}" },
  {
    name: "if eq subexpression",
    template: "{{#if (eq request.query.a 'x')}}yes{{else}}no{{/if}}",
    request: { path: "/q?a=x" },
  },
  { name: "and", template: "{{#and true false}}yes{{else}}no{{/and}}" },
  { name: "or", template: "{{#or false true}}yes{{else}}no{{/or}}" },
  { name: "not", template: "{{#not false}}yes{{else}}no{{/not}}" },
  { name: "formatJson", template: '{{formatJson \'{"a":1,"b":[1,2]}\'}}' },
  { name: "toJson", template: '{{toJson (parseJson \'{"a":1,"b":[1,2]}\')}}' },
  { name: "toJson string", template: "{{toJson 'x'}}" },
  { name: "parseJson field", template: "{{#with (parseJson request.body)}}{{name}}{{/with}}", request: jsonRequest },
  {
    name: "each over jsonPath",
    template: "{{#each (jsonPath request.body '$.tags')}}<{{this}}>{{/each}}",
    request: jsonRequest,
  },
  { name: "lookup", template: "{{lookup request.query 'a'}}", request: { path: "/q?a=1" } },
  { name: "if missing", template: "{{#if request.query.zz}}yes{{else}}no{{/if}}" },
  {
    name: "now default",
    template: "{{now}}",
    pattern: String.raw`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`,
  },
  { name: "now format date", template: "{{now format='yyyy-MM-dd'}}", pattern: String.raw`^\d{4}-\d\d-\d\d$` },
  {
    name: "now format full",
    template: "{{now format='yyyy-MM-dd HH:mm:ss.SSS'}}",
    pattern: String.raw`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$`,
  },
  { name: "now epoch", template: "{{now format='epoch'}}", pattern: String.raw`^\d{13}$` },
  { name: "now unix", template: "{{now format='unix'}}", pattern: String.raw`^\d{10}$` },
  {
    name: "now offset",
    template: "{{now offset='3 days' format='yyyy-MM-dd'}}",
    pattern: String.raw`^\d{4}-\d\d-\d\d$`,
  },
  {
    name: "now timezone",
    template: "{{now timezone='Australia/Sydney' format='yyyy-MM-dd HH:mm:ssZ'}}",
    pattern: String.raw`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+1[01]00$`,
  },
  {
    name: "now names",
    template: "{{now format='EEE, d MMM yyyy'}}",
    pattern: String.raw`^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} [A-Z][a-z]{2} \d{4}$`,
  },
  {
    name: "randomValue alphanumeric",
    template: "{{randomValue length=12 type='ALPHANUMERIC'}}",
    pattern: "^[a-z0-9]{12}$",
  },
  { name: "randomValue alphabetic", template: "{{randomValue length=8 type='ALPHABETIC'}}", pattern: "^[a-z]{8}$" },
  { name: "randomValue numeric", template: "{{randomValue length=6 type='NUMERIC'}}", pattern: "^[0-9]{6}$" },
  { name: "randomValue hex", template: "{{randomValue length=8 type='HEXADECIMAL'}}", pattern: "^[0-9a-f]{8}$" },
  {
    name: "randomValue uuid",
    template: "{{randomValue type='UUID'}}",
    pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
  },
  {
    name: "randomValue uppercase",
    template: "{{randomValue length=20 type='ALPHANUMERIC' uppercase=true}}",
    pattern: "^[A-Z0-9]{20}$",
  },
  { name: "randomValue default", template: "{{randomValue}}", pattern: "^[a-z0-9]{36}$" },
  { name: "randomInt", template: "{{randomInt lower=1 upper=3}}", pattern: "^[12]$" },
  { name: "randomInt upper is exclusive", template: "{{randomInt lower=1 upper=2}}", pattern: "^1$" },
  { name: "randomInt unbounded", template: "{{randomInt}}", pattern: String.raw`^-?\d{1,10}$` },
  {
    name: "now timezone default format",
    template: "{{now timezone='Australia/Sydney'}}",
    pattern: String.raw`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+1[01]:00$`,
  },
  {
    name: "now names long",
    template: "{{now format='EEEE MMMM'}}",
    pattern: "^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday) [A-Z][a-z]+$",
  },
];

const base = Deno.args[0] ?? "http://127.0.0.1:18080";
await fetch(base + "/__admin/mappings/reset", { method: "POST" }).then((r) => r.body?.cancel());
const recorded = [];
for (const [i, c] of cases.entries()) {
  const prefix = `/c${i}`;
  const mapping = {
    request: { method: "ANY", urlPathPattern: `${prefix}(/.*)?` },
    response: { status: 200, body: c.template, transformers: ["response-template"] },
  };
  const made = await fetch(base + "/__admin/mappings", { method: "POST", body: JSON.stringify(mapping) });
  await made.body?.cancel();
  if (made.status !== 201) throw new Error(`${c.name}: mapping refused (${made.status})`);
  const request = { method: "GET", path: "/seg/two", ...c.request };
  const answer = await fetch(base + prefix + request.path, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const body = await answer.text();
  recorded.push({ ...c, request, status: answer.status, body: c.pattern ? undefined : body, sample: body });
  console.log(`${answer.status} ${c.name}: ${JSON.stringify(body).slice(0, 100)}`);
}
const out = new URL("../tests/fixtures/handlebars_wiremock.json", import.meta.url);
await Deno.writeTextFile(out, JSON.stringify({ wiremock: "3.13.2", cases: recorded }, null, 2) + "\n");
