// stubtool's programmatic server under Deno, for the response-function scenario (S4):
// the stubs of a config file plus POST /echo answering with its JSON payload.
//   deno run -A bench/servers/stubtool_api.ts <port> <config.json>
import { post, stubServer } from "../../mod.ts";
import { validateConfig } from "../../src/stubs/validate.ts";

const [port, configPath] = Deno.args;
const { config } = validateConfig(JSON.parse(await Deno.readTextFile(configPath)));
const server = await stubServer(Number(port), { stubs: config!.routes });
server.routes(post("/echo").responseFunc(({ payload }) => [200, payload]));
