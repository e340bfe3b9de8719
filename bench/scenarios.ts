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

/**
 * A config with `total` stubs: static `GET /r/<n>` stubs (as real configs have many
 * sibling resources), some with placeholders below them, plus the S1 stub last.
 */
export function makeConfig(total: number): { routes: Record<string, unknown>[] } {
  const routes: Record<string, unknown>[] = [];
  for (let i = 0; routes.length < total - 1; i++) {
    routes.push({ method: "GET", path: `/r/${i}`, body: { n: i } });
    if (routes.length < total - 1 && i % 10 === 0) {
      routes.push({ method: "POST", path: `/r/${i}/items/{item}`, status: 201, body: { item: "{item}" } });
    }
  }
  routes.push(S1_STUB);
  return { routes };
}
