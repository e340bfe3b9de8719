/**
 * The one usage table of the `stubtool` CLI. `--help` text, argument parsing (`node:util`
 * `parseArgs`, strict) and the did-you-mean hints of usage errors are all
 * derived from {@link COMMANDS}, so a flag is declared exactly once.
 * @module
 */

import { parseArgs } from "node:util";
import { didYouMean } from "../stubs/validate.ts";
import { VERSION } from "../version.ts";

/** One flag of a command. */
export interface FlagSpec {
  name: string;
  short?: string;
  type: "string" | "boolean";
  /** May be given more than once (`--stub A --stub B`). */
  multiple?: boolean;
  /** Placeholder for the value in help text (`PORT`). */
  value?: string;
  help: string;
}

/** One command: its arguments, flags, help text and examples. */
export interface CommandSpec {
  name: "serve" | "wait" | "validate" | "report" | "record" | "import" | "stubs" | "schema";
  /** Positional arguments in help text (`FILE`). */
  args?: string;
  /** How many positional arguments it takes. */
  positionals: { min: number; max: number };
  summary: string;
  description: string;
  flags: FlagSpec[];
  examples: string[];
}

/** Flags every command accepts. */
const COMMON_FLAGS: FlagSpec[] = [
  { name: "help", short: "h", type: "boolean", help: "show this help" },
  { name: "debug", type: "boolean", help: "show stack traces of unexpected errors" },
];

/** How `record` and `import har` turn exchanges into stubs. */
const RECORDING_FLAGS: FlagSpec[] = [
  {
    name: "keep-header",
    type: "string",
    multiple: true,
    value: "NAME",
    help: "a response header to keep besides content-type, repeatable",
  },
  {
    name: "keep-request-header",
    type: "string",
    multiple: true,
    value: "NAME",
    help: "a request header that tells requests apart: stubs require the value seen (or its absence), repeatable",
  },
  {
    name: "ignore-body",
    type: "boolean",
    help: "one stub per method + path + query even when JSON or form request bodies differ",
  },
  {
    name: "keep-delay",
    type: "boolean",
    help: "write each answer's recorded latency as its delay (and each event's as its delay_ms)",
  },
];

/** How `wait`, `report` and `stubs` reach a server. */
const SERVER_FLAGS: FlagSpec[] = [
  {
    name: "url",
    type: "string",
    value: "URL",
    help: "server base URL (default: http://localhost:$STUBTOOL_PORT, else http://localhost:8080)",
  },
  {
    name: "ca",
    type: "string",
    value: "FILE",
    help: "for an https:// server: PEM certificate to trust (the one serve --tls-cert-out wrote)",
  },
  { name: "insecure", type: "boolean", help: "for an https:// server: do not check its certificate" },
  {
    name: "admin-token",
    type: "string",
    value: "TOKEN",
    help: "the server's --admin-token (default: $STUBTOOL_ADMIN_TOKEN)",
  },
];

/** The default config file of `serve` when neither `--config` nor `STUBTOOL_CONFIG` is given. */
export const DEFAULT_CONFIG_PATH = "/config/stubs.yaml";

