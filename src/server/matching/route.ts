/**
 * A registered stub: the validated stub, its id, where it came from and its place in the
 * precedence order, its compiled conditions and answers, its sequence position and hit
 * count.
 * @module
 */

import type { ProxyAdjust } from "../../stubs/proxy_field.ts";
import type { CompiledStub, ResponseFunc, StubSource } from "../../stubs/model.ts";
import type { Delivery } from "../answers/delivery.ts";
import { stubLabel } from "../../stubs/model.ts";
import { buildConditions, type NamedCondition } from "./conditions.ts";
import { CompiledResponse } from "../response.ts";
import { TemplateResponse } from "../answers/template.ts";
import { StreamResponse } from "../answers/stream.ts";
import { WebSocketAnswer } from "../answers/websocket.ts";
import { StubCallbacks } from "../callbacks/outgoing.ts";
import { scenarioCondition, type ScenarioStates } from "./scenarios.ts";
import type { Routable } from "./router.ts";

const NO_NAMES: readonly string[] = [];

/** How a stub answers: its written responses, a function, or a real service. */
export type AnswerSource =
  | { kind: "canned" }
  | { kind: "template" }
  | { kind: "stream" }
  | { kind: "websocket" }
  | { kind: "function"; fn: ResponseFunc }
  | { kind: "proxy"; url: URL; adjust?: ProxyAdjust };

const CANNED: AnswerSource = { kind: "canned" };
const TEMPLATE: AnswerSource = { kind: "template" };
/** A stub with a `stream:` answer (its own, or one of its sequence entries'). */
const STREAM: AnswerSource = { kind: "stream" };
/** A stub with a `websocket:` answer. */
const WEBSOCKET: AnswerSource = { kind: "websocket" };
const AT_ONCE: Delivery = {};

/** Where a registered stub sits: its id, source, batch and order. */
export interface Placement {
  id: string;
  source: StubSource;
  batch: number;
  order: number;
}

/** A registered stub, as the router, the handler and the report see it. */
export class Route implements Routable {
  readonly stub: CompiledStub;
  /** The stub's id: given, or made up by the server. */
  readonly id: string;
  /** `config`, `inline`, `api` or `admin`. */
  readonly source: StubSource;
  readonly batch: number;
  readonly order: number;
  /** The stub's conditions, compiled (a `when_state` included). */
  readonly conditions: readonly NamedCondition[];
  /** How many conditions it counts as in precedence. */
  readonly weight: number;
  /** How it answers. */
  readonly answer: AnswerSource;
  /** How its answers go out (delay, fault, throttle; a canned response's delay is its own). */
  readonly delivery: Delivery;
  /** Next sequence entry. */
  position = 0;
  /** Requests this stub answered since start or the last reset. */
  hits = 0;
  /** For a `websocket:` stub: messages each `on_message` rule answered since start or the last reset. */
  readonly ruleHits: number[];
  #label: string | undefined;
  #names: readonly string[] | undefined;
  #pathCaptures: number | undefined;
  #responses: CompiledResponse[] | undefined;
  #templates: TemplateResponse[] | undefined;
  #callbacks: StubCallbacks | undefined;
  #streams: (StreamResponse | undefined)[] | undefined;
  #websocket: WebSocketAnswer | undefined;

  /** `scenarios` holds the live states a `when_state` stub is checked against. */
  constructor(stub: CompiledStub, placement: Placement, scenarios?: ScenarioStates) {
    this.stub = stub;
    this.id = placement.id;
    this.source = placement.source;
    this.batch = placement.batch;
    this.order = placement.order;
    const conditions: NamedCondition[] = stub.match === undefined && stub.query === undefined
      ? (NO_NAMES as never[])
      : buildConditions(stub.match, stub.query);
    if (stub.scenario !== undefined && stub.whenState !== undefined && scenarios) {
      this.conditions = [...conditions, scenarioCondition(scenarios, stub.scenario, stub.whenState)];
    } else this.conditions = conditions;
    let weight = 0;
    for (const condition of this.conditions) weight += condition.weight;
    this.weight = weight;
    this.ruleHits = stub.websocket ? stub.websocket.onMessage.map(() => 0) : [];
    this.answer = stub.responseFunc
      ? { kind: "function", fn: stub.responseFunc }
      : stub.proxy !== undefined
      ? { kind: "proxy", url: new URL(stub.proxy), ...(stub.proxyAdjust ? { adjust: stub.proxyAdjust } : {}) }
      : stub.websocket
      ? WEBSOCKET
      : stub.responses.some((response) => response.stream)
      ? STREAM
      : stub.template
      ? TEMPLATE
      : CANNED;
    const { delay, fault, throttle, dribble } = stub;
    this.delivery = delay === undefined && fault === undefined && throttle === undefined && dribble === undefined
      ? AT_ONCE
      : { delay, fault, throttle, dribble };
  }

