/**
 * The WebSocket answerer: a `websocket:` stub's request is upgraded (the adapter performs
 * it; the handler decides) and a session follows the stub: `on_connect` messages after their
 * delays, each incoming message answered by the first `on_message` rule that matches it (none:
 * recorded as an unmatched message with the rules' near misses, no reply), and `close`.
 * Bounded (P23): incoming message size (the adapter refuses larger with 1009), open
 * connections (past the cap the upgrade gets 503), and what a client that does not read can
 * make the server hold (past the send buffer bound the connection is dropped).
 * @module
 */

import type { ClosestStub } from "../../report/types.ts";
import type { WebSocketMatch, WebSocketSend, WebSocketSpec } from "../../stubs/model.ts";
import { matchJson } from "../../stubs/patterns.ts";
import { quoteValue } from "../../stubs/quote.ts";
import { compileJson, compileText, render, type Template } from "../../stubs/placeholders.ts";
import { MAX_WEBSOCKET_MESSAGE_BYTES } from "../../stubs/websocket_field.ts";
import {
  compileJsonTemplate,
  compileTemplate,
  type JsonTemplate,
  type ResponseTemplate,
  type TemplateModel,
} from "../../templating/handlebars.ts";
import type { Incoming, WebSocketPeer, WebSocketSession } from "../incoming.ts";
import { errorAnswer, type Respond } from "../response.ts";

/** Bounds of WebSocket sessions (P24.5). */
export interface WebSocketLimits {
  /** Largest incoming message in bytes; larger closes the connection with 1009. Default 1 MiB. */
  maxMessage: number;
  /** Most open WebSocket connections; past it an upgrade is answered 503. Default 1000. */
  maxConnections: number;
  /**
   * Most bytes a connection may have waiting to be written (a client that does not read);
   * a send past it drops the connection. Default 4 MiB.
   */
  maxBuffered: number;
}

/** The default {@link WebSocketLimits}. */
export const DEFAULT_WEBSOCKET_LIMITS: Readonly<WebSocketLimits> = {
  maxMessage: MAX_WEBSOCKET_MESSAGE_BYTES,
  maxConnections: 1000,
  maxBuffered: 4 * 1024 * 1024,
};

/** What the WebSocket sessions of one handler are doing. */
export interface WebSocketStats {
  /** Sessions open now. */
  open: number;
  /** Messages received and sent since start. */
  messagesIn: number;
  messagesOut: number;
  /** Connections dropped because the client did not read what it was sent. */
  dropped: number;
  /** Upgrades refused because {@link WebSocketLimits.maxConnections} were open. */
  refused: number;
}

/** One message to send, compiled: fixed text, `{name}` captures, or a Handlebars template. */
type CompiledSend = Template | ResponseTemplate | JsonTemplate;

/** A `websocket:` stub, compiled once per route. */
export class WebSocketAnswer {
  readonly spec: WebSocketSpec;
  readonly #connect: { send: CompiledSend[]; delayMs?: number }[];
  readonly #rules: { match: WebSocketMatch; send: CompiledSend[] }[];

  /** `names`: the stub's capture names; `template`: a template stub (sends are Handlebars). */
  constructor(spec: WebSocketSpec, names: readonly string[], template: boolean) {
    this.spec = spec;
    const compile = (item: WebSocketSend): CompiledSend => {
      if (template) return "text" in item ? compileTemplate(item.text) : compileJsonTemplate(item.json);
      return "text" in item ? compileText(item.text, names) : compileJson(item.json, names);
    };
    this.#connect = spec.onConnect.map((item) => ({ send: item.send.map(compile), delayMs: item.delayMs }));
    this.#rules = spec.onMessage.map((rule) => ({ match: rule.match, send: rule.send.map(compile) }));
  }

  get connect(): readonly { send: CompiledSend[]; delayMs?: number }[] {
    return this.#connect;
  }

  get rules(): readonly { match: WebSocketMatch; send: CompiledSend[] }[] {
    return this.#rules;
  }
}

/** The text of one compiled message for this session (and the message that triggered it). */
function textOf(send: CompiledSend, values: readonly string[], model: () => TemplateModel): string {
  if (typeof send === "string" || !("render" in send)) return render(send, values);
  return send.render(model());
}

/** Why a message failed a rule, as a near miss says it. */
function missReason(match: WebSocketMatch, text: string, json: () => { value: unknown } | null): string {
  if (match.kind === "text") return `message is ${quoteValue(cutText(text, 80))}, rule wants ${match.pattern.display}`;
  const parsed = json();
  if (!parsed) return "message is not JSON, rule wants {json: …}";
  const reason = matchJson(match.pattern, parsed.value, []);
  return (reason ?? "").replace(/^body /, "message ");
}

function cutText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Whether `text` (the message) matches `match`; captures are not used (the message is `message.*`). */
function matches(match: WebSocketMatch, text: string, json: () => { value: unknown } | null): boolean {
  if (match.kind === "text") return match.pattern.match(text) !== undefined;
  const parsed = json();
  return parsed !== null && matchJson(match.pattern, parsed.value, []) === undefined;
}

/** What a session reports back to the handler (counts, the journal, unmatched messages). */
export interface SessionHooks {
  /** A message came in; `rule` is the index of the rule that matched, or -1. */
  received(text: string, rule: number, closest: ClosestStub[]): void;
  /** A message went out. */
  sent(text: string): void;
}