/** The CLI: every command, flag and help line. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "serve",
    positionals: { min: 0, max: 0 },
    summary: "start the mock server",
    description: "Serve the stubs of a config file and/or inline --stub flags. Prints the URL and the route table,\n" +
      "then one line per request: METHOD TARGET STATUS [STUB or UNMATCHED] TIMEms. The live dashboard\n" +
      "(coverage, unmatched requests and why, recent requests) is at /__stubtool__/ on the same URL.\n" +
      "SIGINT, SIGTERM and SIGHUP shut it down gracefully (in-flight responses get up to 5 s, a second signal\n" +
      "stops at once), write --report-file and exit 0.",
    flags: [
      {
        name: "port",
        short: "p",
        type: "string",
        value: "PORT",
        help:
          "port to listen on, 0 for any free port (default: $STUBTOOL_PORT, else 8080; the config file's port wins)",
      },
      {
        name: "host",
        type: "string",
        value: "HOST",
        help: "interface to bind (default: $STUBTOOL_HOST, else 127.0.0.1; 0.0.0.0 for all interfaces)",
      },
      {
        name: "config",
        short: "c",
        type: "string",
        value: "FILE",
        help: `YAML or JSON config file (default: ${DEFAULT_CONFIG_PATH} if it exists; $STUBTOOL_CONFIG names another)`,
      },
      {
        name: "stub",
        type: "string",
        multiple: true,
        value: "STUB",
        help: 'inline stub "METHOD /path -> STATUS [JSON]", or one in config form "{method: GET, path: /a, ...}", ' +
          "repeatable; a later batch than the config's stubs",
      },
      {
        name: "wiremock",
        type: "string",
        multiple: true,
        value: "DIR",
        help: "serve a WireMock root folder's mappings (DIR/mappings/**/*.json, DIR/__files) as stubs, repeatable; " +
          "a mapping that does not convert is left out with a [WARN] line",
      },
      {
        name: "wiremock-global-templating",
        type: "boolean",
        help: "render every WireMock mapping as a template (WireMock's --global-response-templating)",
      },
      {
        name: "strict",
        type: "boolean",
        help: "a WireMock mapping left out is an error: exit 1 instead of serving without it",
      },
      {
        name: "watch",
        short: "w",
        type: "boolean",
        help: "reload the config file (and WireMock folders) when it changes (a config with errors is reported " +
          "and the stubs stay)",
      },
      { name: "quiet", short: "q", type: "boolean", help: "no per-request log lines" },
      { name: "report-file", type: "string", value: "FILE", help: "write the final report as JSON on shutdown" },
      {
        name: "max-unmatched",
        type: "string",
        value: "N",
        help: "unmatched requests the report keeps; past N the oldest are dropped (default: 1000)",
      },
      {
        name: "max-body",
        type: "string",
        value: "BYTES",
        help: "largest accepted request body; larger gets 413 (default: 10485760, 10 MiB)",
      },
      {
        name: "handler-timeout",
        type: "string",
        value: "SECONDS",
        help: "how long a response function may run before the request gets 504 (default: 30)",
      },
      {
        name: "journal-size",
        type: "string",
        value: "N",
        help: "recent requests the dashboard and /__stubtool__/requests keep; 0 turns the journal off (default: 500)",
      },
      {
        name: "journal-bytes",
        type: "string",
        value: "BYTES",
        help: "bytes of request targets and bodies the journal keeps (default: 16777216, 16 MiB)",
      },
      {
        name: "scopes",
        type: "boolean",
        help:
          "track scoped coverage: requests with x-stubtool-scope: NAME also count in GET /__stubtool__/report?scope=NAME",
      },
      {
        name: "cors",
        type: "boolean",
        help: "answer browser apps on any origin: preflights and CORS headers (the config's cors: lists origins)",
      },
      {
        name: "proxy-unmatched",
        type: "string",
        value: "URL",
        help: "pass requests no stub matches on to URL (still recorded as unmatched); wins over proxy_unmatched:",
      },
      {
        name: "tls-cert",
        type: "string",
        value: "FILE",
        help: "serve https with this PEM certificate (and --tls-key; default: $STUBTOOL_TLS_CERT)",
      },
      {
        name: "tls-key",
        type: "string",
        value: "FILE",
        help: "the PEM private key of --tls-cert (default: $STUBTOOL_TLS_KEY)",
      },
      {
        name: "tls-self-signed",
        type: "boolean",
        help: "serve https with a certificate made at start for localhost, 127.0.0.1 and ::1",
      },
      {
        name: "tls-cert-out",
        type: "string",
        value: "FILE",
        help: "with --tls-self-signed: write its PEM certificate to FILE for clients to trust",
      },
      {
        name: "callback-ca",
        type: "string",
        value: "FILE",
        help: "callbacks to https receivers also trust the PEM certificate(s) in FILE, e.g. a self-signed one " +
          "(default: $STUBTOOL_CALLBACK_CA)",
      },
      {
        name: "allow-host",
        type: "string",
        multiple: true,
        value: "NAME",
        help: "on a loopback bind, /__stubtool__/ also answers Host NAME (others get 403), repeatable",
      },
      {
        name: "admin-token",
        type: "string",
        value: "TOKEN",
        help: "/__stubtool__/ endpoints but health need authorization: Bearer TOKEN (default: $STUBTOOL_ADMIN_TOKEN)",
      },
      {
        name: "adapter",
        type: "string",
        value: "node|deno",
        help: "the HTTP server: node (node:http, the default: answers every client, Java's java.net.http included) " +
          "or deno (Deno's own, 2-4x faster; answers java.net.http's h2c upgrade requests with an empty 400) " +
          "(default: $STUBTOOL_ADAPTER)",
      },
      {
        name: "files-root",
        type: "string",
        value: "DIR",
        help: "stubs added over the admin API may use body_file, for files inside DIR only (symbolic links " +
          "followed); without it the admin API reads no file (default: $STUBTOOL_FILES_ROOT)",
      },
      {
        name: "state",
        type: "string",
        value: "redis://HOST:PORT[/DB]",
        help: "join the replicas that name the same Redis 7 store and --cluster: stubs added, replaced or removed " +
          "at runtime, resets and scenario states set over the admin APIs reach every replica; config stubs stay " +
          "each one's own (default: $STUBTOOL_STATE)",
      },
      {
        name: "cluster",
        type: "string",
        value: "NAME",
        help: "with --state: which replicas share (default: stubtool)",
      },
      {
        name: "openapi",
        type: "string",
        value: "SPEC",
        help:
          "check the stubs against an OpenAPI 3.0/3.1 or Swagger 2.0 document at start ([WARN] lines for each drift)",
      },
      {
        name: "mock",
        type: "boolean",
        help: "with --openapi: also answer every operation of SPEC (Swagger 2.0 too) from its examples or " +
          "schemas; configured stubs win",
      },
      {
        name: "strict-requests",
        type: "boolean",
        help: "with --mock: required query parameters and headers become conditions",
      },
      {
        name: "no-validate-requests",
        type: "boolean",
        help: "with --mock: answer every request the spec's stubs match, without checking its parameters, body " +
          "and credentials against the operation (a 422, 400 or 401 otherwise)",
      },
      {
        name: "dynamic",
        type: "boolean",
        help: "with --mock: answer with data generated from the response schema per request (as Prefer: dynamic=true)",
      },
      {
        name: "seed",
        type: "string",
        value: "N",
        help: "with --dynamic: seed the generated data (the same requests in the same order get the same answers)",
      },
    ],
    examples: [
      "stubtool serve --config stubs.yaml",
      'stubtool serve --port 0 --stub "GET /users/{id} -> 200 {\\"id\\": \\"{id}\\"}" --stub "DELETE /users/{id} -> 204"',
      "STUBTOOL_PORT=9000 stubtool serve --config stubs.json --report-file coverage.json",
      "stubtool serve --config stubs.yaml --watch",
      "stubtool serve --config stubs.yaml --tls-self-signed --tls-cert-out stubtool.pem",
      "stubtool serve --openapi openapi.yaml --mock",
    ],
  },
  {
    name: "wait",
    positionals: { min: 0, max: 0 },
    summary: "wait until a server is ready",
    description: "Poll /__stubtool__/health until it answers 200, trying every address the host resolves to.\n" +
      "Exit 0 when ready (prints how long it took), 1 on timeout.",
    flags: [
      ...SERVER_FLAGS.filter((flag) => flag.name !== "admin-token"),
      { name: "timeout", type: "string", value: "SECONDS", help: "how long to keep trying (default: 10.0)" },
    ],
    examples: ["stubtool wait", "stubtool wait --url http://127.0.0.1:9000 --timeout 30"],
  },
  {
    name: "validate",
    args: "[FILE]",
    positionals: { min: 0, max: 1 },
    summary: "check a config file without starting a server",
    description: "Print [ERROR] and [WARN] lines (stderr) for every problem, or [OK] (stdout).\n" +
      "With --openapi, also check each stub against an OpenAPI 3.0/3.1 or Swagger 2.0 document: a method and path with no\n" +
      "operation, a status the operation does not declare, a JSON body its response schema rejects.\n" +
      "Exit 0 when valid (warnings allowed), 1 when not.",
    flags: [
      {
        name: "openapi",
        type: "string",
        value: "SPEC",
        help: "OpenAPI 3.0, 3.1 or Swagger 2.0 document (YAML or JSON) the stubs must agree with",
      },
      {
        name: "wiremock",
        type: "string",
        multiple: true,
        value: "DIR",
        help: "also check a WireMock root folder: one [WARN] per mapping feature that does not convert, repeatable",
      },
      {
        name: "wiremock-global-templating",
        type: "boolean",
        help: "read every WireMock mapping as a template (WireMock's --global-response-templating)",
      },
      { name: "strict", type: "boolean", help: "a WireMock mapping left out is an error (exit 1)" },
    ],
    examples: [
      "stubtool validate stubs.yaml",
      "stubtool validate stubs.yaml --openapi openapi.yaml",
      "stubtool validate --wiremock ./wiremock --strict",
    ],
  },
  {
    name: "report",
    positionals: { min: 0, max: Infinity },
    summary: "print the coverage report of a server or of saved reports",
    description: "Fetch /__stubtool__/report from a running server, or render (and merge) reports saved with\n" +
      "serve --report-file. --format html writes the dashboard's page as a static file (with the server's\n" +
      "request journal when asked of a server), for a CI artifact. Exit 1 when a --fail-on check fails (after printing the report),\n" +
      "2 when the server is unreachable, a saved report or the --openapi document cannot be read.",
    flags: [
      ...SERVER_FLAGS,
      {
        name: "format",
        short: "f",
        type: "string",
        value: "FORMAT",
        help: "text, json, github-summary (Markdown for $GITHUB_STEP_SUMMARY) or html (a self-contained page) " +
          "(default: text)",
      },
      {
        name: "output",
        short: "o",
        type: "string",
        value: "FILE",
        help: "write the report to FILE instead of stdout",
      },
      {
        name: "scope",
        type: "string",
        value: "NAME",
        help: "only what requests with x-stubtool-scope: NAME did (the server needs --scopes)",
      },
      { name: "fail-on-unmatched", type: "boolean", help: "exit 1 if any request matched no stub" },
      {
        name: "fail-on-violations",
        type: "boolean",
        help: "exit 1 if any request broke the OpenAPI spec the server checks it against (serve --openapi SPEC --mock)",
      },
      {
        name: "fail-on-unused",
        type: "boolean",
        help: "exit 1 if any stub was never hit or any scenario transition never taken",
      },
      {
        name: "from",
        type: "string",
        multiple: true,
        value: "FILE...",
        help: "render saved reports instead of asking a server; several files are merged",
      },
      {
        name: "openapi",
        type: "string",
        value: "SPEC",
        help:
          "add the drift against an OpenAPI 3.0/3.1 or Swagger 2.0 document (YAML or JSON): operations no stub covers, " +
          "unmatched requests the spec describes",
      },
    ],
    examples: [
      "stubtool report --fail-on-unmatched",
      "stubtool report --format github-summary >> $GITHUB_STEP_SUMMARY",
      "stubtool report --from shard-1.json shard-2.json --format json",
      "stubtool report --format html --output stubtool-report.html",
      "stubtool report --scope users_test.ts --fail-on-unmatched",
      "stubtool report --openapi openapi.yaml",
    ],
  },
  {
    name: "record",
    positionals: { min: 0, max: 0 },
    summary: "record a real service's answers as stubs",
    description: "Pass every request on to --target and record its answers. On SIGINT/SIGTERM, write a config file\n" +
      "with one stub per distinct request: method + path + query, and the JSON or form body where requests to\n" +
      "one path differ by it (a request: json|form condition). A request answered differently over time\n" +
      "becomes a sequence. JSON bodies as YAML values, text bodies as strings, binary bodies as body_base64.\n" +
      "The file passes validate, and serve --config FILE answers as the service did.",
    flags: [
      { name: "target", type: "string", value: "URL", help: "the service to record (http:// or https://)" },
      {
        name: "port",
        short: "p",
        type: "string",
        value: "PORT",
        help: "port to listen on, 0 for any free port (default: $STUBTOOL_PORT, else 8080)",
      },
      {
        name: "host",
        type: "string",
        value: "HOST",
        help: "interface to bind (default: $STUBTOOL_HOST, else 127.0.0.1)",
      },
      {
        name: "out",
        short: "o",
        type: "string",
        value: "FILE",
        help: "the config file to write (default: stubs.yaml)",
      },
      ...RECORDING_FLAGS,
      { name: "quiet", short: "q", type: "boolean", help: "no line per recorded request" },
    ],
    examples: [
      "stubtool record --target https://api.example.com --port 9000",
      "stubtool record --target http://localhost:3000 --out tests/stubs.yaml --keep-header location",
    ],
  },
  {
    name: "import",
    args: "wiremock DIR|FILE | openapi SPEC | har FILE",
    positionals: { min: 2, max: 2 },
    summary: "convert WireMock mappings, an OpenAPI description or a HAR recording into a stubtool config",
    description: "wiremock: read a WireMock folder (DIR/mappings/**/*.json and DIR/__files; a DIR without mappings/\n" +
      "is the mappings folder itself) or one mapping file, and write the stubs as a YAML config, body files\n" +
      "copied beside it. A mapping stubtool cannot answer exactly as WireMock would is left out with one\n" +
      "[WARN] FILE mappings[i]: 'X' is not supported: ... line per feature (docs/wiremock.md).\n" +
      "openapi: read an OpenAPI 3.0/3.1 or Swagger 2.0 description and write one stub per operation, answering\n" +
      "its first 2xx response with the example, else a value generated from the schema. An operation that\n" +
      "cannot convert is left out with one [WARN] SPEC paths./x.get: 'X' is not supported: ... line.\n" +
      "har: read a browser's or proxy's HAR recording and write it as record does: one stub per distinct\n" +
      "request, sequences for repeated ones. An entry that cannot be replayed exactly (no response, a\n" +
      "WebSocket, not http(s), a body the HAR leaves out) is left out with a [WARN] FILE entries[i]: line.",
    flags: [
      {
        name: "out",
        short: "o",
        type: "string",
        value: "FILE",
        help: "the config file to write (default: stubs.yaml)",
      },
      {
        name: "strict",
        type: "boolean",
        help: "exit 1 when any mapping, operation or entry was left out (the file is still written)",
      },
      {
        name: "strict-requests",
        type: "boolean",
        help: "openapi: required query parameters and headers become conditions (present, any value)",
      },
      ...RECORDING_FLAGS.map((flag) => ({ ...flag, help: `har: ${flag.help}` })),
      {
        name: "origin",
        type: "string",
        value: "URL",
        help: "har: keep only the entries sent to this origin (https://api.example.com)",
      },
    ],
    examples: [
      "stubtool import wiremock ./wiremock -o stubs.yaml",
      "stubtool import wiremock mappings/users.json",
      "stubtool import openapi openapi.yaml -o stubs.yaml",
      "stubtool import har session.har -o stubs.yaml --keep-request-header authorization",
    ],
  },
  {
    name: "stubs",
    args: "add FILE... | list | remove ID... | remove --all",
    positionals: { min: 1, max: Infinity },
    summary: "add, list or remove stubs on a running server",
    description: "Drive a running server through its admin API (/__stubtool__/stubs).\n" +
      "  add FILE...    add the routes of config files (and --stub flags) as one batch: a later batch wins\n" +
      "                 over earlier ones, so a stub here overrides the server's config for the same request.\n" +
      "                 The stubs are checked first; problems print as validate prints them (exit 1).\n" +
      "  list           every stub: id, source, hits, method and path, scope\n" +
      "  remove ID...   remove stubs by id (exit 1 for an id the server does not have)\n" +
      "  remove --all   remove every stub added at runtime (over the API or the admin API); --scope: only that scope's\n" +
      "Exit 2 when the server is unreachable.",
    flags: [
      ...SERVER_FLAGS,
      {
        name: "stub",
        type: "string",
        multiple: true,
        value: "STUB",
        help: 'add: inline stub "METHOD /path -> STATUS [JSON]", repeatable',
      },
      {
        name: "scope",
        type: "string",
        value: "NAME",
        help: "add: stubs without a scope get this one; remove --all: only this scope's",
      },
      { name: "all", type: "boolean", help: "remove: every stub added at runtime" },
      { name: "format", short: "f", type: "string", value: "FORMAT", help: "list: text or json (default: text)" },
    ],
    examples: [
      "stubtool stubs add payment-failures.yaml",
      'stubtool stubs add --scope worker-3 --stub "POST /payments -> 402 {\\"error\\": \\"card_declined\\"}"',
      "stubtool stubs list --format json",
      "stubtool stubs remove payments-402",
      "stubtool stubs remove --all --scope worker-3",
    ],
  },
  {
    name: "schema",
    positionals: { min: 0, max: 0 },
    summary: "print the JSON Schema of config files, for editors",
    description:
      "Print the JSON Schema (draft 2020-12) of config files on stdout. Save it and point your editor at it:\n" +
      "the first line of a YAML config can be '# yaml-language-server: $schema=stubtool.schema.json'.\n" +
      "validate checks more than the schema can (regexes, min <= max, a sequence beside a status).",
    flags: [],
    examples: ["stubtool schema > stubtool.schema.json"],
  },
];

