/**
 * `main(args, env)`: the whole `stubtool` CLI as a function that returns an exit code
 * (0 success, 1 a check failed, 2 usage error or server unreachable). `cli.ts` calls it
 * with the process's arguments; tests call it in-process with their own output.
 * @module
 */

import { messageOf } from "../error_message.ts";
import process from "node:process";
import { VERSION } from "../version.ts";
import type { CliContext, Env } from "./context.ts";
import { errorLine, type Output, stdioSinks, StreamOutput } from "./output.ts";
import {
  commandHelp,
  type CommandSpec,
  findCommand,
  parseCommandArgs,
  type ParsedArgs,
  suggestCommand,
  toolHelp,
  UsageError,
  wantsHelp,
} from "./usage.ts";

type Command = (args: ParsedArgs, ctx: CliContext) => Promise<number>;

/**
 * Each command's module, loaded only when it runs: a command does not pay for the modules
 * (the YAML parser, the OpenAPI tools) of the others.
 */
const LOAD: Record<CommandSpec["name"], () => Promise<Command>> = {
  serve: () => import("./serve.ts").then((m) => m.serveCommand),
  wait: () => import("./wait.ts").then((m) => m.waitCommand),
  validate: () => import("./validate.ts").then((m) => m.validateCommand),
  report: () => import("./report.ts").then((m) => m.reportCommand),
  record: () => import("./record.ts").then((m) => m.recordCommand),
  import: () => import("./import.ts").then((m) => m.importCommand),
  stubs: () => import("./stubs.ts").then((m) => m.stubsCommand),
  schema: () => import("./schema.ts").then((m) => m.schemaCommand),
};

const COMMAND_NAMES = "serve, wait, validate, report, record, import, stubs, schema";

/**
 * Runs the CLI. Never throws: usage errors print one `[ERROR]` line with a hint and
 * return 2; unexpected errors print one `[ERROR]` line (the stack only with `--debug`)
 * and return 1. `env` defaults to `process.env`, `context.output` to the process's stdout
 * and stderr.
 *
 * @example
 * ```ts
 * import { main } from "./main.ts";
 * import { MemoryOutput } from "./output.ts";
 * const output = new MemoryOutput();
 * console.log(await main(["--version"], {}, { output })); // 0
 * console.log(output.stdout); // ["stubtool 0.1.0"]
 * ```
 */
export async function main(
  args: readonly string[],
  env?: Env,
  context: Partial<CliContext> = {},
): Promise<number> {
  const output = context.output ?? new StreamOutput(...stdioSinks());
  const ctx: CliContext = { env: env ?? process.env, output, stop: context.stop };
  const debug = args.includes("--debug");
  let command: CommandSpec | undefined;
  try {
    const rest = args.filter((arg) => arg !== "--debug");
    const found = pickCommand(rest, output);
    if (typeof found === "number") return found;
    command = found;
    const commandArgs = rest.slice(1);
    if (wantsHelp(commandArgs)) {
      output.out(commandHelp(command).trimEnd());
      return 0;
    }
    const parsed = parseCommandArgs(command, commandArgs);
    const run = await LOAD[command.name]();
    return await run(parsed, ctx);
  } catch (error) {
    return failed(error, command, debug, output);
  } finally {
    await output.flush();
  }
}

/** The command `rest[0]` names; 0 after printing the tool's help or version. Throws a {@link UsageError} otherwise. */
function pickCommand(rest: readonly string[], output: Output): CommandSpec | number {
  const first = rest[0];
  if (first === undefined) {
    throw new UsageError(`missing command (${COMMAND_NAMES})`);
  }
  if (first === "--help" || first === "-h") {
    output.out(toolHelp().trimEnd());
    return 0;
  }
  if (first === "--version" || first === "-V") {
    output.out(`stubtool ${VERSION}`);
    return 0;
  }
  if (first.startsWith("-")) {
    const known = rest.find((arg) => findCommand(arg));
    throw new UsageError(
      known
        ? `option '${first}' must come after the command: stubtool ${known} ${first} ...`
        : `unknown option '${first}' (before a command only --help, --version and --debug are allowed)`,
    );
  }
  const command = findCommand(first);
  if (!command) {
    const hint = suggestCommand(first);
    throw new UsageError(
      `unknown command '${first}'${hint ? ` (did you mean '${hint}'?)` : ""}; commands: ${COMMAND_NAMES}`,
    );
  }
  return command;
}

/** One `[ERROR]` line for what `main` caught (the stack only with `--debug`), and the exit code: 2 for a usage error, else 1. */
function failed(error: unknown, command: CommandSpec | undefined, debug: boolean, output: Output): number {
  if (error instanceof UsageError) {
    const help = error.command ? `stubtool ${error.command} --help` : "stubtool --help";
    output.err(`[ERROR] ${error.message}; run ${help}`);
    return 2;
  }
  const message = messageOf(error);
  output.err(
    errorLine(command ? command.name : "stubtool", `unexpected error: ${message.split("\n")[0]}`) +
      (debug ? "" : " (run again with --debug for details)"),
  );
  if (debug && error instanceof Error && error.stack) output.err(error.stack);
  return 1;
}
