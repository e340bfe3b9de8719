// The CLI as a user meets it first: --help, --version, and usage errors (exit 2), run as a subprocess.
import fc from "fast-check";
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { COMMANDS, type CommandSpec, type FlagSpec, parseCommandArgs, UsageError } from "../src/cli/usage.ts";
import { VERSION } from "../src/version.ts";
import { lines, runCli } from "./_cli.ts";

Deno.test("stubtool --version prints the version, exit 0", async () => {
  for (const flag of ["--version", "-V"]) {
    const { code, stdout, stderr } = await runCli([flag]);
    assert.equal(code, 0);
    assert.equal(stdout, `stubtool ${VERSION}\n`);
    assert.equal(stderr, "");
  }
});

Deno.test("stubtool --help lists every command and the exit codes, exit 0", async () => {
  const { code, stdout, stderr } = await runCli(["--help"]);
  assert.equal(code, 0);
  assert.equal(stderr, "");
  assert.match(stdout, /^stubtool \S+: an HTTP mock server/);
  for (const command of ["serve", "wait", "validate", "report"]) {
    assert.match(stdout, new RegExp(`^  ${command} `, "m"));
  }
  assert.match(stdout, /Exit codes: 0 success, 1 a check failed, 2 usage error or server unreachable\./);
  assert.equal((await runCli(["-h"])).stdout, stdout);
});

Deno.test("stubtool <command> --help shows every flag of the usage table, exit 0", async () => {
  const results = await Promise.all(COMMANDS.map((c) => runCli([c.name, "--help"])));
  results.forEach(({ code, stdout, stderr }, i) => {
    const command = COMMANDS[i];
    assert.equal(code, 0, command.name);
    assert.equal(stderr, "");
    assert.ok(stdout.startsWith(`Usage: stubtool ${command.name}`), stdout);
    for (const flag of command.flags) {
      assert.match(stdout, new RegExp(`--${flag.name}\\b`), `${command.name} --${flag.name}`);
    }
    assert.match(stdout, /--help/);
  });
  // -h works anywhere, even after other flags.
  const late = await runCli(["serve", "--port", "1", "-h"]);
  assert.equal(late.code, 0);
  assert.ok(late.stdout.startsWith("Usage: stubtool serve"));
});

