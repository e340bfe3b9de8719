/**
 * The template engine loaded as the programmatic API (`mod.ts`, `handler.ts`) is imported:
 * stubs built in code are checked synchronously, so their engine is there from the start.
 * When `cli.ts` runs as the program (src/cli/program.ts), the command line loads it only when
 * a stub needs it instead (src/templating/engine.ts).
 * @module
 */

import { isTemplatingOnDemand, loadTemplating } from "./engine.ts";

if (!isTemplatingOnDemand()) await loadTemplating();
