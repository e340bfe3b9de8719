/**
 * The template answerer: a `template: true` stub's response rendered per request with
 * Handlebars (status, header values, body strings or text, a body file's text), from the
 * request model (`request.*`, `params.*`). Templates are compiled when the stub is
 * registered; a helper that fails at request time answers 500 naming the stub and helper.
 * @module
 */

import {
  compileJsonTemplate,
  compileStatusTemplate,
  compileTemplate,
  type JsonTemplate,
  type ResponseTemplate,
  type StatusTemplate,
  TemplateError,
  type TemplateModel,
} from "../../templating/handlebars.ts";
import type { ResponseSpec } from "../../stubs/model.ts";
import type { BodyReader, BodyRecord } from "../body.ts";
import type { Incoming } from "../incoming.ts";
import type { RequestView } from "../request_view.ts";
import {
  type AnswerBody,
  errorAnswer,
  findHeader,
  HeaderValueError,
  type Respond,
  type ResponseHead,
  sendableHeader,
  textual,
} from "../response.ts";
import { templateModel } from "./template_model.ts";

const UTF8 = new TextDecoder();
const ENCODER = new TextEncoder();

/** One response of a template stub, compiled. */
export class TemplateResponse {
  readonly delay: ResponseSpec["delay"];
  /** Does rendering read the request body (so it is read first)? */
  readonly readsBody: boolean;
  readonly #status: StatusTemplate;
  readonly #statusText?: string;
  readonly #headers: [name: string, value: ResponseTemplate | ResponseTemplate[]][];
  readonly #body: ResponseTemplate | JsonTemplate | Uint8Array<ArrayBuffer> | undefined;
  /** No content type: the rendered text goes out as bytes (Deno's Response would type a string as text/plain). */
  readonly #encode: boolean;
  /** The first header is the `content-type` added for the body, dropped with it for a body-less status. */
  readonly #addedType: boolean;
  /** The stub's `template_parameters`, read as `parameters.NAME`. */
  readonly #parameters: Readonly<Record<string, unknown>> | undefined;
  /** The head, when neither the status nor a header reads the request: built once, shared by every answer. */
  readonly #fixedHead: ResponseHead | undefined;

