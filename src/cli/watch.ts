/**
 * `serve --watch`: follows the config file, and the body files its stubs answer with, and
 * reloads the stubs when one of them changes.
 * Every change is parsed and validated first; a config with errors prints the same
 * `[ERROR]` lines as `validate` and the server keeps the stubs it has. A valid one replaces
 * the stub set at once (src/stubs/reload.ts, `StubRegistry.replaceSource`), carrying hit counts and
 * sequence positions over for stubs whose identity is unchanged.
 *
 * The file is followed by polling, not by file-system events: every {@link WATCH_POLL_MS}
 * it resolves the path (through every symbolic link) and reads the target's size, times and
 * inode. That one check sees every way a config changes — written in place, replaced by an
 * editor's rename, a symbolic link pointed elsewhere, a Kubernetes ConfigMap update (the
 * mount's `..data` link swapped to a new timestamped folder), the folder removed and
 * created again — where events are tied to one directory's inode and are lost when it goes
 * away. A change is loaded only once the file has stayed the same for {@link WATCH_QUIET_MS},
 * so a file still being written is never loaded half-way.
 * @module
 */

import { loadTemplating } from "../templating/engine.ts";
import { messageOf } from "../error_message.ts";
import { readFile, realpath, stat } from "node:fs/promises";
import { describeReadError, loadConfigText } from "../stubs/config.ts";
import type { StubHandler } from "../server/handler.ts";
import { inlineStubs } from "../stubs/inline.ts";
import type { CompiledStub } from "../stubs/model.ts";
import { describeChanges } from "../stubs/reload.ts";
import { errorLine, type Output, printProblems, warnLine } from "./output.ts";
import { wireMockFiles as wireMockFilesOf } from "./loaders/wiremock_folder.ts";

/** How often the file is checked. */
export const WATCH_POLL_MS = 100;

/**
 * How long a file must stay unchanged before it is loaded: longer than the pauses of a
 * writer that saves in several chunks, short enough to feel immediate after a save.
 */
export const WATCH_QUIET_MS = 800;

/**
 * What the file is right now, as one comparable string: the path it resolves to and that
 * file's device, inode, size and times, or why it cannot be read (`missing: ENOENT`).
 */