Deno.test("serve --help names the built-in default config path and the environment variables", async () => {
  const { stdout } = await runCli(["serve", "--help"]);
  assert.match(stdout, /default: \/config\/stubs\.yaml if it exists; \$STUBTOOL_CONFIG names another/);
  assert.match(stdout, /default: \$STUBTOOL_PORT, else 8080; the config file's port wins/);
  assert.match(stdout, /default: \$STUBTOOL_HOST, else 127\.0\.0\.1/);
});

/** Runs and checks a usage error: exit 2, nothing on stdout, exactly one [ERROR] line. */
async function usageError(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await runCli(args);
  assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
  assert.equal(stdout, "");
  const [line, ...rest] = lines(stderr);
  assert.deepEqual(rest, [], `one line: ${stderr}`);
  assert.ok(line.startsWith("[ERROR] "), line);
  assert.equal(stderr, line + "\n", "one line, no stack trace");
  return line;
}

Deno.test("usage errors: missing or unknown command, with did-you-mean, exit 2", async () => {
  assert.equal(
    await usageError([]),
    "[ERROR] missing command (serve, wait, validate, report, record, import, stubs, schema); run stubtool --help",
  );
  assert.equal(
    await usageError(["sevre"]),
    "[ERROR] unknown command 'sevre' (did you mean 'serve'?); commands: serve, wait, validate, report, record, import, stubs, schema; run stubtool --help",
  );
  assert.equal(
    await usageError(["launch"]),
    "[ERROR] unknown command 'launch'; commands: serve, wait, validate, report, record, import, stubs, schema; run stubtool --help",
  );
  assert.equal(
    await usageError(["--port", "3000", "serve"]),
    "[ERROR] option '--port' must come after the command: stubtool serve --port ...; run stubtool --help",
  );
});

Deno.test("usage errors: unknown flags, with did-you-mean and the command's --help, exit 2", async () => {
  assert.equal(
    await usageError(["serve", "--prot", "3000"]),
    "[ERROR] serve: unknown option '--prot' (did you mean '--port'?); run stubtool serve --help",
  );
  assert.equal(
    await usageError(["report", "--fail-on-unmatchd"]),
    "[ERROR] report: unknown option '--fail-on-unmatchd' (did you mean '--fail-on-unmatched'?); run stubtool report --help",
  );
  assert.equal(
    await usageError(["wait", "-x"]),
    "[ERROR] wait: unknown option '-x'; run stubtool wait --help",
  );
});

Deno.test("usage errors: missing values, values on boolean flags, stray arguments, exit 2", async () => {
  assert.equal(
    await usageError(["serve", "--port"]),
    "[ERROR] serve: --port needs a value (--port PORT; for a value starting with '-', write --port=VALUE); run stubtool serve --help",
  );
  assert.equal(
    await usageError(["serve", "--quiet=yes"]),
    "[ERROR] serve: --quiet takes no value; run stubtool serve --help",
  );
  assert.equal(
    await usageError(["validate"]),
    "[ERROR] validate: missing FILE (usage: stubtool validate FILE, or --wiremock DIR); run stubtool validate --help",
  );
  assert.equal(
    await usageError(["validate", "a.yaml", "b.yaml"]),
    "[ERROR] validate: unexpected extra argument 'b.yaml' (usage: stubtool validate [FILE]); run stubtool validate --help",
  );
  assert.equal(
    await usageError(["serve", "extra"]),
    "[ERROR] serve: unexpected argument 'extra' (serve takes only --flags); run stubtool serve --help",
  );
});

Deno.test("usage errors: bad flag values say what is expected, exit 2", async () => {
  const cases: [string[], string][] = [
    [["serve", "--port", "http"], `[ERROR] --port: must be a port number from 0 to 65535, got "http"`],
    [["serve", "--port=70000"], `[ERROR] --port: must be a port number from 0 to 65535, got "70000"`],
    [["serve", "--max-unmatched", "lots"], `[ERROR] --max-unmatched: must be a whole number of 0 or more, got "lots"`],
    [["serve", "--max-body", "1.5"], `[ERROR] --max-body: must be a whole number of bytes of 0 or more, got "1.5"`],
    [
      ["serve", "--handler-timeout", "0"],
      `[ERROR] --handler-timeout: must be a number of seconds above 0 (like 10 or 2.5), got "0"`,
    ],
    [["wait", "--timeout", "soon"], `[ERROR] --timeout: must be a number of seconds (like 10 or 2.5), got "soon"`],
    [
      ["wait", "--url", "localhost:8080"],
      `[ERROR] --url: must be an http:// or https:// URL like http://localhost:8080, got "localhost:8080"`,
    ],
    [
      ["report", "--format", "githb-summary"],
      `[ERROR] --format: must be one of text, json, github-summary, html, got "githb-summary" (did you mean 'github-summary'?)`,
    ],
    [
      ["report", "--format", "pdf"],
      `[ERROR] --format: must be one of text, json, github-summary, html, got "pdf"`,
    ],
  ];
  const results = await Promise.all(cases.map(([args]) => usageError(args)));
  results.forEach((line, i) => {
    const [args, expected] = cases[i];
    assert.equal(line, `${expected}; run stubtool ${args[0]} --help`);
  });
});

Deno.test("usage errors: an invalid STUBTOOL_PORT is named as such, in serve, wait and report, exit 2", async () => {
  for (const command of ["serve", "wait", "report"]) {
    const { code, stderr } = await runCli([command], { env: { STUBTOOL_PORT: "eighty" } });
    assert.equal(code, 2, command);
    assert.equal(
      stderr,
      `[ERROR] STUBTOOL_PORT: must be a port number from 0 to 65535, got "eighty"; run stubtool ${command} --help\n`,
    );
  }
});

Deno.test("--debug is accepted anywhere and shows nothing extra when all goes well", async () => {
  const { code, stdout } = await runCli(["--debug", "--version"]);
  assert.equal(code, 0);
  assert.equal(stdout, `stubtool ${VERSION}\n`);
  assert.equal((await runCli(["validate", "--debug", "examples/stubs.yaml"])).code, 0);
});

/** The `parseArgs` options of a command, as usage.ts derives them (its flags plus --help and --debug). */
function optionsOf(command: CommandSpec) {
  const flags: FlagSpec[] = [
    ...command.flags,
    { name: "help", short: "h", type: "boolean", help: "" },
    { name: "debug", type: "boolean", help: "" },
  ];
  return Object.fromEntries(flags.map((f) => [
    f.name,
    { type: f.type, multiple: f.multiple === true, ...(f.short ? { short: f.short } : {}) },
  ]));
}

Deno.test("parseCommandArgs: whatever strict parseArgs rejects becomes a usage error naming the option as typed", () => {
  for (const command of COMMANDS) {
    const options = optionsOf(command);
    const shorts = Object.values(options).flatMap((o) => "short" in o ? [o.short] : []);
    const words = [
      ...Object.keys(options).flatMap((name) => [`--${name}`, `--${name}=v`, `--${name}=-1`, `--${name}=`]),
      ...shorts.flatMap((s) => [`-${s}`, `-${s}80`]),
      ...shorts.flatMap((a) => shorts.map((b) => `-${a}${b}`)),
      ...["--nope", "--max_body", "-x", "-qx", "--=x", "--a=b", "--", "-", "80", "-1", "--1", "file.yaml", ""],
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 6 }), (args) => {
        let expected: unknown;
        try {
          expected = parseArgs({ args, options, strict: true, allowPositionals: true });
        } catch {
          expected = undefined;
        }
        try {
          const parsed = parseCommandArgs(command, args);
          assert.deepEqual(parsed, expected, JSON.stringify(args));
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          // Too many or too few positionals is checked after a parse that succeeded.
          if (/unexpected (extra )?argument|: missing /.test(error.message)) {
            return assert.notEqual(expected, undefined);
          }
          assert.equal(expected, undefined, `${JSON.stringify(args)}: ${error.message}`);
          // The option named is one the arguments hold: as typed, or (a known flag) by its long or short name.
          const [, unknown, known] =
            /option '([^']+)'|(--[a-z-]+) (?:takes no value|needs a value)/.exec(error.message) ??
              [];
          const typed = (name: string) =>
            args.some((arg) =>
              arg === name || arg.startsWith(`${name}=`) || (/^-[^-]$/.test(name) && /^-[^-]/.test(arg) &&
                arg.includes(name[1]))
            );
          const short = known && options[known.slice(2)]?.short;
          assert.ok(
            unknown ? typed(unknown) : typed(known!) || (short !== undefined && typed(`-${short}`)),
            `${JSON.stringify(args)}: ${error.message}`,
          );
        }
      }),
      { numRuns: 1500 },
    );
  }
});