/** A usage error: wrong command, flag or flag value. The CLI prints it and exits 2. */
export class UsageError extends Error {
  /** The command whose `--help` the hint names, if any. */
  readonly command?: string;
  constructor(message: string, command?: string) {
    super(message);
    this.name = "UsageError";
    this.command = command;
  }
}

/** Looks a command up by name. */
export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** `did you mean 'serve'?` for a mistyped command, or undefined. */
export function suggestCommand(name: string): string | undefined {
  return didYouMean(name, COMMANDS.map((c) => c.name));
}

function flagsOf(command: CommandSpec): FlagSpec[] {
  return [...command.flags, ...COMMON_FLAGS];
}

/** `did you mean '--port'?` for a mistyped flag of `command`, or undefined. */
function suggestFlag(command: CommandSpec, option: string): string | undefined {
  // A one-letter option (`-x`) is too short to guess from: any two-letter name is "close".
  if (/^-[^-]$/.test(option)) return undefined;
  const names = flagsOf(command).map((f) => f.name);
  // didYouMean compares with '-' turned into '_', so compare against names spelled the same way.
  const hint = didYouMean(option.replace(/^-+/, ""), names.map((n) => n.replaceAll("-", "_")));
  return hint === undefined ? undefined : `--${names[names.map((n) => n.replaceAll("-", "_")).indexOf(hint)]}`;
}