async function fingerprint(file: string): Promise<string> {
  try {
    const target = await realpath(file);
    const info = await stat(target);
    return `${target}\n${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
  } catch (error) {
    return `missing: ${(error as { code?: string })?.code ?? String(error)}`;
  }
}

/** {@link fingerprint} of each file, one after another: any of them changing changes it. */
async function fingerprints(files: readonly string[]): Promise<string> {
  let all = "";
  for (const file of files) all += `${await fingerprint(file)}\n\n`;
  return all;
}

/**
 * Calls `onSettled` after `file` changed and then stayed the same for `quietMs` (also once
 * after the start, to catch a change made while the caller was loading it). `file` may be
 * a function giving the files to follow at each check (a config and its body files): a
 * change to any of them counts. `onSettled` returns false when a file changed again while
 * it read it; then it waits again. Checks run one at a time, every `pollMs`. Returns what
 * stops watching.
 */
export function watchFile(
  file: string | (() => readonly string[]),
  onSettled: () => Promise<boolean>,
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake = () => {};
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  const files = typeof file === "string" ? () => [file] : file;
  (async () => {
    let seen = await fingerprints(files());
    let changedAt = performance.now();
    let pending = true;
    while (!stopped) {
      await sleep(WATCH_POLL_MS);
      if (stopped) break;
      const now = await fingerprints(files());
      if (now !== seen) {
        seen = now;
        changedAt = performance.now();
        pending = true;
      } else if (pending && performance.now() - changedAt >= WATCH_QUIET_MS) {
        pending = !(await onSettled());
        if (pending) changedAt = performance.now();
      }
    }
  })();

  return () => {
    stopped = true;
    clearTimeout(timer);
    wake();
  };
}

/** What a reload needs to know besides the file. */
export interface ReloadOptions {
  handler: StubHandler;
  output: Output;
  /** The `--stub` texts: they come after the config's stubs after every reload too. */
  inlineTexts: readonly string[];
  /** The port the server listens on; a config that now sets another one gets a warning. */
  port: number;
  /** The config text already loaded, so a change that leaves the text as it was reloads nothing. */
  loadedText?: string;
  /** The config's `cors:` and `proxy_unmatched:` at start: a reload cannot change them, so a change gets a warning. */
  started?: { cors?: unknown; proxyUnmatched?: string };
}

/**
 * Follows `file` and reloads the stubs each time it has changed and settled. Prints
 * `[watch] <file>: +2 -1 ~3 stubs (…)` on success; on failure the `[ERROR]` lines and that
 * the previous stubs stay. A file that cannot be read (removed, its folder removed) is
 * reported once, and watching goes on until it is back. Returns what stops watching.
 */
export function watchConfig(file: string, options: ReloadOptions): () => void {
  const { handler, output } = options;
  let loadedText = options.loadedText;
  /** The read problem last reported, so a file that stays missing is reported once. */
  let reported: string | undefined;
  const followed = () => followedFiles(file, handler);
  /** What the body files were when the config was last loaded. */
  let loadedBodies = fingerprints(followed().slice(1));

  const reload = async (): Promise<boolean> => {
    const watched = followed();
    const before = await fingerprints(watched);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      const problem = describeReadError(error);
      if (problem !== reported) {
        reported = problem;
        output.err(errorLine(file, problem));
        output.err(
          `[watch] ${file}: keeping the previous ${handler.registry.stubs.length} stub(s); still watching for it`,
        );
      }
      return true;
    }
    // Written to again while it was read: wait until it settles again.
    if (await fingerprints(watched) !== before) return false;
    const bodies = await fingerprints(watched.slice(1));
    if (text === loadedText && bodies === await loadedBodies && reported === undefined) return true;
    reported = undefined;
    loadedText = text;
    loadedBodies = Promise.resolve(bodies);
    const configStubs = await loadStubs(text, file, options);
    if (!configStubs) return true;
    // The config's batch is replaced in place; --stub stubs (and stubs added at runtime) stay.
    const previous = handler.registry.routes.filter((r) => r.source === "config").map((r) => r.stub);
    const changes = handler.registry.replaceSource(configStubs, "config");
    loadedBodies = fingerprints(followed().slice(1));
    output.out(
      `[watch] ${file}: ${
        describeChanges(changes, previous, configStubs)
      }; ${handler.registry.routes.length} stub(s) now`,
    );
    return true;
  };

  return watchFile(followed, async () => {
    try {
      return await reload();
    } catch (error) {
      // Never stop watching over one bad reload: say what happened and go on.
      output.err(errorLine(file, `reload failed: ${messageOf(error)}`));
      output.err(`[watch] ${file}: keeping the previous ${handler.registry.stubs.length} stub(s); still watching`);
      return true;
    }
  });
}

/** The config and the body files its stubs now answer with: a change to any of them reloads. */
function followedFiles(file: string, handler: StubHandler): string[] {
  const files = new Set([file]);
  for (const route of handler.registry.routes) {
    if (route.source !== "config") continue;
    for (const response of route.stub.responses) if (response.filePath) files.add(response.filePath);
  }
  return [...files];
}

/**
 * The config's stubs from `text` (the `--stub` stubs checked after them), its problems printed;
 * undefined, after saying the previous stubs stay, when it has errors. Warns about settings a
 * reload cannot change.
 */
async function loadStubs(text: string, file: string, options: ReloadOptions): Promise<CompiledStub[] | undefined> {
  const { handler, output, inlineTexts, port } = options;
  const loaded = await loadConfigText(text, file);
  const configStubs: CompiledStub[] = loaded.config?.routes ?? [];
  const count = configStubs.length;
  const inline = await inlineStubs(inlineTexts, {
    stubs: configStubs,
    places: (i) => i < count ? `routes[${i}]` : `--stub[${i - count}]`,
  });
  const problems = [...loaded.problems, ...loaded.locate ? await loaded.locate(inline.problems) : inline.problems];
  printProblems(output, problems, file);
  if (!loaded.config || problems.some((p) => p.level === "error")) {
    output.err(`[watch] ${file} has errors: keeping the previous ${handler.registry.stubs.length} stub(s)`);
    return undefined;
  }
  if (loaded.config.port !== undefined && loaded.config.port !== port) {
    output.err(
      warnLine("port", `${file} now sets port ${loaded.config.port}; still listening on ${port} until restarted`),
    );
  }
  for (const [key, field] of [["cors", "cors"], ["proxy_unmatched", "proxyUnmatched"]] as const) {
    const now = loaded.config[field];
    if (JSON.stringify(now) !== JSON.stringify(options.started?.[field])) {
      output.err(warnLine(key, `${file} changed ${key}; it applies when serve is restarted`));
    }
  }
  return configStubs;
}

/** What following WireMock folders needs. */
export interface WireMockWatchOptions {
  handler: StubHandler;
  output: Output;
  /** `--strict` and `--wiremock-global-templating`, as at start. */
  options: { strict?: boolean; globalTemplating?: boolean };
}

/**
 * Follows WireMock folders (`serve --wiremock DIR --watch`): a mapping file or a `__files`
 * file added, changed or removed reloads every folder's mappings, printing the warnings again
 * and `[watch] DIR: +1 -0 ~2 stubs (…)`. Under `--strict`, a mapping left out keeps the
 * previous stubs. Returns what stops watching.
 */
export function watchWireMock(
  dirs: readonly { dir: string; place: string }[],
  { handler, output, options }: WireMockWatchOptions,
): () => void {
  const label = dirs.map((d) => d.dir).join(", ");
  const followed = () => dirs.flatMap(({ dir }) => wireMockFilesOf(dir));
  let loadedFiles = followed().join("\n");
  let loadedPrints: Promise<string> = fingerprints(followed());
  const reload = async (): Promise<boolean> => {
    const files = followed();
    const before = await fingerprints(files);
    if (before === await loadedPrints && files.join("\n") === loadedFiles) return true;
    const { loadWireMockFolders } = await import("./loaders/wiremock_folder.ts");
    // Mappings are checked synchronously and may use a template or JSONPath: the engine loads first.
    await loadTemplating();
    const others = handler.registry.routes.filter((r) => r.source !== "wiremock");
    const takenIds = new Set(others.flatMap((r) => r.stub.id === undefined ? [] : [r.stub.id]));
    const loaded = loadWireMockFolders(dirs, { ...options, takenIds });
    // Written to again while it was read: wait until it settles again.
    if (await fingerprints(followed()) !== before) return false;
    loadedFiles = files.join("\n");
    loadedPrints = Promise.resolve(before);
    printProblems(output, loaded.problems, "wiremock");
    if (loaded.problems.some((p) => p.level === "error")) {
      output.err(`[watch] ${label} has errors: keeping the previous ${handler.registry.stubs.length} stub(s)`);
      return true;
    }
    const stubs = loaded.batches.flat();
    const previous = handler.registry.routes.filter((r) => r.source === "wiremock").map((r) => r.stub);
    const changes = handler.registry.replaceSource(stubs, "wiremock");
    output.out(
      `[watch] ${label}: ${describeChanges(changes, previous, stubs)}; ${handler.registry.routes.length} stub(s) now`,
    );
    return true;
  };
  return watchFile(followed, async () => {
    try {
      return await reload();
    } catch (error) {
      output.err(errorLine(label, `reload failed: ${messageOf(error)}`));
      output.err(`[watch] ${label}: keeping the previous ${handler.registry.stubs.length} stub(s); still watching`);
      return true;
    }
  });
}
