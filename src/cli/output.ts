/**
 * The one place the CLI prints through. `out` and `err` write a line at once; `log`
 * buffers request-log lines and writes them in batches, so a busy server does one write
 * per batch rather than one per request. Writes never block the process: each stream has
 * one write under way at a time, and the lines sent meanwhile wait in a queue of bounded
 * size. Once a server runs, a reader that does not keep up (a test harness that pipes
 * stdout and never reads it) loses lines instead of stalling the server: lines past the
 * bound are dropped and counted, and `[WARN] N log lines dropped: stdout is not being read`
 * follows once the stream has taken everything before them. Bytes reach the process's
 * stdout and stderr through {@link stdioSinks}.
 * @module
 */

import { fstatSync } from "node:fs";
import { Socket } from "node:net";
import process from "node:process";
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
 * A writable stream (`process.stdout` on Node) as a {@link TextSink}: each write resolves when
 * the stream's callback says the data went out (after the stream's own buffering, so a stdout
 * nobody reads keeps the write pending and the CLI's own queue holds what follows).
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

/**
 * The process's stdout and stderr as sinks that never block the event loop. Node's streams
 * queue in memory and write a pipe asynchronously. Deno's `process.stdout` writes
 * synchronously, so a pipe nobody reads would stop the whole server: on Deno a pipe or socket
 * is written through a `net.Socket` on its descriptor instead. Files and terminals keep the
 * process's streams (they take what they are given).
 *
 * @example
 * ```ts
 * import { stdioSinks, StreamOutput } from "./output.ts";
 * const output = new StreamOutput(...stdioSinks());
 * output.out("hello"); // on stdout
 * await output.flush();
 * ```
 */
export function stdioSinks(): [stdout: TextSink, stderr: TextSink] {
  const sink = (fd: 1 | 2, stream: Writable) => {
    if (process.versions.deno === undefined) return streamSink(stream);
    try {
      const stat = fstatSync(fd);
      if (stat.isFIFO() || stat.isSocket()) return streamSink(new Socket({ fd, readable: false, writable: true }));
    } catch {
      // Not a descriptor a socket can take: the process's stream still works.
    }
    return streamSink(stream);
  };
  return [sink(1, process.stdout), sink(2, process.stderr)];
}

/** Where CLI output goes. */
export interface Output {
  /** A line on stdout (results, banner). */
  out(line: string): void;
  /** A line on stderr (`[ERROR]`, `[WARN]`). */
  err(line: string): void;
  /** A request-log line on stdout, buffered; dropped (and counted) when stdout is not keeping up. */
  log(line: string): void;
  /**
   * Says a server now runs (serve, record): from here on a reader that does not keep up never
   * holds the process. Lines past the queue's bound are dropped and counted, and {@link flush}
   * gives up after 2 s. Before, as for every one-shot command (`report`, `stubs list`), no line
   * is dropped and `flush` waits for the reader, as a pipe into `less` expects.
   */
  serving(): void;
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
/** Request-log lines are dropped while this many characters wait for a stream (the one under way included). */
const QUEUE_CAP = 1 << 20;
/** Room past {@link QUEUE_CAP} for a server's other lines: the stop and summary lines still get through. */
const QUEUE_RESERVE = 64 << 10;
/** The longest a server's {@link StreamOutput.flush} waits for the reader. */
const FLUSH_LIMIT_MS = 2_000;

/**
 * One stream's lines, written in order with one write under way at a time: lines sent
 * meanwhile wait in a queue and go out together in the next write. The queue is bounded
 * by the limit each line comes with; lines past it are dropped and counted, and the count
 * is written as one `[WARN]` line once the stream has taken everything before it.
 */
class Channel {
  readonly #name: string;
  #sink: TextSink;
  #queue: string[] = [];
  /** Characters queued or in the write under way. */
  #held = 0;
  #writing: Promise<void> | undefined;
  #dropped = 0;

  constructor(name: string, sink: TextSink) {
    this.#name = name;
    this.#sink = sink;
  }

  /** Is a write under way (the stream has not taken everything yet)? */
  get busy(): boolean {
    return this.#writing !== undefined;
  }

  /**
   * Queues a line, or drops and counts it when it would take the queue past `limit`. A line
   * comes through when nothing else is held, so one big document (a report) is never cut.
   * Once a line is dropped, the lines of the first bound ({@link QUEUE_CAP}: the request log)
   * are all dropped until the queue has drained: the gap is one run, where the warning stands.
   */
  add(line: string, limit: number): void {
    const size = line.length + 1;
    if (this.#held > 0 && (this.#held + size > limit || (this.#dropped > 0 && limit <= QUEUE_CAP))) {
      this.#dropped++;
      return;
    }
    this.#queue.push(line + "\n");
    this.#held += size;
  }

  /** Starts writing what is queued, unless a write is under way (its end starts the next). */
  write(): void {
    if (this.#writing || this.#queue.length === 0) return;
    const text = this.#queue.join("");
    this.#queue = [];
    this.#writing = this.#sink.write(text).catch(() => {}).then(() => {
      this.#held -= text.length;
      this.#writing = undefined;
      if (this.#queue.length === 0 && this.#dropped > 0) {
        this.#queue.push(`[WARN] ${this.#dropped} log lines dropped: ${this.#name} is not being read\n`);
        this.#dropped = 0;
      }
      this.write();
    });
  }

  /** Resolves once everything queued so far (and a drop warning) has been written. */
  async idle(): Promise<void> {
    this.write();
    while (this.#writing) await this.#writing;
  }
}

/**
 * Output to two sinks (the process's stdout and stderr), each a {@link Channel}: writing
 * never blocks, and a server's output costs bounded memory when nobody reads it.
 */
export class StreamOutput implements Output {
  #stdout: Channel;
  #stderr: Channel;
  /** The bound of lines other than the request log: none until a server runs. */
  #limit = Infinity;
  /** A batch timer is running: the log lines logged meanwhile go out when it ends. */
  #batch: ReturnType<typeof setTimeout> | undefined;

  constructor(stdout: TextSink, stderr: TextSink) {
    this.#stdout = new Channel("stdout", stdout);
    this.#stderr = new Channel("stderr", stderr);
  }

  out(line: string): void {
    // Log lines queued before it go out in the same write, ahead of it.
    this.#stdout.add(line, this.#limit);
    this.#stdout.write();
  }

  err(line: string): void {
    this.#stderr.add(line, this.#limit);
    this.#stderr.write();
  }

  log(line: string): void {
    this.#stdout.add(line, QUEUE_CAP);
    // While a write is under way, its end writes the lines that waited.
    if (this.#batch !== undefined || this.#stdout.busy) return;
    this.#batch = setTimeout(() => {
      this.#batch = undefined;
      this.#stdout.write();
    }, LOG_BATCH_MS);
  }

  serving(): void {
    this.#limit = QUEUE_CAP + QUEUE_RESERVE;
  }

  async flush(): Promise<void> {
    clearTimeout(this.#batch);
    this.#batch = undefined;
    const written = Promise.all([this.#stdout.idle(), this.#stderr.idle()]);
    if (this.#limit === Infinity) return void await written;
    // A pipe nobody reads must not keep a stopped server from exiting.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => timer = setTimeout(resolve, FLUSH_LIMIT_MS));
    await Promise.race([written, limit]);
    clearTimeout(timer);
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
  serving(): void {}
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
