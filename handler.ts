/**
 * The handler behind every stubtool server, for embedders that run it on a server of their
 * own: {@link StubHandler.fetch} answers a fetch `Request`, and {@link StubHandler.handle}
 * answers through an adapter's own {@link Respond} (how the Node adapter writes responses).
 * Most users want `stubServer` from the main entry instead.
 *
 * @example
 * ```ts
 * import { StubHandler } from "./handler.ts";
 * import { get } from "./mod.ts";
 * const handler = new StubHandler([get("/ping").body({ pong: true }).toStub()]);
 * const response = await handler.fetch(new Request("http://stub/ping"));
 * console.log(response.status); // 200
 * ```
 *
 * @module
 */

// Stubs handed over in code are checked synchronously: the template engine is loaded up front.
import "./src/templating/eager.ts";
export { StubHandler } from "./src/server/handler.ts";
export type {
  AnswerBody,
  HandlerOptions,
  Incoming,
  RequestLogEntry,
  Respond,
  ResponseHead,
  StubChanges,
} from "./src/server/handler.ts";
export type { BodyRead, HeaderSource, WebSocketPeer, WebSocketSession } from "./src/server/incoming.ts";
export type { WebSocketLimits } from "./src/server/answers/websocket.ts";
export type { ForwardTap } from "./src/server/proxy/proxy.ts";
export type { StubRegistry } from "./src/server/registry.ts";
export type { CallbackRecord } from "./src/server/callbacks/callbacks.ts";
