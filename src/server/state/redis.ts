/**
 * The Redis link (`serve --state redis://…`), loaded only when a store is named. Runtime
 * changes go into one stream per cluster (`stubtool:{NAME}:changes`), each entry the change
 * as JSON and the id of the replica that made it; every replica reads the stream with a
 * blocking `XREAD` on its own connection and applies the others' entries, in stream order,
 * as they arrive (a few milliseconds after they were written). A replica that joins replays
 * the stream from the start; `resets` of the stubs trim what came before them.
 *
 * Faults: writes never make a request wait. While the store is away, changes queue here (at
 * most {@link MAX_PENDING}; past that they are counted in `lost`) and are written in order when
 * it returns; the reader resumes after the last entry it applied. One `[WARN]` per outage.
 * The store URL's password is never shown: every line uses {@link redactStoreUrl}.
 * @module
 */

import { createClient } from "@redis/client";
import { redactStoreUrl } from "./store_url.ts";
import type { UnmatchedRequest } from "../../report/types.ts";
import { type Journal, type JournalRecord, type SharedRecord, sharedRecord } from "../journal/journal.ts";
import type { SharedState, StateHealth, StateOp, StepAnswer, StepAsk, TallyBatch } from "./state.ts";

/** Most changes kept while the store is away; more are counted as lost. */
export const MAX_PENDING = 10_000;
/** How often a replica sends what it counted (hits, transitions, unmatched requests) to the others. */
export const TALLY_EVERY_MS = 50;
/**
 * Requests journaled here that still go with the next batch of counts (within 50 ms): up to
 * 500 requests/s, each is on the others a moment after it was served.
 */
export const JOURNAL_QUICK = 25;
/**
 * Past {@link JOURNAL_QUICK} waiting, the journaled requests go this often, the newest
 * `--journal-size` of those still in this replica's journal: a replica under load converts
 * and sends about `--journal-size` records a second however many requests it serves, so a
 * plain stub's request costs next to nothing (P22.4).
 */
export const JOURNAL_BUSY_EVERY_MS = 1_000;
/** Unmatched requests kept for one batch while the store is away; more are counted as lost. */
const MAX_TALLY_UNMATCHED = 1_000;
/** Batches of counts the store keeps for replicas that join later (older ones are trimmed). */
const RECORDS_KEPT = 10_000;
/**
 * Batches of journaled requests the store keeps (`stubtool:{NAME}:journal`): each batch holds
 * at most 1/64 of `--journal-bytes`, so the store keeps about one journal's bytes.
 */
export const JOURNAL_BATCHES_KEPT = 64;
/** How long a replica waits for the store at start before serving without it. */
const CONNECT_WAIT_MS = 2_000;

/**
 * One request's step, atomic on the store (one `EVAL`). KEYS: the scenario hash, the sequence
 * hash, the change stream. ARGV: the scenario field (empty: no scenario), `1` and the state
 * required, `1` and the state to move to, the sequence field (empty: none), this replica's id
 * and the change to tell the others. A scenario not in the required state moves nothing and
 * takes no position: `{0, state}`. Otherwise `{1, state before, position taken (from 1)}`,
 * and a move that changes the state is told on the stream in the same step.
 */
const STEP = `
local state = 'Started'
if ARGV[1] ~= '' then
  state = redis.call('HGET', KEYS[1], ARGV[1]) or 'Started'
  if ARGV[2] == '1' and state ~= ARGV[3] then return {0, state, 0} end
  if ARGV[4] == '1' and state ~= ARGV[5] then
    if ARGV[5] == 'Started' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[5]) end
    redis.call('XADD', KEYS[3], '*', 'from', ARGV[7], 'op', ARGV[8])
  end
end
local n = 0
if ARGV[6] ~= '' then n = redis.call('HINCRBY', KEYS[2], ARGV[6], 1) end
return {1, state, n}
`;

