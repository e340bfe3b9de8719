/**
 * `stubtool schema`: prints the config file's JSON Schema (src/stubs/schema.ts), for
 * editors and for checks in other tools.
 * @module
 */

import { configSchemaText } from "../stubs/schema.ts";
import type { CliContext } from "./context.ts";
import type { ParsedArgs } from "./usage.ts";

/** Prints the schema on stdout; exit 0. */
export function schemaCommand(_args: ParsedArgs, { output }: CliContext): Promise<number> {
  output.out(configSchemaText().replace(/\n$/, ""));
  return Promise.resolve(0);
}
