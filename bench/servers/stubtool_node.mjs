// stubtool's programmatic server under Node, from the npm build (npm run build:npm):
// the stubs of a config file plus POST /echo answering with its JSON payload.
//   node bench/servers/stubtool_node.mjs <port> <config.json>
import { readFileSync } from "node:fs";
import { post, stubServer } from "../../npm/esm/mod.js";
import { validateConfig } from "../../npm/esm/src/stubs/validate.js";

const [port, configPath] = process.argv.slice(2);
const { config } = validateConfig(JSON.parse(readFileSync(configPath, "utf8")));
const server = await stubServer(Number(port), { stubs: config.routes });
server.routes(post("/echo").responseFunc(({ payload }) => [200, payload]));
