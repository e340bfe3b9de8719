/**
 * `serve --watch`: follows the config file and reloads the stubs when it changes. Every
 * change is parsed and validated first; a config with errors prints the same `[ERROR]`
 * lines as `validate` and the server keeps the stubs it has. A valid one replaces the
 * stub set at once (src/stubs/reload.ts, `StubHandler.replace`), carrying hit counts and
 * sequence positions over for stubs whose identity is unchanged. Uses `node:fs` `watch`
 * on the file's directory, so editors that save by writing a new file and renaming it
 * over the old one are followed too.
 * @module
 */

import { type FSWatcher, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { describeReadError, loadConfigText } from "../stubs/config.ts";
import type { StubHandler } from "../server/handler.ts";
import { inlineStubs } from "../stubs/inline.ts";
import type { Stub } from "../stubs/model.ts";
import { describeChanges } from "../stubs/reload.ts";
import { errorLine, type Output, printProblems, warnLine } from "./output.ts";

/** Changes closer together than this are one reload. */
export const WATCH_DEBOUNCE_MS = 100;

/**
 * Calls `onChange` once things have been quiet for `debounceMs` after any change to
 * `file`: written in place, or replaced through a rename. Returns what stops watching.
 */
export function watchFile(file: string, onChange: () => void, debounceMs = WATCH_DEBOUNCE_MS): () => void {
  const name = basename(file);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watcher: FSWatcher = watch(dirname(file), (_event, changed) => {
    // Some platforms do not say which file changed: then it may have been this one.
    if (changed !== null && changed !== undefined && String(changed) !== name) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  });
  watcher.on("error", () => {}); // the directory went away: nothing more to follow
  return () => {
    clearTimeout(timer);
    watcher.close();
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
  /** The config text already loaded, so an event that changed nothing reloads nothing. */
  loadedText?: string;
}

/**
 * Follows `file` and reloads the stubs on each change (one reload at a time; changes
 * during a reload trigger one more). Prints `[watch] <file>: +2 -1 ~3 stubs (…)` on
 * success; on failure the `[ERROR]` lines and that the previous stubs stay. Returns what
 * stops watching.
 */
export function watchConfig(file: string, options: ReloadOptions): () => void {
  const { handler, output, inlineTexts, port } = options;
  let loadedText = options.loadedText;
  let running: Promise<void> | undefined;
  let again = false;

  const reloadOnce = async (): Promise<void> => {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      // An editor may remove the file for a moment while it saves; the next event reloads.
      output.err(errorLine(file, describeReadError(error)));
      output.err(`[watch] ${file}: keeping the previous ${handler.stubs.length} stub(s)`);
      return;
    }
    if (text === loadedText) return;
    const loaded = await loadConfigText(text, file);
    const configStubs: Stub[] = loaded.config?.routes ?? [];
    const count = configStubs.length;
    const inline = await inlineStubs(inlineTexts, {
      stubs: configStubs,
      places: (i) => i < count ? `routes[${i}]` : `--stub[${i - count}]`,
    });
    const problems = [...loaded.problems, ...inline.problems];
    printProblems(output, problems, file);
    if (!loaded.config || problems.some((p) => p.level === "error")) {
      output.err(`[watch] ${file} has errors: keeping the previous ${handler.stubs.length} stub(s)`);
      return;
    }
    loadedText = text;
    if (loaded.config.port !== undefined && loaded.config.port !== port) {
      output.err(
        warnLine("port", `${file} now sets port ${loaded.config.port}; still listening on ${port} until restarted`),
      );
    }
    // The config's batch is replaced in place; --stub stubs (and stubs added at runtime) stay.
    const before = handler.routes.filter((r) => r.source === "config").map((r) => r.stub);
    const changes = handler.replace(configStubs, "config");
    output.out(
      `[watch] ${file}: ${describeChanges(changes, before, configStubs)}; ${handler.routes.length} stub(s) now`,
    );
  };

  const reload = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await reloadOnce();
        } catch (error) {
          output.err(errorLine(file, `reload failed: ${error instanceof Error ? error.message : String(error)}`));
        }
      } while (again);
      running = undefined;
    })();
  };

  return watchFile(file, reload);
}