/** What one session needs from the request it upgraded. */
export interface SessionRequest {
  /** The stub's capture values (for `{name}` in a plain stub's messages). */
  values: readonly string[];
  /** The template model of the upgrade request, with `message` when one triggered the send. */
  model: (message?: { text: string; json: unknown }) => TemplateModel;
  /** Describes the stub in near misses. */
  stub: Pick<ClosestStub, "method" | "path" | "id" | "place">;
}

const UTF8 = new TextEncoder();
const UTF8_IN = new TextDecoder();

/** One WebSocket connection following a stub. */
class Session implements WebSocketSession {
  readonly #answer: WebSocketAnswer;
  readonly #request: SessionRequest;
  readonly #hooks: SessionHooks;
  readonly #limits: WebSocketLimits;
  readonly #stats: WebSocketStats;
  #peer: WebSocketPeer | undefined;
  #timers: ReturnType<typeof setTimeout>[] = [];
  #open = false;

  constructor(
    answer: WebSocketAnswer,
    request: SessionRequest,
    hooks: SessionHooks,
    limits: WebSocketLimits,
    stats: WebSocketStats,
  ) {
    this.#answer = answer;
    this.#request = request;
    this.#hooks = hooks;
    this.#limits = limits;
    this.#stats = stats;
  }

  open(peer: WebSocketPeer): void {
    this.#peer = peer;
    this.#open = true;
    this.#stats.open++;
    let at = 0;
    for (const item of this.#answer.connect) {
      at += item.delayMs ?? 0;
      if (at === 0) this.#sendAll(item.send);
      else this.#timers.push(setTimeout(() => this.#sendAll(item.send), at));
    }
    const close = this.#answer.spec.close;
    if (close) {
      const end = () => this.#open && this.#peer!.close(close.code);
      this.#timers.push(setTimeout(end, close.afterMs));
    }
  }

  message(data: string | Uint8Array): void {
    if (!this.#open) return;
    const text = typeof data === "string" ? data : UTF8_IN.decode(data);
    if (UTF8.encode(text).byteLength > this.#limits.maxMessage) {
      // The Node adapter refuses it before it is whole; Deno hands it over, and it is refused here.
      this.#peer!.close(1009, "message too big");
      return;
    }
    this.#stats.messagesIn++;
    let parsed: { value: unknown } | null | undefined;
    const json = () => {
      if (parsed === undefined) {
        try {
          parsed = { value: JSON.parse(text) };
        } catch {
          parsed = null;
        }
      }
      return parsed;
    };
    const rules = this.#answer.rules;
    for (let i = 0; i < rules.length; i++) {
      if (!matches(rules[i].match, text, json)) continue;
      this.#hooks.received(text, i, []);
      const message = { text, json: json()?.value ?? null };
      this.#sendAll(rules[i].send, message);
      return;
    }
    const closest = rules.slice(0, 3).map((rule, i): ClosestStub => ({
      ...this.#request.stub,
      reason: `on_message[${i}]: ${missReason(rule.match, text, json)}`,
    }));
    this.#hooks.received(text, -1, closest);
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#stats.open--;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers = [];
  }

  /** Sends each message, unless the client stopped reading: then the connection is dropped. */
  #sendAll(sends: readonly CompiledSend[], message?: { text: string; json: unknown }): void {
    const peer = this.#peer!;
    for (const send of sends) {
      if (!this.#open) return;
      let text: string;
      try {
        text = textOf(send, this.#request.values, () => this.#request.model(message));
      } catch (error) {
        // A template that fails at request time ends the session, as it ends a stream.
        this.#peer!.close(1011, `template failed: ${(error as Error).message}`.slice(0, 120));
        return;
      }
      const bytes = UTF8.encode(text).byteLength;
      if (bytes > MAX_WEBSOCKET_MESSAGE_BYTES) {
        this.#peer!.close(1011, "a rendered message is too large");
        return;
      }
      if (peer.bufferedAmount + bytes > this.#limits.maxBuffered) {
        this.#stats.dropped++;
        peer.terminate();
        this.close();
        return;
      }
      peer.send(text);
      this.#stats.messagesOut++;
      this.#hooks.sent(text);
    }
  }
}

/** Answers upgrade requests for `websocket:` stubs. */
export class WebSocketAnswerer {
  readonly limits: WebSocketLimits;
  readonly stats: WebSocketStats = { open: 0, messagesIn: 0, messagesOut: 0, dropped: 0, refused: 0 };

  constructor(limits: Partial<WebSocketLimits> = {}) {
    this.limits = { ...DEFAULT_WEBSOCKET_LIMITS, ...limits };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`websocket ${name} must be a whole number of 1 or more, got ${value}`);
      }
    }
  }

  /**
   * A request that asked for a WebSocket is upgraded (101) with a session following the
   * stub; one that did not gets 426, and one past the connection cap 503.
   */
  answer<R>(
    answer: WebSocketAnswer,
    request: SessionRequest,
    hooks: SessionHooks,
    incoming: Incoming,
    respond: Respond<R>,
  ): R | Promise<R> {
    if (!incoming.upgrade) {
      return respond(...errorAnswer(
        426,
        "this stub answers WebSocket connections: connect with a WebSocket client (Upgrade: websocket)",
        { stub: `${request.stub.method} ${request.stub.path}` },
        { upgrade: "websocket" },
      ));
    }
    if (this.stats.open >= this.limits.maxConnections) {
      this.stats.refused++;
      return respond(
        ...errorAnswer(503, `too many open WebSocket connections (${this.limits.maxConnections}); try again later`),
      );
    }
    incoming.upgrade(new Session(answer, request, hooks, this.limits, this.stats));
    return respond({ status: 101, headers: {} }, null);
  }
}
