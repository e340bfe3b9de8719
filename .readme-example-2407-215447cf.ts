import { WebSocket } from "ws";
import { get, stubServer } from "./mod.ts";

await using server = await stubServer(0);
server.routes(
  get("/rooms/{room}").template().websocket({
    onConnect: [{ send: { json: { type: "welcome", room: "{{params.room}}" } } }],
    onMessage: [
      { match: { json: { type: "ping" } }, send: { json: { type: "pong" } } },
      { match: { regex: "^say .+" }, send: "{{params.room}} heard: {{message.text}}" },
    ],
  }),
);
const ws = new WebSocket(`ws://127.0.0.1:${server.getPort()}/rooms/lobby`);
const received: string[] = [];
await new Promise<void>((resolve) => {
  ws.on("message", (data) => {
    received.push(data.toString());
    if (received.length === 1) ws.send(JSON.stringify({ type: "ping" }));
    if (received.length === 2) ws.send("say hello");
    if (received.length === 3) ws.close();
  });
  ws.on("close", () => resolve());
});
const expected = ['{"type":"welcome","room":"lobby"}', '{"type":"pong"}', "lobby heard: say hello"];
if (JSON.stringify(received) !== JSON.stringify(expected)) throw new Error(`got ${received}`);
const report = await server.report();
if (report.stubs[0].hit_count !== 1) throw new Error("the connection is the stub's one hit");
if (report.stubs[0].websocket_rules?.map((rule) => rule.matches).join() !== "1,1") throw new Error("rule matches");
