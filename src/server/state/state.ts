/**
 * The state room: what one replica tells the others when its runtime state changes. The
 * registry (stubs added, replaced or removed at runtime, resets) and the scenario controls
 * talk to one {@link SharedState}: {@link LOCAL_STATE} in a single process (nothing to tell),
 * a Redis link with `serve --state` (redis.ts, loaded only then). Publishing never waits: a
 * plain stub's request never touches the store.
 * @module
 */

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

/** What the registry and the scenario controls talk to. */
export interface SharedState {
  /** Tells the other replicas about `op`; returns at once (written in the background, in order). */
  publish(op: StateOp): void;
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
