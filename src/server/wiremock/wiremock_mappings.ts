/**
 * Mappings sent to WireMock's admin API, admitted as stubs: each converted by the same
 * converter as `serve --wiremock`, given WireMock's priority band, and checked by the validator
 * every stub passes; a `bodyFileName` is read only inside `--files-root`.
 * @module
 */

import { resolve } from "node:path";
import { hasIntegralDecimal, mappingsToConfig } from "../../formats/wiremock/mapping.ts";
import { parseKeepingNumbers } from "../../formats/wiremock/java_json.ts";
import { adminPriority } from "../../formats/wiremock/ranks.ts";
import { addMatchedHeaders } from "../../formats/wiremock/folder_stubs.ts";
import { withId } from "../../formats/wiremock/shapes.ts";
import type { CompiledStub } from "../../stubs/model.ts";
import { validateConfig } from "../../stubs/validate.ts";
import { readInsideRoot } from "../admin/admin.ts";
import { pacer } from "../../util/pace.ts";
import { type Answer, errors, refusal } from "./wiremock_journal.ts";
import { STUB_ID } from "../../util/ids.ts";
import { isObject } from "../../util/json_shape.ts";

/** One mapping as admitted: the stub, and the mapping as it will be shown. */
export interface Admitted {
  stub: CompiledStub;
  mapping: Record<string, unknown>;
}

/**
 * Converts mappings into stubs as `serve --wiremock` does, then validates them like any
 * admin `POST`; the first mapping that does not convert or validate refuses them all.
 * Nothing is added here: the caller adds the batch in one step, so no request sees part of it.
 * Each mapping gets an id (its own, else a new UUID) and WireMock's priority (1 highest).
 */
export async function admitMappings(
  host: { filesRoot?: string },
  mappings: readonly unknown[],
  text: string,
): Promise<{ admitted: Admitted[] } | { answer: Answer }> {
  const admitted: Admitted[] = [];
  // Converting and validating take about 20 µs a mapping: in slices, so the server answers meanwhile.
  const pace = pacer();
  // One scan of the whole text, not one per mapping (a 2,000-mapping import rescanned it 2,000 times).
  const integralDecimals = hasIntegralDecimal(text);
  // The text again with its numbers as written, for jsonBody (WireMock sends `1.0` back as `1.0`).
  const keptDoc = parseKeepingNumbers(text);
  const keptList = isObject(keptDoc) && Array.isArray(keptDoc.mappings) ? keptDoc.mappings : [keptDoc];
  const kept = keptList.length === mappings.length ? keptList : [];
  for (const [i, raw] of mappings.entries()) {
    await pace();
    if (!isObject(raw)) return { answer: errors(422, { code: 10, title: `mappings[${i}] must be an object` }) };
    const given = raw.id ?? raw.uuid;
    if (given !== undefined && (typeof given !== "string" || !STUB_ID.test(given))) {
      return {
        answer: errors(422, {
          code: 10,
          source: { pointer: "/id" },
          title: `${JSON.stringify(given)} is not a valid id (a UUID, or 1-100 of A-Z a-z 0-9 _ . : -)`,
        }),
      };
    }
    const id = given ?? crypto.randomUUID();
    const mapping = withId(raw, id);
    const converted = mappingsToConfig(mapping, "body", { integralDecimals, kept: kept[i] });
    if (converted.warnings.length || converted.routes.length !== 1) {
      return { answer: errors(422, ...converted.warnings.map(refusal)) };
    }
    const route = converted.routes[0];
    // WireMock's priority band, at its top: a mapping added now beats every loaded one of its priority.
    const priority = adminPriority(converted.wiremockPriorities[0]);
    if (priority === 0) delete route.priority;
    else route.priority = priority;
    addMatchedHeaders(route, id, typeof mapping.name === "string" ? mapping.name : undefined);
    const stub = validateMapping(host.filesRoot, route, converted.bodyFiles.filter((f) => f.route === 0));
    if ("answer" in stub) return stub;
    admitted.push({ stub: stub.stub, mapping });
  }
  return { admitted };
}

/** One converted stub through the validator; `bodyFileName` reads inside `--files-root` only. */
function validateMapping(
  root: string | undefined,
  route: Record<string, unknown>,
  files: readonly { name: string; source?: string; bytes?: Uint8Array }[],
): { stub: CompiledStub } | { answer: Answer } {
  const source = files.find((f) => f.source !== undefined);
  if (source && root === undefined) {
    return {
      answer: errors(422, {
        code: 10,
        source: { pointer: "/response/bodyFileName" },
        title: "'bodyFileName' is not supported over the admin API here",
        detail: "the server reads no file of its machine: send the body in the mapping (body, jsonBody, " +
          "base64Body), or start it with --files-root DIR to read files inside DIR",
      }),
    };
  }
  const base = resolve(root ?? "/");
  const readFile = (path: string): Uint8Array<ArrayBuffer> => {
    for (const file of files) {
      if (file.bytes && resolve(base, file.name) === path) return new Uint8Array(file.bytes);
    }
    // Never reached without a root: a bodyFileName is refused above, and generated bodies are in `files`.
    if (root === undefined) throw new Error("the server reads no file of its machine");
    return readInsideRoot(root, path);
  };
  if (source) route.body_file = source.source!.replace(/\\/g, "/").replace(/^\/+/, "");
  const { config, problems } = validateConfig({ routes: [route] }, { baseDir: base, readFile });
  const problem = problems.find((p) => p.level === "error");
  if (!config || problem) {
    return {
      answer: errors(422, {
        code: 10,
        title: problem?.message ?? "the mapping is not a valid stub",
        detail: `stubtool's stub from this mapping: ${JSON.stringify(route)}`,
      }),
    };
  }
  return { stub: config.routes[0] };
}
