/**
 * The WireMock admin room (`/__admin/`: wiremock_admin.ts and the WireMock formats it
 * translates with, about 14 modules), loaded when a request first reaches `/__admin/`, or up
 * front when the server serves WireMock folders (`serve --wiremock`, src/cli/serve.ts). A server
 * no WireMock client talks to never reads it.
 * @module
 */

/** Where the WireMock admin API is. */
export const WIREMOCK_ADMIN_PREFIX = "/__admin/";

/** Is `pathname` the WireMock admin API's (`/__admin/…`, or `/__admin` itself)? */
export function isWireMockAdminPath(pathname: string): boolean {
  return pathname.startsWith(WIREMOCK_ADMIN_PREFIX) || pathname === "/__admin";
}

/** The room's module. */
export type WireMockAdminRoom = typeof import("./wiremock_admin.ts");

let room: WireMockAdminRoom | undefined;
let loading: Promise<WireMockAdminRoom> | undefined;

/** Loads the room (once; later calls share the first load). */
export function loadWireMockAdmin(): Promise<WireMockAdminRoom> {
  // A literal specifier, so `deno compile` and the npm build keep it.
  return loading ??= import("./wiremock_admin.ts").then((loaded) => room = loaded);
}

/** The room when it is loaded. */
export function wireMockAdminLoaded(): WireMockAdminRoom | undefined {
  return room;
}