  /** The method, upper-case, or `ANY`. */
  get method(): string {
    return this.stub.method;
  }

  /** The path template. */
  get path(): string {
    return this.stub.path;
  }

  /** The path, parsed into segments. */
  get segments(): CompiledStub["segments"] {
    return this.stub.segments;
  }

  /** Its priority (0 unless given). */
  get priority(): number {
    return this.stub.priority ?? 0;
  }

  /** The scope it answers, when it has one. */
  get scope(): string | undefined {
    return this.stub.scope;
  }

  /** A GET stub that leaves HEAD requests unanswered (`head: false`). */
  get noHead(): boolean {
    return this.stub.head === false;
  }

  /** How many of {@link Route.names} are path placeholders (they come first). */
  get pathCaptures(): number {
    if (this.#pathCaptures !== undefined) return this.#pathCaptures;
    let count = 0;
    for (const segment of this.segments) if (segment.param) count++;
    return this.#pathCaptures = count;
  }

  /** Capture names in the order the router fills them: path placeholders, then each condition's. */
  get names(): readonly string[] {
    if (this.#names) return this.#names;
    let names = NO_NAMES;
    const add = (name: string) => (names === NO_NAMES ? names = [] : names as string[]).push(name);
    for (const segment of this.segments) if (segment.param) add(segment.name);
    for (const condition of this.conditions) condition.names.forEach(add);
    return this.#names = names;
  }

  /**
   * The responses, compiled on the first request that needs them: a config of thousands
   * of stubs starts without serializing bodies most of which a test run never asks for.
   * Validation has already checked everything compiling relies on, so this cannot fail.
   */
  get responses(): CompiledResponse[] {
    return this.#responses ?? this.compile();
  }

  /** Compiles the responses now (they keep the bodies as they are at this moment). */
  compile(): CompiledResponse[] {
    if (this.stub.template) this.templates;
    const names = this.names;
    return this.#responses = this.stub.responses.map((spec) => new CompiledResponse(spec, names));
  }

  /** `GET /users/{id}?q={term}`, for the request log (built on first use: most stubs never log). */
  get label(): string {
    return this.#label ??= stubLabel(this.stub);
  }

  /** `METHOD /path`, as error answers name the stub. */
  get name(): string {
    return `${this.method} ${this.path}`;
  }

  /** The index of the next sequence entry (and moves the position on); 0 for a stub without a sequence. */
  nextIndex(): number {
    if (!this.stub.isSequence) return 0;
    const length = this.stub.responses.length;
    const index = Math.min(this.position, length - 1);
    this.position = this.stub.sequenceMode === "cycle"
      ? (this.position + 1) % length
      : Math.min(this.position + 1, length);
    return index;
  }

  /** Puts the sequence at the `taken`-th request (from 0), as the cluster counted it (`serve --state`). */
  placeAt(taken: number): void {
    const length = this.stub.responses.length;
    this.position = this.stub.sequenceMode === "cycle" ? taken % length : Math.min(taken, length);
  }

  /** The next sequence entry (and moves the position on), or the only response. */
  nextResponse(): CompiledResponse {
    return this.responses[this.nextIndex()];
  }

  /** The stub's callbacks, compiled on first use; undefined when it has none. */
  get callbacks(): StubCallbacks | undefined {
    const specs = this.stub.callbacks;
    if (!specs?.length) return undefined;
    return this.#callbacks ??= new StubCallbacks(specs, this.stub.template === true, this.names);
  }

  /** The `websocket:` session, compiled on first use; undefined for a stub without one. */
  get websocket(): WebSocketAnswer | undefined {
    if (!this.stub.websocket) return undefined;
    return this.#websocket ??= new WebSocketAnswer(this.stub.websocket, this.names, this.stub.template === true);
  }

  /** Each response's event stream, compiled on first use; undefined for an entry that has none. */
  get streams(): (StreamResponse | undefined)[] {
    return this.#streams ??= this.stub.responses.map((spec) =>
      spec.stream ? new StreamResponse(spec, this.names, this.stub.template === true) : undefined
    );
  }

  /** A template stub's responses, compiled on first use (validation has compiled them once already). */
  get templates(): TemplateResponse[] {
    return this.#templates ??= this.stub.responses.map((spec) => new TemplateResponse(spec));
  }
}
