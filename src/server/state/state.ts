/**
 * The state room: what one replica tells the others when its runtime state changes. The
 * registry (stubs added, replaced or removed at runtime, resets) and the scenario controls
 * talk to one {@link SharedState}: {@link LOCAL_STATE} in a single process (nothing to tell),
 * a Redis link with `serve --state` (redis.ts, loaded only then). Publishing never waits: a
 * plain stub's request never touches the store.
 * @module
 */

import type { UnmatchedRequest } from "../../report/types.ts";
import type { StubSource } from "../../stubs/model.ts";

/** A runtime change, as it travels between replicas (plain JSON). */
export type StateOp =
  | { op: "add"; source: StubSource; stubs: Record<string, unknown>[] }
  | { op: "replace"; id: string; stub: Record<string, unknown> }
  | { op: "remove"; ids: string[] }
  | { op: "resetStubs" }
  | { op: "reset" }
  | { op: "scenario"; name: string; state: string; scope: string | null }
  | { op: "resetScenarios" };

/** How a replica stands with its store, as `/__stubtool__/health` shows it. */
export interface StateHealth {
  /** `connected`, or `degraded` while the store cannot be reached (the replica answers from what it knows). */
  store: "connected" | "degraded";
  /** The cluster's name (`--cluster`). */
  cluster: string;
  /** Changes this replica could not write to the store (kept ones are written when it returns). */
  lost: number;
  /** Changes waiting for the store to return. */
  pending: number;
}

/**
 * One step a request takes on the store: check (and move) a scenario, take a sequence position.
 * Scenario fields are `JSON.stringify([scope, name])`.
 */
export interface StepAsk {
  /** The scenario the chosen stub belongs to, when it has `when_state` or `set_state`. */
  scenario?: { name: string; scope: string | null; when?: string; to?: string };
  /** The stub id whose sequence position to take (a sequence stub). */
  sequence?: string;
}

/** What the store answered: `ok` false when the scenario was not in `when` (nothing moved, no position taken). */
export interface StepAnswer {
  ok: boolean;
  /** The scenario's state before the step (the one the store holds now when `ok` is false). */
  state: string;
  /** The sequence position taken, from 0 (with `sequence` and `ok`). */
  position: number;
}

/**
 * What one replica counted since its last batch (`serve --state`), as the others add it to
 * their reports: hits per stub and scope, and the unmatched requests.
 */
export interface TallyBatch {
  /** `[stub id, scope or null, hits, of which moved its scenario]`. */
  hits: [string, string | null, number, number][];
  unmatched: { request: UnmatchedRequest; scope: string | null }[];
}

/** What the registry and the scenario controls talk to. */
export interface SharedState {
  /**
   * Takes one scenario or sequence step on the store in one round trip (atomic: two replicas
   * racing on one state take it once); resolves undefined while the store is away (the replica
   * then steps on its own, and counts it as lost). Absent in a single process.
   */
  readonly step?: (ask: StepAsk) => Promise<StepAnswer | undefined>;
  /**
   * The states the store holds for scenarios `names` in `scope` (one round trip), asked by a
   * request that matched no stub against this replica's states, which may lag the store's;
   * resolves undefined while the store is away. Absent in a single process.
   */
  readonly states?: (names: string[], scope: string | null) => Promise<string[] | undefined>;
  /** Tells the other replicas about `op`; returns at once (written in the background, in order). */
  publish(op: StateOp): void;
  /** Counts a hit for the cluster's report (sent in the next batch, within 50 ms). Absent in a single process. */
  readonly counted?: (id: string, scope: string | null, moved: boolean) => void;
  /** Sends an unmatched request to the cluster's report (in the next batch). Absent in a single process. */
  readonly unmatched?: (request: UnmatchedRequest, scope: string | null) => void;
  /** Says (once per reason) that something could not be shared. */
  warn(message: string): void;
  /** The store's standing; undefined in a single process. */
  health(): StateHealth | undefined;
  /** Stops talking to the store. */
  close(): Promise<void>;
}

/** The single-process state: nothing to tell anyone. */
export const LOCAL_STATE: SharedState = {
  publish() {},
  warn() {},
  health: () => undefined,
  close: () => Promise.resolve(),
};