Deno.test("usage errors: an unknown option is named as typed, so did-you-mean works past the underscore", async () => {
  assert.equal(
    await usageError(["serve", "--max_body", "1"]),
    "[ERROR] serve: unknown option '--max_body' (did you mean '--max-body'?); run stubtool serve --help",
  );
  assert.equal(await usageError(["serve", "-qx"]), "[ERROR] serve: unknown option '-x'; run stubtool serve --help");
  assert.equal(
    await usageError(["serve", "--port", "-1"]),
    "[ERROR] serve: --port needs a value (--port PORT; for a value starting with '-', write --port=VALUE); run stubtool serve --help",
  );
  assert.equal(
    await usageError(["serve", "-p"]),
    "[ERROR] serve: --port needs a value (--port PORT; for a value starting with '-', write --port=VALUE); run stubtool serve --help",
  );
});

Deno.test("parseCommandArgs: repeatable flags collect, others keep the last value, -- ends the flags", () => {
  const serve = COMMANDS.find((c) => c.name === "serve")!;
  const { values, positionals } = parseCommandArgs(serve, ["--stub", "A", "--stub=B", "-p", "1", "-qwp2"]);
  assert.deepEqual({ ...values }, { stub: ["A", "B"], port: "2", quiet: true, watch: true });
  assert.deepEqual(positionals, []);
  const report = COMMANDS.find((c) => c.name === "report")!;
  assert.deepEqual(parseCommandArgs(report, ["a.json", "--", "--from", "-x"]).positionals, ["a.json", "--from", "-x"]);
  assert.throws(() => parseCommandArgs(serve, ["--port", "-1"]), /--port needs a value .*write --port=VALUE/);
  assert.equal(parseCommandArgs(serve, ["--port=-1"]).values.port, "-1");
  assert.throws(
    () => parseCommandArgs(serve, ["--max_body", "1"]),
    /unknown option '--max_body' \(did you mean '--max-body'\?\)/,
  );
});

Deno.test("stubtool schema prints the config file's JSON Schema on stdout; it takes no arguments", async () => {
  const { code, stdout, stderr } = await runCli(["schema"]);
  assert.equal(code, 0, stderr);
  const schema = JSON.parse(stdout);
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.deepEqual(schema.required, ["routes"]);
  const extra = await runCli(["schema", "stubs.yaml"]);
  assert.equal(extra.code, 2);
  assert.match(extra.stderr, /^\[ERROR\] schema: /);
});
