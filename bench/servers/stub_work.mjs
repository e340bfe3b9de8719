// The per-request work the contract asks of a stub server for S1, written by hand for speed and
// nothing else: find the stub among a config's stubs (method and path, `{name}` segments
// captured, a scenario's state checked), count its hit, journal the request with its time,
// status and stub (every header kept, in a ring of 500: a journal of the default size), and fill
// the captured values into the body, JSON-escaped. No conditions, priorities, scopes, sequences
// or templates beyond `{name}`: the config's stubs must not need them on the measured path (S1's
// do not). node_bare_stubs.mjs serves it; bench/handler.ts times it beside stubtool's handler.

/** A stub's body split at its `{name}` placeholders: [text, name, text, name, …, text]. */
function parts(text) {
  const out = [];
  let at = 0;
  for (const found of text.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    out.push(text.slice(at, found.index), found[1]);
    at = found.index + found[0].length;
  }
  out.push(text.slice(at));
  return out;
}

// deno-lint-ignore no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
const NONE = [];

/**
 * Compiles `routes` (a config's stubs) into one request's work: `(method, url, headers)` →
 * `{ status, type, text }`, the stub's answer, or a 404 when no stub matches.
 */
export function stubWork(routes) {
  /** Static paths by method, then path; stubs with `{name}` segments by method, in the config's order. */
  const statics = new Map();
  const params = new Map();
  const compiled = routes.map((stub, index) => {
    const body = stub.body === undefined ? "" : typeof stub.body === "string" ? stub.body : JSON.stringify(stub.body);
    const segments = stub.path.split("/").slice(1).map((s) => (s.startsWith("{") ? null : s));
    const names = stub.path.split("/").slice(1).filter((s) => s.startsWith("{")).map((s) => s.slice(1, -1));
    const route = {
      index,
      status: stub.status ?? 200,
      type: typeof stub.body === "string" ? "text/plain; charset=utf-8" : "application/json",
      segments,
      // The placeholders as the index of their segment's value.
      parts: parts(body).map((part, i) => (i % 2 ? names.indexOf(part) : part)),
      json: typeof stub.body !== "string",
      scenario: stub.scenario,
      whenState: stub.when_state,
      setState: stub.set_state,
    };
    if (segments.includes(null)) {
      if (!params.has(stub.method)) params.set(stub.method, []);
      params.get(stub.method).push(route);
    } else {
      if (!statics.has(stub.method)) statics.set(stub.method, new Map());
      statics.get(stub.method).set(stub.path, route);
    }
    return route;
  });
  const hits = new Array(compiled.length).fill(0);
  const states = new Map();
  const kept = new Array(500);
  let next = 0;
  /** The captured values of the stub `find` found last. */
  let values = NONE;

  /** The request's stub (its captured values in `values`), or undefined. */
  function find(method, pathname) {
    const route = statics.get(method)?.get(pathname);
    values = NONE;
    if (route) return route;
    const candidates = params.get(method);
    if (!candidates) return undefined;
    const sent = pathname.split("/");
    sent.shift();
    for (const route of candidates) {
      if (route.segments.length !== sent.length) continue;
      values = [];
      let holds = true;
      for (let i = 0; i < sent.length && holds; i++) {
        const literal = route.segments[i];
        if (literal === null) {
          if (sent[i] === "") holds = false;
          else values.push(sent[i].includes("%") ? decodeURIComponent(sent[i]) : sent[i]);
        } else holds = literal === sent[i];
      }
      if (holds && (route.scenario === undefined || (states.get(route.scenario) ?? "Started") === route.whenState)) {
        return route;
      }
    }
    return undefined;
  }

  function render(route) {
    const out = route.parts;
    if (out.length === 1) return out[0];
    let text = out[0];
    for (let i = 1; i < out.length; i += 2) {
      const value = values[out[i]] ?? "";
      text += (route.json && NEEDS_ESCAPE.test(value) ? JSON.stringify(value).slice(1, -1) : value) + out[i + 1];
    }
    return text;
  }

  return (method, url, headers) => {
    const q = url.indexOf("?");
    const route = find(method, q === -1 ? url : url.slice(0, q));
    const record = { method, target: url, time: Date.now(), headers: { ...headers }, status: 404, stub: -1 };
    kept[next++ % kept.length] = record;
    if (!route) return { status: 404, type: "text/plain; charset=utf-8", text: "no stub\r\n" };
    hits[route.index]++;
    if (route.setState !== undefined) states.set(route.scenario, route.setState);
    record.status = route.status;
    record.stub = route.index;
    return { status: route.status, type: route.type, text: render(route) };
  };
}