const RESET_OP = JSON.stringify({ op: "reset" });

/** Whether stream id `a` comes before `b`. */
function olderId(a: string, b: string): boolean {
  const [am, as] = a.split("-").map(Number);
  const [bm, bs] = b.split("-").map(Number);
  return am < bm || (am === bm && as < bs);
}

/** What the link applies other replicas' changes to. */
export interface Replica {
  /** Applies one change; returns why it could not be applied here. */
  apply(op: StateOp): string | undefined;
  /** Adds what another replica counted. */
  tally(batch: TallyBatch): void;
  /** Adds the requests another replica journaled (absent: the journal is off here). */
  journaled?(records: SharedRecord[]): void;
}

/** Options of {@link joinCluster}. */
export interface JoinOptions {
  /** `redis://[USER:PASSWORD@]HOST:PORT[/DB]`. */
  url: string;
  /** Replicas naming the same store and cluster share their state. */
  cluster: string;
  /** Gets one line per event worth telling (`[WARN]` lines, the store coming back). */
  log: (line: string) => void;
  /**
   * The journal this replica shares: its bounds (`--journal-size`, `--journal-bytes`) and its
   * own requests since a mark, read at each batch; absent when it is off (nothing journaled is shared).
   */
  journal?: Pick<Journal, "capacity" | "maxBytes" | "ownMark" | "ownSince">;
}

type Client = ReturnType<typeof createClient>;

/** Joins the cluster: connects (waiting at most 2 s), applies what the others did so far, then follows them. */
export async function joinCluster(replica: Replica, options: JoinOptions): Promise<RedisState> {
  const state = new RedisState(replica, options);
  await state.start();
  return state;
}

/** One replica's link to the store. */
export class RedisState implements SharedState {
  readonly #replica: Replica;
  readonly #cluster: string;
  readonly #shown: string;
  readonly #log: (line: string) => void;
  readonly #key: string;
  /** Scenario states, one field per scope and scenario (`[scope, name]` as JSON); absent fields are `Started`. */
  readonly #scenarios: string;
  /** Sequence positions taken, one field per stub id. */
  readonly #sequences: string;
  /** The stream of counted batches (hits, transitions, unmatched requests), trimmed to {@link RECORDS_KEPT}. */
  readonly #records: string;
  /**
   * Hits counted here since the last batch, by scope and stub id. The entries stay from batch
   * to batch (zeroed when sent, dropped after a batch without a hit), so counting a request
   * allocates nothing.
   */
  readonly #hits = new Map<string | null, Map<string, { hits: number; moves: number }>>();
  #hitsWaiting = false;
  #unmatchedOut: { request: UnmatchedRequest; scope: string | null }[] = [];
  #lastRecord = "0-0";
  /** The stream of journaled requests' batches, trimmed to {@link JOURNAL_BATCHES_KEPT}. */
  readonly #journal: string;
  #lastJournal = "0-0";
  readonly #journalShared: JoinOptions["journal"];
  /** The journal's {@link Journal.ownMark} when the last batch of journaled requests went. */
  #journalMark = 0;
  /** When the last batch of journaled requests went (`performance.now()`). */
  #journalSent = 0;
  readonly #journalSize: number;
  readonly #journalBatchBytes: number;
  #ticker: ReturnType<typeof setInterval> | undefined;
  /**
   * This replica's name on the requests it shares: `HOST:PORT`, its host name and listening
   * port (set once it listens; the others show it as `replica` in their journals).
   */
  name = "";
  #sending = false;
  /** The stream id of the last `POST /__stubtool__/reset` read back; "" while this replica's own is on its way. */
  #lastReset = "0-0";
  readonly #self = crypto.randomUUID();
  readonly #writer: Client;
  readonly #reader: Client;
  readonly #pending: { op: string; trim: boolean }[] = [];
  readonly #warned = new Set<string>();
  #lastId = "0-0";
  #lost = 0;
  #up = { writer: false, reader: false };
  #degraded = false;
  #applying = false;
  #flushing = false;
  #closed = false;
  #reading: Promise<void> = Promise.resolve();