/** Parsed arguments of one command. */
export interface ParsedArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** Does `args` ask for help (before any `--`)? */
export function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

/** Does `value` look like an option rather than a value (`-x`, `--x`; a lone `-` is a value)? */
function isOptionLike(value: string): boolean {
  return value.length > 1 && value[0] === "-";
}

/**
 * The usage error for the first option token that `parseArgs` in strict mode rejects:
 * an unknown option (named as typed, with a did-you-mean hint), a value on a boolean flag,
 * or a string flag without a value (or with one that looks like an option and is not
 * attached). The tokens come from a lenient parse of the same arguments, so the message
 * never depends on the wording of `parseArgs`'s own errors.
 */
function usageErrorFrom(command: CommandSpec, args: string[], options: ParseArgsOptions): UsageError | undefined {
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  const flags = new Map(flagsOf(command).map((flag) => [flag.name, flag]));
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const flag = Object.hasOwn(options, token.name) ? flags.get(token.name) : undefined;
    if (!flag) {
      const hint = suggestFlag(command, token.rawName);
      return new UsageError(
        `${command.name}: unknown option '${token.rawName}'${hint ? ` (did you mean '${hint}'?)` : ""}`,
        command.name,
      );
    }
    const name = `--${flag.name}`;
    if (flag.type === "boolean" && token.value !== undefined) {
      return new UsageError(`${command.name}: ${name} takes no value`, command.name);
    }
    if (flag.type === "string" && (token.value === undefined || (!token.inlineValue && isOptionLike(token.value)))) {
      return new UsageError(
        `${command.name}: ${name} needs a value (${name} ${
          flag.value ?? "VALUE"
        }; for a value starting with '-', write ${name}=VALUE)`,
        command.name,
      );
    }
  }
  return undefined;
}

