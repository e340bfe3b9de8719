/**
 * The benchmark's stub sets and scenarios, shared by the config generator, the baseline
 * and the programmatic servers so every server answers with the same bytes.
 * @module
 */

/** The S1 body for a user id: a nested object with the id substituted in two places. */
export function s1Body(id: string): string {
  return `{"id":"${id}","name":"Ada","profile":{"roles":["admin","dev"],"links":{"self":"/users/${id}"}}}`;
}

/** The S1 stub as config data: `GET /users/{id}` with a nested templated body. */
export const S1_STUB = {
  method: "GET",
  path: "/users/{id}",
  body: { id: "{id}", name: "Ada", profile: { roles: ["admin", "dev"], links: { self: "/users/{id}" } } },
};

/** The S9 request body: the template reads its `sku`. */
export const S9_BODY = '{"sku":"a-1","qty":2}';

/** The S9 stub: a template reading a path capture, a JSON body field and the clock. */
export const S9_STUB = {
  method: "POST",
  path: "/orders/{id}",
  template: true,
  body: { id: "{{params.id}}", sku: "{{request.json.sku}}", at: "{{now format='epoch'}}", kind: "order" },
};

/** Stubs of part three that S1's requests never reach, so S1 is measured with them present. */
const FLOW_STUBS: Record<string, unknown>[] = [
  { method: "GET", path: "/flow/cart", scenario: "cart", when_state: "Started", body: { items: [] } },
  { method: "POST", path: "/flow/cart", scenario: "cart", set_state: "has-item", status: 201 },
  S9_STUB,
];

/**
 * A config with `total` stubs: static `GET /r/<n>` stubs (as real configs have many
 * sibling resources), some with placeholders below them, a scenario and the S9 template
 * stub, plus the S1 stub last.
 */
export function makeConfig(total: number): { routes: Record<string, unknown>[] } {
  const routes: Record<string, unknown>[] = [];
  const own = total - 1 - FLOW_STUBS.length;
  for (let i = 0; routes.length < own; i++) {
    routes.push({ method: "GET", path: `/r/${i}`, body: { n: i } });
    if (routes.length < own && i % 10 === 0) {
      routes.push({ method: "POST", path: `/r/${i}/items/{item}`, status: 201, body: { item: "{item}" } });
    }
  }
  routes.push(...FLOW_STUBS, S1_STUB);
  return { routes };
}

/** The S7 request body: a payment whose customer and the x-api-version header pick the stub. */
export const S7_BODY = '{"amount":42,"currency":"EUR","customer":"c-57"}';
/** The S7 request's API version header. */
export const S7_VERSION = "v7";

/**
 * 1,000 stubs on `POST /payments` that differ by the `x-api-version` header (10 values) and
 * the body's `customer` (100 values): the S7 request matches exactly one.
 */
export function makePaymentsConfig(): { routes: Record<string, unknown>[] } {
  const routes: Record<string, unknown>[] = [];
  for (let v = 0; v < 10; v++) {
    for (let c = 0; c < 100; c++) {
      routes.push({
        method: "POST",
        path: "/payments",
        request: { headers: { "x-api-version": `v${v}` }, json: { customer: `c-${c}` } },
        status: 201,
        body: { paid: 42 },
      });
    }
  }
  return { routes };
}

/** S8: one stub that passes GET /users/{id} on to an upstream. */
export function makeProxyConfig(upstream: string): { routes: Record<string, unknown>[] } {
  return { routes: [{ method: "GET", path: "/users/{id}", proxy: upstream }] };
}

/** Events in the SSE figure's stream (S11): the most one stream may hold. */
export const SSE_EVENTS = 10_000;

/** The data of event `n` of the SSE figure's stream, as the stub writes it and the wire carries it. */
export function sseData(n: number): { n: number; delta: string } {
  return { n, delta: "hello " };
}

/** The pause before the second event of S11's `GET /first` (whose first event is timed, then the stream cancelled). */
export const SSE_FIRST_PAUSE_MS = 10_000;

/**
 * S11: `GET /events` answers {@link SSE_EVENTS} events without delays (events/s); `GET /first`
 * one event at once and the next after {@link SSE_FIRST_PAUSE_MS} (time to first event, as an
 * LLM API's first token).
 */
export function makeSseConfig(): { routes: Record<string, unknown>[] } {
  const stream = Array.from({ length: SSE_EVENTS }, (_, n) => ({ data: sseData(n) }));
  return {
    routes: [
      { method: "GET", path: "/events", stream },
      {
        method: "GET",
        path: "/first",
        stream: [{ data: sseData(0) }, { data: sseData(1), delay_ms: SSE_FIRST_PAUSE_MS }],
      },
    ],
  };
}

/** Messages each connection of the WebSocket figure (S13) sends, and how many it keeps in flight. */
export const WS_MESSAGES = 10_000;
export const WS_WINDOW = 16;

/** S13: `GET /echo` answers every `ping` with `pong` (the bare server in bench/servers/deno_bare_ws.ts does the same). */
export function makeWsConfig(): { routes: Record<string, unknown>[] } {
  return {
    routes: [{ method: "GET", path: "/echo", websocket: { on_message: [{ match: "ping", send: ["pong"] }] } }],
  };
}
