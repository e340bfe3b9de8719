/**
 * The JSON Schema (draft 2020-12) of a config file, for editors: with
 * `# yaml-language-server: $schema=…` at the top of a YAML config, VS Code and other
 * editors complete field names and flag typos as you type. `stubtool schema` prints it.
 *
 * It is built from the validator's own field tables (each table's type requires a schema
 * for every field it lists), and it is never stricter than `validate`: a config `validate`
 * accepts passes the schema. Some checks only `validate` makes (a regex that does not
 * compile, `min` above `max`, a sequence beside a plain response); the schema leaves them out.
 * @module
 */

import { TRUNCATIONS } from "./date_pattern.ts";
import { FAULTS } from "./model.ts";
import { JSON_IGNORES, MAX_SCOPE_LENGTH, type MULTIPART_FIELDS, type REQUEST_FIELDS } from "./request.ts";
import { STUB_ID } from "../util/ids.ts";
import { MAX_STREAM_EVENTS } from "./stream_field.ts";
import { MAX_WEBSOCKET_SENDS } from "./websocket_field.ts";
import { XML_COMPARISONS } from "./xml_equal.ts";
import {
  BASE64,
  type CONFIG_FIELDS,
  type ENTRY_FIELDS,
  HEADER_NAME,
  MAX_DELAY_MS,
  ORIGIN,
  SEQUENCE_MODES,
  type STUB_FIELDS,
  STUB_METHODS,
} from "./validate.ts";

/** A JSON Schema, as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** One schema for each name of `fields`: adding a field to a table without describing it here fails type-checking. */
type SchemasOf<Fields extends readonly string[]> = { [Name in Fields[number]]: JsonSchema };