/** The options of `parseArgs`, as {@link parseCommandArgs} derives them from a command's flags. */
type ParseArgsOptions = NonNullable<Parameters<typeof parseArgs>[0]>["options"] & object;

/**
 * Parses a command's arguments with `node:util` `parseArgs` (strict: `--name VALUE`,
 * `--name=VALUE`, `-n VALUE`, `-nVALUE`, grouped booleans `-qw`, the last value winning
 * unless the flag is repeatable, everything after `--` positional; a value that looks like
 * an option must be attached: `--port=-1`). Unknown flags, missing values and stray
 * arguments throw a {@link UsageError} with a hint.
 *
 * @example
 * ```ts
 * import { findCommand, parseCommandArgs } from "./usage.ts";
 * const { values } = parseCommandArgs(findCommand("serve")!, ["-qp", "0", "--stub=GET /a -> 200"]);
 * console.log(values); // { quiet: true, port: "0", stub: ["GET /a -> 200"] }
 * ```
 */
export function parseCommandArgs(command: CommandSpec, args: readonly string[]): ParsedArgs {
  const options: ParseArgsOptions = {};
  for (const flag of flagsOf(command)) {
    options[flag.name] = {
      type: flag.type,
      multiple: flag.multiple === true,
      ...(flag.short && { short: flag.short }),
    };
  }
  let parsed: ParsedArgs;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw usageErrorFrom(command, [...args], options) ?? error;
  }
  const { positionals } = parsed;
  const { min, max } = command.positionals;
  const count = positionals.length;
  if (count > max) {
    const extra = positionals[max];
    throw new UsageError(
      max === 0
        ? `${command.name}: unexpected argument '${extra}' (${command.name} takes only --flags)`
        : `${command.name}: unexpected extra argument '${extra}' (usage: stubtool ${command.name} ${command.args})`,
      command.name,
    );
  }
  if (count < min) {
    throw new UsageError(
      `${command.name}: missing ${command.args} (usage: stubtool ${command.name} ${command.args})`,
      command.name,
    );
  }
  return parsed;
}

