/**
 * The one place the CLI prints through. `out` and `err` write a line at once; `log`
 * buffers request-log lines and writes them in batches, so a busy server does one write
 * per batch rather than one per request, and a stdout that cannot keep up costs bounded
 * memory (lines beyond the cap are dropped and counted).
 * @module
 */

import process from "node:process";
import type { Writable } from "node:stream";
import type { Problem } from "../validate.ts";

/** Where CLI output goes. */
export interface Output {
  /** A line on stdout (results, banner). */
  out(line: string): void;
  /** A line on stderr (`[ERROR]`, `[WARN]`). */
  err(line: string): void;
  /** A request-log line on stdout, buffered. */
  log(line: string): void;
  /** Writes what is buffered and resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void>;
}

/** `[ERROR] <place>: <message>` */
export function errorLine(place: string, message: string): string {
  return `[ERROR] ${place}: ${message}`;
}

/** `[WARN] <place>: <message>` */
export function warnLine(place: string, message: string): string {
  return `[WARN] ${place}: ${message}`;
}

/** Prints problems in order, each `[ERROR]`/`[WARN] <place>: <message>` on stderr. */
export function printProblems(output: Output, problems: readonly Problem[], fallbackPlace: string): void {
  for (const { level, place, message } of problems) {
    output.err(
      level === "error" ? errorLine(place ?? fallbackPlace, message) : warnLine(place ?? fallbackPlace, message),
    );
  }
}

/** How long a log line waits for others to share its write. */
const LOG_BATCH_MS = 15;
/** Buffered log text beyond this many characters is dropped (stdout is not keeping up). */
const LOG_BUFFER_CAP = 1 << 20;
/** The longest {@link StreamOutput.flush} waits for the OS to take the output. */
const FLUSH_LIMIT_MS = 2_000;

/** Output to two writable streams (the process's stdout and stderr by default). */
export class StreamOutput implements Output {
  #stdout: Writable;
  #stderr: Writable;
  #pending: string[] = [];
  #pendingChars = 0;
  #dropped = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #draining = false;
  #lastWrites = new Map<Writable, Promise<void>>();

  constructor(stdout: Writable = process.stdout, stderr: Writable = process.stderr) {
    this.#stdout = stdout;
    this.#stderr = stderr;
    // A closed pipe (`stubtool report | head -1`) must not crash the process.
    stdout.on("error", () => {});
    stderr.on("error", () => {});
  }

  out(line: string): void {
    this.#writeLog();
    this.#write(this.#stdout, line + "\n");
  }

  err(line: string): void {
    this.#writeLog();
    this.#write(this.#stderr, line + "\n");
  }

  log(line: string): void {
    if (this.#pendingChars > LOG_BUFFER_CAP) {
      this.#dropped++;
      return;
    }
    this.#pending.push(line);
    this.#pendingChars += line.length + 1;
    this.#timer ??= setTimeout(() => this.#writeLog(), LOG_BATCH_MS);
  }

  async flush(): Promise<void> {
    this.#draining = false;
    this.#writeLog();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A stream that never confirms (a stuck pipe) must not keep the process from exiting.
    const giveUp = new Promise<void>((resolve) => timer = setTimeout(resolve, FLUSH_LIMIT_MS));
    await Promise.race([Promise.all(this.#lastWrites.values()), giveUp]);
    clearTimeout(timer);
  }

  #write(stream: Writable, text: string): boolean {
    let ok = true;
    this.#lastWrites.set(
      stream,
      new Promise<void>((resolve) => {
        try {
          ok = stream.write(text, () => resolve());
        } catch {
          resolve();
        }
      }),
    );
    return ok;
  }

  #writeLog(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#draining || this.#pending.length === 0) return;
    let text = this.#pending.join("\n") + "\n";
    if (this.#dropped) {
      text += `[WARN] log: ${this.#dropped} request log line(s) dropped because stdout was not keeping up\n`;
      this.#dropped = 0;
    }
    this.#pending = [];
    this.#pendingChars = 0;
    if (!this.#write(this.#stdout, text)) {
      this.#draining = true;
      this.#stdout.once("drain", () => {
        this.#draining = false;
        this.#writeLog();
      });
    }
  }
}

/** Output kept in memory, for calling the CLI in-process (tests). */
export class MemoryOutput implements Output {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  #waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];

  out(line: string): void {
    this.#push(this.stdout, line);
  }
  err(line: string): void {
    this.#push(this.stderr, line);
  }
  log(line: string): void {
    this.#push(this.stdout, line);
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** Resolves with the first stdout line matching `pattern`, now or when it is printed. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
    for (const line of this.stdout) {
      const match = line.match(pattern);
      if (match) return Promise.resolve(match);
    }
    return new Promise((resolve) => this.#waiters.push({ pattern, resolve }));
  }

  #push(lines: string[], line: string): void {
    lines.push(line);
    if (lines !== this.stdout) return;
    this.#waiters = this.#waiters.filter(({ pattern, resolve }) => {
      const match = line.match(pattern);
      if (match) resolve(match);
      return !match;
    });
  }
}
