/**
 * The one place the CLI prints through. `out` and `err` write a line at once; `log`
 * buffers request-log lines and writes them in batches, so a busy server does one write
 * per batch rather than one per request, and a stdout that cannot keep up costs bounded
 * memory (lines beyond the cap are dropped and counted). Bytes reach the process's
 * `stdout` and `stderr` through {@link streamSink}.
 * @module
 */

import type { Writable } from "node:stream";
import type { Problem } from "../stubs/validate.ts";

/** Where a {@link StreamOutput} channel writes: stdout or stderr, or a test's stand-in. */
export interface TextSink {
  /**
   * Writes `text` and resolves once the stream has taken all of it. Never rejects: text for
   * a closed pipe (`stubtool report | head -1`) is lost, and the process carries on.
   */
  write(text: string): Promise<void>;
}

/**
 * A writable stream (`process.stdout`) as a {@link TextSink}: each write resolves when the
 * stream's callback says the data went out (after the stream's own buffering, so a stdout
 * nobody reads keeps the write pending and the CLI's log batching holds back).
 *
 * @example
 * ```ts
 * import { Writable } from "node:stream";
 * import { streamSink } from "./output.ts";
 * const seen: string[] = [];
 * const sink = new Writable({ write: (chunk, _encoding, done) => (seen.push(String(chunk)), done()) });
 * await streamSink(sink).write("hello\n");
 * console.log(seen); // ["hello\n"]
 * ```
 */
export function streamSink(stream: Writable): TextSink {
  // A closed pipe (`stubtool report | head -1`) must not crash the process.
  stream.on("error", () => {});
  return {
    write: (text) =>
      new Promise<void>((resolve) => {
        try {
          // After an error the callback still comes, with the error: the text is lost either way.
          stream.write(text, () => resolve());
        } catch {
          resolve();
        }
      }),
  };
}

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

/**
 * One stream's writes, one at a time and in order: text sent while a write is under way
 * waits and goes out together with the rest in the next write.
 */
class Channel {
  #stream: TextSink;
  #waiting: string[] = [];
  #writing: Promise<void> | undefined;
  #onIdle: () => void;

  constructor(stream: TextSink, onIdle: () => void) {
    this.#stream = stream;
    this.#onIdle = onIdle;
  }

  /** Is a write under way (the OS has not taken everything yet)? */
  get busy(): boolean {
    return this.#writing !== undefined;
  }

  send(text: string): void {
    if (this.#writing) this.#waiting.push(text);
    else this.#start(text);
  }

  /** Resolves once everything sent so far has been written. */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  #start(text: string): void {
    this.#writing = this.#stream.write(text).catch(() => {}).then(() => {
      this.#writing = undefined;
      if (this.#waiting.length) this.#start(this.#waiting.splice(0).join(""));
      else this.#onIdle();
    });
  }
}

/**
 * Output to two sinks (the process's stdout and stderr). A request-log batch is
 * written only when stdout has taken the previous write, so a stdout that cannot keep up
 * holds lines back (up to a cap, then drops and counts them) instead of queueing without end.
 */
export class StreamOutput implements Output {
  #stdout: Channel;
  #stderr: Channel;
  #pending: string[] = [];
  #pendingChars = 0;
  #dropped = 0;
  /** A batch timer is running: the lines logged meanwhile go out when it ends. */
  #batching = false;

  constructor(stdout: TextSink, stderr: TextSink) {
    // Once stdout has taken a write, log lines that waited meanwhile go out.
    this.#stdout = new Channel(stdout, () => this.#writeLog());
    this.#stderr = new Channel(stderr, () => {});
  }

  out(line: string): void {
    this.#writeLog();
    this.#stdout.send(line + "\n");
  }

  err(line: string): void {
    this.#writeLog();
    this.#stderr.send(line + "\n");
  }

  log(line: string): void {
    if (this.#pendingChars > LOG_BUFFER_CAP) {
      this.#dropped++;
      return;
    }
    this.#pending.push(line);
    this.#pendingChars += line.length + 1;
    if (this.#batching) return;
    this.#batching = true;
    setTimeout(() => {
      this.#batching = false;
      this.#writeLog();
    }, LOG_BATCH_MS);
  }

  async flush(): Promise<void> {
    this.#writeLog(true);
    // A stream that never confirms (a stuck pipe) must not keep the process from exiting.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => timer = setTimeout(resolve, FLUSH_LIMIT_MS));
    await Promise.race([Promise.all([this.#stdout.idle(), this.#stderr.idle()]), limit]);
    clearTimeout(timer);
  }

  /** Writes the pending log lines, unless stdout is still busy (then it calls again when done) or `force`. */
  #writeLog(force = false): void {
    if (this.#pending.length === 0 || (this.#stdout.busy && !force)) return;
    let text = this.#pending.join("\n") + "\n";
    if (this.#dropped) {
      text += `[WARN] log: ${this.#dropped} request log line(s) dropped because stdout was not keeping up\n`;
      this.#dropped = 0;
    }
    this.#pending = [];
    this.#pendingChars = 0;
    this.#stdout.send(text);
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