function flagLines(flags: FlagSpec[]): string[] {
  const left = flags.map((f) => `${f.short ? `-${f.short}, ` : "    "}--${f.name}${f.value ? ` ${f.value}` : ""}`);
  const width = Math.max(...left.map((l) => l.length)) + 2;
  return flags.map((f, i) => `  ${left[i].padEnd(width)}${f.help}`);
}

/** The `--help` text of one command. */
export function commandHelp(command: CommandSpec): string {
  return [
    `Usage: stubtool ${command.name}${command.args ? ` ${command.args}` : ""}${
      command.flags.length ? " [options]" : ""
    }`,
    "",
    `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`,
    command.description,
    "",
    "Options:",
    ...flagLines(flagsOf(command)),
    "",
    "Examples:",
    ...command.examples.map((e) => `  ${e}`),
    "",
  ].join("\n");
}

/** The `stubtool --help` text. */
export function toolHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 3;
  return [
    `stubtool ${VERSION}: an HTTP mock server with a coverage / contract-drift report`,
    "",
    "Usage: stubtool <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    "Options:",
    ...flagLines([
      { name: "help", short: "h", type: "boolean", help: "show help (stubtool <command> --help for one command)" },
      { name: "version", short: "V", type: "boolean", help: "print the version" },
      COMMON_FLAGS[1],
    ]),
    "",
    "Exit codes: 0 success, 1 a check failed, 2 usage error or server unreachable.",
    "Environment: STUBTOOL_PORT (serve port, wait/report/stubs URL), STUBTOOL_HOST (serve host),",
    `             STUBTOOL_CONFIG (serve's default config file instead of ${DEFAULT_CONFIG_PATH}),`,
    "             STUBTOOL_TLS_CERT and STUBTOOL_TLS_KEY (serve's certificate files),",
    "             STUBTOOL_ADMIN_TOKEN (serve's admin token, sent by report and stubs),",
    "             STUBTOOL_FILES_ROOT (serve's --files-root), STUBTOOL_CALLBACK_CA (serve's --callback-ca),",
    "             STUBTOOL_STATE (serve's --state).",
    "",
  ].join("\n");
}