/** A regex source that matches `word` in any letter case (JSON Schema patterns take no flags). */
function anyCase(word: string): string {
  return [...word].map((c) => /[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c).join("");
}

/** Scalars YAML users write where text is meant (`x-count: 5`, `page: 2`). */
const TEXT_LIKE = { type: ["string", "number", "boolean"] };

/** `{key: text}`: one operator of a value pattern. */
const operator = (key: string, value: JsonSchema = TEXT_LIKE): JsonSchema => ({
  type: "object",
  properties: { [key]: value },
  required: [key],
  additionalProperties: false,
});

/** The parts of `{all}`, `{any}`, `{has_exactly}`, `{includes}`. */
const PATTERN_LIST: JsonSchema = { type: "array", minItems: 1, items: { $ref: "#/$defs/valuePattern" } };

/** `{date: {before | after | equals: DATE, …}}`: a value read as a date-time and compared. */
const DATE_PATTERN: JsonSchema = {
  type: "object",
  properties: {
    before: { type: "string" },
    after: { type: "string" },
    equals: { type: "string" },
    format: { type: "string", description: "a Java DateTimeFormatter pattern (dd/MM/yyyy), epoch or unix" },
    truncate_expected: { enum: [...TRUNCATIONS] },
    truncate_actual: { enum: [...TRUNCATIONS] },
    truncate_after_offset: { type: "boolean" },
  },
  oneOf: ["before", "after", "equals"].map((k) => ({ properties: { [k]: { type: "string" } }, required: [k] })),
  additionalProperties: false,
};

const VALUE_PATTERN: JsonSchema = {
  description:
    "text (with {name} captures), {regex: PATTERN}, {absent: true}, {contains: TEXT}, {not_contains: TEXT}, {not_regex: PATTERN}, {equals_ignore_case: TEXT}, {all: [PATTERNS]}, {any: [PATTERNS]}, {has_exactly: [PATTERNS]} (query, form) or {includes: [PATTERNS]} (query, form), {date: {before|after|equals: DATE}}",
  anyOf: [
    TEXT_LIKE,
    operator("regex", { type: "string" }),
    operator("absent", { const: true }),
    operator("contains"),
    operator("not_contains"),
    operator("not_regex"),
    operator("equals_ignore_case"),
    operator("all", PATTERN_LIST),
    operator("any", PATTERN_LIST),
    operator("has_exactly", PATTERN_LIST),
    operator("includes", PATTERN_LIST),
    operator("date", DATE_PATTERN),
  ],
};

const PATTERN_MAP = (what: string): JsonSchema => ({
  type: "object",
  description: `${what} names to value patterns`,
  additionalProperties: { $ref: "#/$defs/valuePattern" },
});

const UPSTREAM: JsonSchema = {
  type: "string",
  // As `new URL` reads it: leading spaces and control characters are dropped, the scheme's case does not matter.
  pattern: `^[\\u0000-\\u0020]*${anyCase("http")}[Ss]?:`,
  description: "an http:// or https:// URL without ?query or #fragment",
};

const STATUS: JsonSchema = {
  description: 'response status (default 200); in a template stub, a template such as "{{request.query.code}}"',
  anyOf: [
    { type: "integer", minimum: 200, maximum: 599 },
    { type: "string", pattern: "\\{\\{" },
  ],
};
const NAME = { type: "string", minLength: 1, maxLength: 200 } as const;
const HEADERS: JsonSchema = {
  type: "object",
  description: "response headers; a list of values sends the header once per value (set-cookie)",
  propertyNames: { pattern: HEADER_NAME.source },
  additionalProperties: { anyOf: [TEXT_LIKE, { type: "array", minItems: 1, items: TEXT_LIKE }] },
};
/** Response headers: as {@link HEADERS}, and `content-type: null` sends none. */
const RESPONSE_HEADERS: JsonSchema = {
  ...HEADERS,
  description: HEADERS.description + "; content-type: null sends no content type (a string body goes as written)",
  patternProperties: { [`^${anyCase("content-type")}$`]: { anyOf: [TEXT_LIKE, { type: "null" }] } },
};
const BODY: JsonSchema = { description: "any JSON value; strings may hold {name} captures" };
const BODY_FILE: JsonSchema = {
  type: "string",
  minLength: 1,
  description: "a file sent as the body, relative to the config file",
};
const BODY_BASE64: JsonSchema = { type: "string", pattern: BASE64.source, description: "a binary body, base64" };
const DELAY: JsonSchema = {
  description:
    "milliseconds, {min, max} drawn uniformly per request, or a lognormal {median, sigma, max?, plus?} drawn per request",
  anyOf: [
    { type: "number", minimum: 0, maximum: MAX_DELAY_MS },
    {
      type: "object",
      properties: {
        min: { type: "number", minimum: 0, maximum: MAX_DELAY_MS },
        max: { type: "number", minimum: 0, maximum: MAX_DELAY_MS },
      },
      required: ["min", "max"],
      additionalProperties: false,
    },
    {
      type: "object",
      properties: {
        median: { type: "number", minimum: 0, maximum: MAX_DELAY_MS },
        sigma: { type: "number", minimum: 0, maximum: 10 },
        max: {
          type: "number",
          minimum: 0,
          maximum: MAX_DELAY_MS,
          description: "a draw above it is drawn again (10 times at most), then capped; not below median",
        },
        plus: { type: "number", minimum: 0, maximum: MAX_DELAY_MS, description: "milliseconds added to the draw" },
      },
      required: ["median", "sigma"],
      additionalProperties: false,
    },
  ],
};
/** `status_message`: the reason phrase. */
const STATUS_MESSAGE: JsonSchema = {
  type: "string",
  pattern: "^[\\t\\x20-\\x7e\\x80-\\xff]*$",
  description: "the reason phrase of the status line (HTTP/1.1 200 All Good); --adapter deno sends the standard one",
};

const ENTRY: SchemasOf<typeof ENTRY_FIELDS> = {
  status: STATUS,
  status_message: STATUS_MESSAGE,
  headers: RESPONSE_HEADERS,
  body: BODY,
  body_file: BODY_FILE,
  body_base64: BODY_BASE64,
  delay: DELAY,
  stream: { $ref: "#/$defs/stream" },
};

/** A message a WebSocket stub sends: text, or `{json}` sent as JSON. */
const WEBSOCKET_SEND: JsonSchema = {
  anyOf: [
    { type: ["string", "number", "boolean"] },
    {
      type: "object",
      properties: { json: { description: "a JSON value sent as JSON text" } },
      required: ["json"],
      additionalProperties: false,
    },
  ],
};
const WEBSOCKET_SENDS: JsonSchema = {
  description: "a message (text or {json: …}) or a list of them",
  anyOf: [WEBSOCKET_SEND, { type: "array", maxItems: MAX_WEBSOCKET_SENDS, items: WEBSOCKET_SEND }],
};

/** `websocket:`: a WebSocket session on a GET stub. */
const WEBSOCKET: JsonSchema = {
  type: "object",
  description:
    "answer with a WebSocket session (GET stubs): messages on connect, replies to matching messages, a close",
  properties: {
    on_connect: {
      type: "array",
      description: "sent once the connection opens, each after its delay_ms (from the one before)",
      items: {
        type: "object",
        properties: {
          send: WEBSOCKET_SENDS,
          delay_ms: { type: "number", minimum: 0, maximum: MAX_DELAY_MS, description: "wait before sending, in ms" },
        },
        required: ["send"],
        additionalProperties: false,
      },
    },
    on_message: {
      type: "array",
      description:
        "the first rule whose match holds answers an incoming message; no match: no reply, recorded as unmatched",
      items: {
        type: "object",
        properties: {
          match: {
            description: "a text value pattern, or {json: {…}} (a JSON sub-document the message must contain)",
            anyOf: [
              { $ref: "#/$defs/valuePattern" },
              { type: "object", properties: { json: {} }, required: ["json"], additionalProperties: false },
            ],
          },
          send: WEBSOCKET_SENDS,
        },
        required: ["match"],
        additionalProperties: false,
      },
    },
    close: {
      type: "object",
      description: "the server closes the connection with code, after_ms after it opened",
      properties: {
        code: { type: "integer", description: "1000–1003, 1007–1014 or 3000–4999 (default 1000)" },
        after_ms: { type: "number", minimum: 0, maximum: MAX_DELAY_MS },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** `stream:`: server-sent events. */
const STREAM: JsonSchema = {
  type: "array",
  minItems: 1,
  maxItems: MAX_STREAM_EVENTS,
  description: "server-sent events (text/event-stream) instead of a body, each sent after its delay_ms",
  items: {
    type: "object",
    properties: {
      data: { description: "text (one data: line per line), or an object or list sent as compact JSON" },
      event: { type: "string", minLength: 1, pattern: "^[^\\r\\n\\u0000]*$", description: "the event type" },
      id: { type: ["string", "integer"], pattern: "^[^\\r\\n\\u0000]*$", description: "the last event id" },
      retry: { type: "integer", minimum: 0, description: "the client's reconnection time in ms" },
      delay_ms: { type: "number", minimum: 0, maximum: MAX_DELAY_MS, description: "wait before this event, in ms" },
    },
    required: ["data"],
    additionalProperties: false,
  },
};

const XML_PLACEHOLDERS_SCHEMA = {
  description:
    "xml_equals values ${xmlunit.ignore}, ${xmlunit.isNumber}, ${xmlunit.matchesRegex(RE)}, ${xmlunit.isDateTime} are placeholders (true), or with these delimiters (regular expressions)",
  anyOf: [
    { type: "boolean" },
    {
      type: "object",
      required: ["open", "close"],
      properties: { open: { type: "string", minLength: 1 }, close: { type: "string", minLength: 1 } },
      additionalProperties: false,
    },
  ],
};

const XML_IGNORE_SCHEMA = {
  type: "array",
  items: { enum: [...XML_COMPARISONS] },
  description: "XMLUnit comparisons xml_equals leaves out (WireMock's exemptedComparisons, lower-cased)",
};

const REQUEST: SchemasOf<typeof REQUEST_FIELDS> = {
  headers: PATTERN_MAP("header"),
  cookies: PATTERN_MAP("cookie"),
  json: { description: "a JSON pattern the request body must contain" },
  form: PATTERN_MAP("form field"),
  body_contains: { type: "string", minLength: 1, description: "text the request body must contain" },
  body_base64: {
    type: "string",
    pattern: BASE64.source,
    description: 'the request body\'s exact bytes, base64 ("": an empty body)',
  },
  body: {
    description: "a value pattern the whole body text must match ({absent: true}: an empty body)",
    $ref: "#/$defs/valuePattern",
  },
  path_params: {
    type: "object",
    additionalProperties: { $ref: "#/$defs/valuePattern" },
    description:
      "value patterns on the path's {name} captures, each tested against the segment as sent (percent-escapes kept)",
  },
  query_string: {
    type: "string",
    pattern: "^[^?#\\s][^#\\s]*$|^$",
    description: 'the query exactly as sent, without ? ("a=1&b=2"; "" for no query)',
  },
  path_regex: { type: "string", minLength: 1, description: "a regular expression the whole path as sent must match" },
  url_regex: {
    type: "string",
    minLength: 1,
    description: "a regular expression the whole path and query as sent (/a?x=1) must match",
  },
  json_equals: { description: "a JSON document the request body must equal (key order and spacing aside)" },
  json_ignore: {
    type: "array",
    items: { enum: [...JSON_IGNORES] },
    description: "what json_equals allows: extra_fields, extra_items, array_order",
  },
  json_placeholders: {
    type: "boolean",
    description:
      "json_equals strings ${json-unit.any-string}, ${json-unit.any-number}, ${json-unit.any-boolean}, ${json-unit.ignore} and ${json-unit.regex}RE are placeholders (JsonUnit's syntax, as WireMock's equalToJson)",
  },
  json_path: {
    type: "object",
    description:
      "JSONPath expressions to true (found, not null), a value pattern, or {json_equals, json_ignore?, json_placeholders?} (a path to one value equal to the document)",
    additionalProperties: {
      anyOf: [
        { const: true },
        { $ref: "#/$defs/valuePattern" },
        {
          type: "object",
          required: ["json_equals"],
          properties: {
            json_equals: {},
            json_ignore: { type: "array", items: { enum: [...JSON_IGNORES] } },
            json_placeholders: { type: "boolean" },
          },
          additionalProperties: false,
        },
      ],
    },
  },
  xml_equals: {
    type: "string",
    minLength: 1,
    description:
      "an XML document the request body must equal (WireMock's equalToXml: whitespace, attribute order, prefixes and comments aside)",
  },
  xml_placeholders: XML_PLACEHOLDERS_SCHEMA,
  xml_ignore: XML_IGNORE_SCHEMA,
  xpath: {
    type: "object",
    description:
      "XPath 1.0 expressions to true (something found), a value pattern on a value found, or {xml_equals, xml_placeholders?, xml_ignore?} (an element found equals the document)",
    additionalProperties: {
      anyOf: [
        { const: true },
        { $ref: "#/$defs/valuePattern" },
        {
          type: "object",
          required: ["xml_equals"],
          properties: {
            xml_equals: { type: "string", minLength: 1 },
            xml_placeholders: XML_PLACEHOLDERS_SCHEMA,
            xml_ignore: XML_IGNORE_SCHEMA,
          },
          additionalProperties: false,
        },
      ],
    },
  },
  xpath_namespaces: {
    type: "object",
    description: "prefix → namespace URI for the xpath expressions (without it, names match as written in the body)",
    additionalProperties: { type: "string", minLength: 1 },
  },
  multipart: {}, // set below: a part takes the request's own body conditions
};

REQUEST.multipart = {
  type: "array",
  minItems: 1,
  description:
    "patterns on the form fields (parts with Content-Disposition: form-data; name=…) of a multipart/* body; each must hold",
  items: {
    type: "object",
    properties: {
      match: { enum: ["any", "all"], description: "any (default): at least one part meets it; all: every part does" },
      headers: PATTERN_MAP("part header"),
      body: REQUEST.body,
      body_contains: REQUEST.body_contains,
      json: REQUEST.json,
      json_equals: REQUEST.json_equals,
      json_ignore: REQUEST.json_ignore,
      json_placeholders: REQUEST.json_placeholders,
      json_path: REQUEST.json_path,
    } satisfies SchemasOf<typeof MULTIPART_FIELDS>,
    additionalProperties: false,
  },
};

const STUB: SchemasOf<typeof STUB_FIELDS> = {
  method: {
    description: `${STUB_METHODS.join(", ")} (any letter case)`,
    anyOf: [
      { enum: [...STUB_METHODS] },
      { type: "string", pattern: `^(${STUB_METHODS.map(anyCase).join("|")})$` },
    ],
  },
  path: { type: "string", pattern: "^/", description: "/users/{id}; may end with ?query" },
  status: STATUS,
  headers: RESPONSE_HEADERS,
  body: BODY,
  query_params: PATTERN_MAP("query parameter"),
  delay: DELAY,
  sequence: {
    type: "array",
    minItems: 1,
    description: "the n-th matching request gets the n-th entry",
    items: { $ref: "#/$defs/entry" },
  },
  sequence_mode: { enum: [...SEQUENCE_MODES], description: "what follows the last sequence entry" },
  id: { type: "string", pattern: STUB_ID.source, description: "unique name of the stub (admin API, report)" },
  scope: {
    type: "string",
    minLength: 1,
    maxLength: MAX_SCOPE_LENGTH,
    description: "answer only requests with x-stubtool-scope: this name",
  },
  priority: { type: "integer", description: "higher wins over more specific paths (default 0)" },
  request: {
    type: "object",
    description: "conditions on the request beyond method and path",
    properties: REQUEST,
    additionalProperties: false,
  },
  body_file: BODY_FILE,
  body_base64: BODY_BASE64,
  proxy: UPSTREAM,
  proxy_request: {
    type: "object",
    description: "what a proxy stub changes on the request it passes on",
    properties: {
      strip_prefix: { type: "string", pattern: "^/", description: "taken off the start of the path" },
      add_headers: {
        type: "object",
        description: "header lines added beside the client's",
        additionalProperties: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
      },
      remove_headers: { type: "array", items: { type: "string" }, description: "client headers not passed on" },
    },
    additionalProperties: false,
  },
  fault: { enum: [...FAULTS], description: "break the answer on purpose" },
  throttle: { type: "integer", minimum: 1, description: "send the body at this many bytes per second" },
  dribble: {
    type: "object",
    description: "send the body in `chunks` pieces spread over `ms` milliseconds",
    properties: {
      chunks: { type: "integer", minimum: 1, maximum: 10_000 },
      ms: { type: "integer", minimum: 0, maximum: MAX_DELAY_MS },
    },
    required: ["chunks", "ms"],
    additionalProperties: false,
  },
  status_message: STATUS_MESSAGE,
  scenario: { ...NAME, description: "the scenario (a state machine starting in Started) this stub takes part in" },
  when_state: { ...NAME, description: "answer only while the scenario is in this state" },
  set_state: { ...NAME, description: "move the scenario to this state when this stub answers" },
  name: { ...NAME, description: "a display name for the report (set for WireMock mappings)" },
  head: { const: false, description: "false: a GET stub does not answer HEAD requests (as in WireMock)" },
  template: { type: "boolean", description: "render body strings, header values and a string status as Handlebars" },
  template_parameters: {
    type: "object",
    description: "data a template stub's templates read as {{parameters.NAME}} (WireMock's transformerParameters)",
  },
  stream: { $ref: "#/$defs/stream" },
  websocket: WEBSOCKET,
  callbacks: {
    type: "array",
    description: "requests sent after the answer (webhooks)",
    items: {
      type: "object",
      properties: {
        method: { type: "string" },
        url: { type: "string", pattern: "^[hH][tT][tT][pP][sS]?://[^{/?#]+" },
        headers: HEADERS,
        body: { description: "text, or a JSON value sent as JSON" },
        delay_ms: { type: "integer", minimum: 0 },
      },
      required: ["method", "url"],
      additionalProperties: false,
    },
  },
};

const CONFIG: SchemasOf<typeof CONFIG_FIELDS> = {
  routes: { type: "array", items: { $ref: "#/$defs/stub" }, description: "the stubs" },
  port: { type: "integer", minimum: 0, maximum: 65535, description: "port to listen on (wins over --port)" },
  cors: {
    description: "true for any origin, or {origins: [...]}",
    anyOf: [
      { type: "boolean" },
      {
        type: "object",
        properties: { origins: { type: "array", items: { type: "string", pattern: ORIGIN.source } } },
        required: ["origins"],
        additionalProperties: false,
      },
    ],
  },
  proxy_unmatched: UPSTREAM,
  wiremock: {
    description: "WireMock root folder(s) whose mappings load as stubs, relative to this file",
    anyOf: [{ type: "string", minLength: 1 }, { type: "array", items: { type: "string", minLength: 1 } }],
  },
};

/**
 * The config file's JSON Schema.
 *
 * @example
 * ```ts
 * import { configSchema } from "./schema.ts";
 * console.log(configSchema().required); // ["routes"]
 * ```
 */
export function configSchema(): JsonSchema {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "stubtool config",
    description: "Stubs for stubtool serve (YAML or JSON). `stubtool validate FILE` checks what this schema cannot.",
    type: "object",
    properties: CONFIG,
    required: ["routes"],
    additionalProperties: false,
    $defs: {
      stub: {
        type: "object",
        properties: STUB,
        required: ["method", "path"],
        additionalProperties: false,
      },
      entry: { type: "object", properties: ENTRY, additionalProperties: false },
      valuePattern: VALUE_PATTERN,
      stream: STREAM,
    },
  };
}

/** The schema as `stubtool schema` prints it and `schema/stubtool.schema.json` holds it. */
export function configSchemaText(): string {
  return `${JSON.stringify(configSchema(), null, 2)}\n`;
}