  /** Compiles `spec`'s templates; throws a `SyntaxError` for a broken one (validation has caught them before). */
  constructor(spec: ResponseSpec) {
    this.delay = spec.delay;
    this.#parameters = spec.templateParameters;
    this.#status = compileStatusTemplate(spec.statusTemplate ?? spec.status);
    this.#statusText = spec.statusMessage;
    const contentType = findHeader(spec.headers, "content-type");
    const untyped = spec.noContentType === true;
    this.#encode = untyped;
    const headers: [string, ResponseTemplate | ResponseTemplate[]][] = [];
    this.#addedType = spec.hasBody === true && contentType === undefined && !spec.bytes && !untyped;
    if (this.#addedType) headers.push(["content-type", compileTemplate("application/json")]);
    for (const name in spec.headers) {
      const value = spec.headers[name];
      headers.push([
        name,
        Array.isArray(value) ? value.map(compileTemplate) : compileTemplate(value),
      ]);
    }
    this.#headers = headers;
    if (spec.bytes) {
      // A body file's text is a template; base64 bytes are sent as they are.
      this.#body = spec.file === undefined ? spec.bytes : compileTemplate(UTF8.decode(spec.bytes));
    } else if (spec.hasBody) {
      const asText = typeof spec.body === "string" && textual(contentType, untyped);
      this.#body = asText ? compileTemplate(spec.body as string) : compileJsonTemplate(spec.body);
    }
    const body = this.#body;
    this.readsBody = headers.some(([, v]) => (Array.isArray(v) ? v : [v]).some((t) => t.readsBody)) ||
      (body !== undefined && !(body instanceof Uint8Array) && body.readsBody);
    const fixed = !this.#status.dynamic &&
      headers.every(([, v]) => (Array.isArray(v) ? v : [v]).every((t) => !t.dynamic));
    // A value that cannot be sent is left to fail each answer, as a rendered one does.
    try {
      this.#fixedHead = fixed ? this.#head({} as TemplateModel) : undefined;
    } catch {
      this.#fixedHead = undefined;
    }
  }

  /** The answer for one request; throws {@link TemplateError} or {@link HeaderValueError}. */
  render(model: TemplateModel): [ResponseHead, AnswerBody] {
    if (this.#parameters) model.parameters = this.#parameters;
    const head = this.#fixedHead ?? this.#head(model);
    const body = this.#body;
    if (bodiless(head.status) || body === undefined) return [head, null];
    if (body instanceof Uint8Array) return [head, body];
    const text = body.render(model);
    return [head, this.#encode ? ENCODER.encode(text) : text];
  }

  /** The status and headers rendered for one request. */
  #head(model: TemplateModel): ResponseHead {
    const status = this.#status.render(model);
    const head: ResponseHead = { status, headers: Object.create(null) };
    if (this.#statusText !== undefined) head.statusText = this.#statusText;
    for (const [i, [name, value]] of this.#headers.entries()) {
      if (i === 0 && bodiless(status) && this.#addedType) continue;
      if (!Array.isArray(value)) head.headers[name] = headerValue(name, value.render(model));
      else {
        (head.lists ??= Object.create(null) as Record<string, string[]>)[name] = value.map((t) =>
          headerValue(name, t.render(model))
        );
      }
    }
    return head;
  }
}

/**
 * A status rendered per request may forbid a body (204, 205, 304): the body is dropped (and the
 * content type added for it), as validation makes a plain stub drop it, so the client, the log and
 * the journal see the same answer.
 */
function bodiless(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}

/**
 * A rendered header value as it goes out: characters outside ASCII percent-encoded as UTF-8,
 * the way a plain stub sends a capture (as the request sent it); control characters (CR, LF)
 * refused with {@link HeaderValueError}.
 */
export function headerValue(name: string, value: string): string {
  let plain = true;
  for (let i = 0; i < value.length && plain; i++) plain = value.charCodeAt(i) <= 0x7e;
  if (plain) return sendableHeader(name, value);
  let out = "";
  for (const char of value) {
    if (char.charCodeAt(0) <= 0x7e) out += char;
    else {
      try {
        out += encodeURIComponent(char);
      } catch {
        out += "%EF%BF%BD"; // a lone surrogate: U+FFFD
      }
    }
  }
  return sendableHeader(name, out);
}

/** Renders template responses. */
export class TemplateAnswerer {
  readonly #bodies: BodyReader;

  constructor(bodies: BodyReader) {
    this.#bodies = bodies;
  }

  /** Reads the body when the template needs it, builds the request model and renders. */
  answer<R>(
    response: TemplateResponse,
    stub: string,
    params: Readonly<Record<string, string>>,
    pathParams: Readonly<Record<string, string>>,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    record: BodyRecord | undefined,
  ): R | Promise<R> {
    if (response.readsBody && !view.body) {
      return this.#bodies.whole(incoming, view, record).then((failed) =>
        failed ? respond(...failed) : this.#render(response, stub, params, pathParams, view, incoming, respond)
      );
    }
    return this.#render(response, stub, params, pathParams, view, incoming, respond);
  }

  #render<R>(
    response: TemplateResponse,
    stub: string,
    params: Readonly<Record<string, string>>,
    pathParams: Readonly<Record<string, string>>,
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
  ): R {
    const model = modelOf(view, incoming, params, pathParams);
    let answer: [ResponseHead, AnswerBody];
    try {
      answer = response.render(model);
    } catch (error) {
      if (error instanceof TemplateError) {
        return respond(...errorAnswer(500, `template failed: ${error.message}`, { stub, helper: error.helper }));
      }
      if (error instanceof HeaderValueError) return respond(...errorAnswer(500, error.message, { stub }));
      throw error;
    }
    return respond(...answer);
  }
}

/** The request model a template reads, for one request (parts worked out when read). */
export function modelOf(
  view: RequestView,
  incoming: Incoming,
  params: Readonly<Record<string, string>>,
  pathParams: Readonly<Record<string, string>>,
): TemplateModel {
  const body = view.body;
  return templateModel({
    method: view.method,
    target: incoming.target,
    pathname: view.pathname,
    rawQuery: view.rawQuery,
    // The handler does not know whether its listener speaks TLS.
    scheme: "http",
    header: (name) => incoming.header(name),
    headers: () => incoming.headers(),
    bodyText: () => body?.text() ?? "",
    bodyJson: body ? () => body.json() : undefined,
    params,
    pathParams,
  });
}

/** Captures by name: `names[i]` → `values[i]`, for the first `count` names (all by default). */
export function paramsOf(
  names: readonly string[],
  values: readonly string[],
  count = names.length,
): Record<string, string> {
  const params: Record<string, string> = Object.create(null);
  for (let i = 0; i < count; i++) params[names[i]] = values[i];
  return params;
}