// ---- flag values -------------------------------------------------------------------

/** A port number 0–65535 from a flag or environment variable. */
export function portValue(text: string, where: string, command: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) > 65535) {
    throw new UsageError(`${where}: must be a port number from 0 to 65535, got ${JSON.stringify(text)}`, command);
  }
  return Number(text);
}

/** A whole number ≥ 0 (`--max-unmatched`, `--max-body`). */
export function countValue(text: string, where: string, command: string, unit = ""): number {
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${where}: must be a whole number${unit} of 0 or more, got ${JSON.stringify(text)}`, command);
  }
  return Number(text);
}

/** Seconds as a decimal number (`--timeout 2.5`); `positive` rules out 0. */
export function secondsValue(text: string, where: string, command: string, positive = false): number {
  const seconds = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(seconds) || (positive && seconds === 0) || seconds > 2_147_483) {
    throw new UsageError(
      `${where}: must be a number of seconds${positive ? " above 0" : ""} (like 10 or 2.5), got ${
        JSON.stringify(text)
      }`,
      command,
    );
  }
  return seconds;
}

/** An http:// or https:// URL (`record --target`, which may carry a path prefix). */
export function urlValue(text: string, where: string, command: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new UsageError(
      `${where}: must be an http:// or https:// URL like http://localhost:8080, got ${JSON.stringify(text)}`,
      command,
    );
  }
  return url;
}