  constructor(replica: Replica, options: JoinOptions) {
    this.#replica = replica;
    this.#cluster = options.cluster;
    this.#shown = redactStoreUrl(options.url);
    this.#log = options.log;
    this.#key = `stubtool:{${options.cluster}}:changes`;
    this.#scenarios = `stubtool:{${options.cluster}}:scenarios`;
    this.#sequences = `stubtool:{${options.cluster}}:sequences`;
    this.#records = `stubtool:{${options.cluster}}:records`;
    this.#journal = `stubtool:{${options.cluster}}:journal`;
    this.#journalShared = options.journal;
    this.#journalSize = options.journal?.capacity ?? 0;
    this.#journalMark = options.journal?.ownMark ?? 0;
    this.#journalBatchBytes = Math.max(1, Math.floor((options.journal?.maxBytes ?? 0) / JOURNAL_BATCHES_KEPT));
    const settings = {
      url: options.url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 1_000, reconnectStrategy: (retries: number) => Math.min(50 + retries * 50, 500) },
    };
    this.#writer = createClient(settings);
    this.#reader = createClient(settings);
    for (const [name, client] of [["writer", this.#writer], ["reader", this.#reader]] as const) {
      // node-redis reports each failed attempt; the outage is told once, by #down.
      client.on("error", () => this.#down(name));
      client.on("end", () => this.#down(name));
      client.on("ready", () => this.#ready(name));
    }
  }

  /** Connects, replays the stream, starts following it. */
  async start(): Promise<void> {
    const connected = Promise.all([this.#writer.connect(), this.#reader.connect()]).then(() => true, () => false);
    const timer = new Promise<false>((resolve) => setTimeout(() => resolve(false), CONNECT_WAIT_MS));
    const ok = await Promise.race([connected, timer]);
    if (!ok) this.#down("writer");
    else while (await this.#readOnce(undefined) > 0) { /* replay */ }
    this.#reading = this.#follow();
    this.#ticker = setInterval(() => void this.#sendTally(), TALLY_EVERY_MS);
  }

  /** See {@link SharedState.counted}: a counter bumped in place, sent in the next batch. */
  readonly counted = (id: string, scope: string | null, moved: boolean): void => {
    this.#count(id, scope, 1, moved ? 1 : 0);
  };

  #count(id: string, scope: string | null, hits: number, moves: number): void {
    let byId = this.#hits.get(scope);
    if (byId === undefined) this.#hits.set(scope, byId = new Map());
    const counts = byId.get(id);
    if (counts === undefined) byId.set(id, { hits, moves });
    else {
      counts.hits += hits;
      counts.moves += moves;
    }
    this.#hitsWaiting = true;
  }

  /** The hits counted since the last batch, zeroed here; entries without a hit since the batch before go. */
  #takeHits(): TallyBatch["hits"] {
    const taken: TallyBatch["hits"] = [];
    for (const [scope, byId] of this.#hits) {
      for (const [id, counts] of byId) {
        if (counts.hits === 0) byId.delete(id);
        else {
          taken.push([id, scope, counts.hits, counts.moves]);
          counts.hits = counts.moves = 0;
        }
      }
      if (byId.size === 0) this.#hits.delete(scope);
    }
    this.#hitsWaiting = false;
    return taken;
  }

  /** See {@link SharedState.unmatched}. */
  readonly unmatched = (request: UnmatchedRequest, scope: string | null): void => {
    if (this.#unmatchedOut.length >= MAX_TALLY_UNMATCHED) {
      this.#lost++;
      return;
    }
    this.#unmatchedOut.push({ request, scope });
  };

  /**
   * The requests journaled here since the last batch as one batch (`records`: newest first):
   * the newest that fit in 1/64 of the journal's bytes (at least one), oldest first.
   */
  #journalBatch(records: JournalRecord[]): SharedRecord[] {
    const batch: SharedRecord[] = [];
    let bytes = 0;
    for (const record of records) {
      const shared = sharedRecord(record, this.name || undefined);
      bytes += shared.target.length + (shared.body?.length ?? 0) + 64;
      for (const name in shared.headers) bytes += name.length + shared.headers[name].length;
      if (bytes > this.#journalBatchBytes && batch.length) break;
      batch.push(shared);
    }
    return batch.reverse();
  }

  /**
   * Sends what was counted since the last batch in one `XADD`, with the journaled requests
   * when few wait or {@link JOURNAL_BUSY_EVERY_MS} passed (`all`: whatever waits); kept for
   * the next one when the store is away.
   */
  async #sendTally(all = false): Promise<void> {
    if (this.#sending) return;
    const now = performance.now();
    const mark = this.#journalShared?.ownMark ?? 0;
    const waiting = mark - this.#journalMark;
    const journalDue = waiting > 0 &&
      (all || waiting <= JOURNAL_QUICK || now - this.#journalSent >= JOURNAL_BUSY_EVERY_MS);
    if (!this.#hitsWaiting && this.#unmatchedOut.length === 0 && !journalDue) return;
    if (!this.#up.writer || this.#degraded) return;
    this.#sending = true;
    const unmatched = this.#unmatchedOut;
    this.#unmatchedOut = [];
    let journaled: JournalRecord[] = [];
    if (journalDue) {
      // Read from the journal now, the newest first: a request cost nothing when it was served.
      journaled = this.#journalShared!.ownSince(this.#journalMark, this.#journalSize);
      this.#journalMark = mark;
      this.#journalSent = now;
    }
    const batch: TallyBatch = { hits: this.#hitsWaiting ? this.#takeHits() : [], unmatched };
    try {
      // `seen`: the last change this replica had read; a batch that had not seen the latest reset is dropped.
      const fields = { from: this.#self, seen: this.#lastId, batch: JSON.stringify(batch) };
      const multi = this.#writer.multi();
      if (batch.hits.length || batch.unmatched.length) {
        multi.xAdd(this.#records, "*", fields, {
          TRIM: { strategy: "MAXLEN", strategyModifier: "~", threshold: RECORDS_KEPT },
        });
      }
      if (journaled.length) {
        const records = JSON.stringify(this.#journalBatch(journaled));
        multi.xAdd(this.#journal, "*", { from: this.#self, seen: this.#lastId, batch: records }, {
          TRIM: { strategy: "MAXLEN", threshold: JOURNAL_BATCHES_KEPT },
        });
      }
      await multi.exec();
    } catch {
      // Journaled requests not written are not kept for later: each replica still has them in its own journal.
      this.#lost += journaled.length;
      // Not written: back into the next batch (the unmatched ones up to the bound, the rest counted as lost).
      for (const [id, scope, count, moves] of batch.hits) this.#count(id, scope, count, moves);
      for (const entry of unmatched) this.unmatched(entry.request, entry.scope);
    } finally {
      this.#sending = false;
    }
  }

  publish(op: StateOp): void {
    if (op.op === "reset") {
      // What was counted before a reset is not sent after it, nor added when it arrives after it.
      this.#hits.clear();
      this.#hitsWaiting = false;
      this.#unmatchedOut = [];
      this.#journalMark = this.#journalShared?.ownMark ?? 0;
      if (!this.#applying) this.#lastReset = "";
    }
    if (this.#applying || this.#closed) return;
    if (this.#pending.length >= MAX_PENDING) {
      this.#lost++;
      this.warn(
        `[WARN] state store ${this.#shown} away: more than ${MAX_PENDING} changes waiting, later ones are lost (counted in /__stubtool__/health)`,
      );
      return;
    }
    this.#pending.push({ op: JSON.stringify(op), trim: op.op === "resetStubs" });
    void this.#flush();
  }

  /** See {@link SharedState.step}. */
  readonly step = async (ask: StepAsk): Promise<StepAnswer | undefined> => {
    if (this.#closed || this.#degraded || !this.#up.writer) {
      this.#lost++;
      return undefined;
    }
    const scenario = ask.scenario;
    const op: StateOp | undefined = scenario?.to === undefined
      ? undefined
      : { op: "scenario", name: scenario.name, state: scenario.to, scope: scenario.scope };
    try {
      const [ok, state, n] = await this.#writer.eval(STEP, {
        keys: [this.#scenarios, this.#sequences, this.#key],
        arguments: [
          scenario ? JSON.stringify([scenario.scope, scenario.name]) : "",
          scenario?.when === undefined ? "0" : "1",
          scenario?.when ?? "",
          op ? "1" : "0",
          scenario?.to ?? "",
          ask.sequence ?? "",
          this.#self,
          op ? JSON.stringify(op) : "",
        ],
      }) as [number, string, number];
      return { ok: ok === 1, state: String(state), position: Math.max(0, Number(n) - 1) };
    } catch {
      this.#lost++;
      return undefined;
    }
  };

  /** See {@link SharedState.states}. */
  readonly states = async (names: string[], scope: string | null): Promise<string[] | undefined> => {
    if (this.#closed || this.#degraded || !this.#up.writer || names.length === 0) return undefined;
    try {
      const states = await this.#writer.hmGet(this.#scenarios, names.map((name) => JSON.stringify([scope, name])));
      return states.map((state) => state === null ? "Started" : String(state));
    } catch {
      return undefined;
    }
  };

  warn(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#log(message);
  }

  health(): StateHealth {
    return {
      store: this.#degraded ? "degraded" : "connected",
      cluster: this.#cluster,
      lost: this.#lost,
      pending: this.#pending.length,
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#ticker);
    await Promise.race([this.#drain(), new Promise((resolve) => setTimeout(resolve, 1_000))]);
    let unsent = this.#unmatchedOut.length;
    for (const byId of this.#hits.values()) for (const { hits } of byId.values()) unsent += hits;
    this.#lost += this.#pending.length + unsent;
    this.#pending.length = 0;
    this.#writer.destroy();
    this.#reader.destroy();
    await this.#reading.catch(() => {});
  }

  async #drain(): Promise<void> {
    if (this.#up.writer && !this.#degraded) {
      while (this.#sending) await new Promise((resolve) => setTimeout(resolve, 5));
      await this.#sendTally(true);
    }
    while (this.#pending.length && this.#up.writer) {
      await this.#flush();
      if (this.#pending.length) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  #down(name: "writer" | "reader"): void {
    this.#up[name] = false;
    if (this.#degraded || this.#closed) return;
    this.#degraded = true;
    this.#log(
      `[WARN] state store ${this.#shown} cannot be reached: answering from the stubs and states this replica knows; ` +
        "changes are kept and written when it returns",
    );
  }

  #ready(name: "writer" | "reader"): void {
    this.#up[name] = true;
    if (!this.#up.writer || !this.#up.reader) return;
    if (this.#degraded && !this.#closed) {
      this.#degraded = false;
      this.#log(`[state] store ${this.#shown} is back: catching up (${this.#pending.length} change(s) to write)`);
    }
    void this.#flush();
  }

  /** Writes the queued changes in order; stops at the first failure (they stay queued). */
  async #flush(): Promise<void> {
    if (this.#flushing || !this.#up.writer) return;
    this.#flushing = true;
    try {
      while (this.#pending.length) {
        const { op, trim } = this.#pending[0];
        await this.#write(op, trim);
        this.#pending.shift();
      }
    } catch {
      // The store went away mid-write: what is left stays queued for its return.
    } finally {
      this.#flushing = false;
    }
  }

  /** Writes one change: on the stream, and into the scenario and sequence hashes it touches. */
  async #write(text: string, trim: boolean): Promise<void> {
    const op = JSON.parse(text) as StateOp;
    if (op.op === "scenario") {
      // Set over the admin API: the same atomic step as a request's move, without a required state.
      await this.#writer.eval(STEP, {
        keys: [this.#scenarios, this.#sequences, this.#key],
        arguments: [JSON.stringify([op.scope, op.name]), "0", "", "1", op.state, "", this.#self, text],
      });
      return;
    }
    const multi = this.#writer.multi();
    // A reset forgets the counts kept for replicas joining later, too.
    if (op.op === "reset") multi.del([this.#scenarios, this.#sequences, this.#records, this.#journal]);
    if (op.op === "resetScenarios") multi.del(this.#scenarios);
    // A replaced or removed stub's sequence starts again.
    if (op.op === "replace") multi.hDel(this.#sequences, op.id);
    if (op.op === "remove") multi.hDel(this.#sequences, op.ids);
    multi.xAdd(this.#key, "*", { from: this.#self, op: text });
    const replies = await multi.exec();
    // A reset of the stubs makes the changes before it moot: a replica joining later starts there.
    if (trim) await this.#writer.xTrim(this.#key, "MINID", String(replies[replies.length - 1]));
  }

  async #follow(): Promise<void> {
    while (!this.#closed) {
      try {
        await this.#readOnce(1_000);
      } catch {
        if (this.#closed) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** Reads and applies the entries after the last one applied; resolves with how many came. */
  async #readOnce(block: number | undefined): Promise<number> {
    const answer = await this.#reader.xRead(
      [
        { key: this.#key, id: this.#lastId },
        { key: this.#records, id: this.#lastRecord },
        { key: this.#journal, id: this.#lastJournal },
      ],
      block === undefined ? { COUNT: 1_000 } : { COUNT: 1_000, BLOCK: block },
    ) as { name: string; messages: { id: string; message: Record<string, string> }[] }[] | null;
    let count = 0;
    // Changes first: a reset applies before the counts written after it.
    for (const stream of (answer ?? []).toSorted((a, b) => a.name === this.#key ? -1 : b.name === this.#key ? 1 : 0)) {
      const journal = stream.name === this.#journal;
      const records = journal || stream.name === this.#records;
      for (const { id, message } of stream.messages) {
        if (journal) this.#lastJournal = id;
        else if (records) this.#lastRecord = id;
        else this.#lastId = id;
        count++;
        if (!records && message.op === RESET_OP && (message.from !== this.#self || this.#lastReset === "")) {
          this.#lastReset = id;
        }
        if (message.from === this.#self || this.#closed) continue;
        if (records) {
          if (this.#lastReset !== "" && !olderId(message.seen ?? "0-0", this.#lastReset)) {
            if (journal) this.#journaledThere(message.batch);
            else this.#tally(message.batch);
          }
        } else this.#apply(message.op);
      }
    }
    return count;
  }

  #tally(text: string): void {
    try {
      this.#replica.tally(JSON.parse(text) as TallyBatch);
    } catch (error) {
      this.#log(`[WARN] counts from another replica were not added here: ${String(error)}`);
    }
  }

  #journaledThere(text: string): void {
    try {
      this.#replica.journaled?.(JSON.parse(text) as SharedRecord[]);
    } catch (error) {
      this.#log(`[WARN] requests journaled by another replica were not added here: ${String(error)}`);
    }
  }

  #apply(text: string): void {
    this.#applying = true;
    try {
      const problem = this.#replica.apply(JSON.parse(text) as StateOp);
      if (problem) this.#log(`[WARN] a change from another replica was not applied here: ${problem}`);
    } catch (error) {
      this.#log(`[WARN] a change from another replica was not applied here: ${String(error)}`);
    } finally {
      this.#applying = false;
    }
  }
}