/**
 * The base URL of a stubtool server (`wait --url`, `report --url`): `http://` or `https://`,
 * with no path (other than `/`), query or fragment — the CLI adds `/__stubtool__/...` itself.
 *
 * @example
 * ```ts
 * import { serverUrlValue } from "./usage.ts";
 * console.log(serverUrlValue("http://localhost:9000/", "--url", "wait").href); // "http://localhost:9000/"
 * try {
 *   serverUrlValue("http://localhost:9000/__stubtool__/report", "--url", "report");
 * } catch (error) {
 *   console.log((error as Error).message.startsWith("--url: must be the server's base URL")); // true
 * }
 * ```
 */
export function serverUrlValue(text: string, where: string, command: string): URL {
  const url = urlValue(text, where, command);
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    const extra = url.pathname !== "/" ? "a path" : url.search !== "" ? "a query" : "a fragment";
    throw new UsageError(
      `${where}: must be the server's base URL, without ${extra}: write ${where} ${url.origin}, got ${
        JSON.stringify(text)
      }`,
      command,
    );
  }
  return url;
}

/** One of a fixed set of words (`--format`), with a did-you-mean hint. */
export function choiceValue<T extends string>(text: string, choices: readonly T[], where: string, command: string): T {
  if ((choices as readonly string[]).includes(text)) return text as T;
  const hint = didYouMean(text, choices.map((c) => c.replaceAll("-", "_")));
  const suggestion = hint === undefined ? "" : ` (did you mean '${hint.replaceAll("_", "-")}'?)`;
  throw new UsageError(
    `${where}: must be one of ${choices.join(", ")}, got ${JSON.stringify(text)}${suggestion}`,
    command,
  );
}
