/**
 * Runtime stubs as they travel between replicas: each in its config form (what
 * `GET /__stubtool__/stubs` lists, which validates back to the same stub), a file's bytes
 * carried as `body_base64` so no replica reads another's disk. A stub that cannot travel
 * faithfully (a response function, a templated `body_file`) stays on its replica, with a `[WARN]`.
 * @module
 */

import type { CompiledStub } from "../../stubs/model.ts";
import { validateConfig } from "../../stubs/validate.ts";
import { stubInfo } from "../admin/stub_form.ts";
import { base64 } from "../journal/journal.ts";
import type { Route } from "../matching/route.ts";

/** Why `route` cannot travel to other replicas, or undefined when it can. */
export function unshareable(route: Route): string | undefined {
  const stub = route.stub;
  if (stub.responseFunc) return "a response function runs only in the process that registered it";
  if (stub.responses.some((r) => r.file !== undefined && !r.bytes)) {
    return "a templated body_file is read from this replica's disk";
  }
  return undefined;
}

/** `route` in the form other replicas validate back into the same stub (with its id). */
export function toWire(route: Route): Record<string, unknown> {
  const form: Record<string, unknown> = stubInfo(route);
  delete form.source;
  delete form.hit_count;
  const withBytes = (entry: Record<string, unknown>, i: number) => {
    const bytes = route.stub.responses[i]?.bytes;
    if (entry.body_file !== undefined && bytes) {
      delete entry.body_file;
      entry.body_base64 = base64(bytes);
    }
  };
  if (Array.isArray(form.sequence)) (form.sequence as Record<string, unknown>[]).forEach(withBytes);
  else withBytes(form, 0);
  return form;
}

function noFiles(path: string): never {
  throw new Error(`${path}: a shared stub carries its bytes, it never reads a file`);
}

/** Stubs back from their wire forms, or the problems (one line each) that kept them out. */
export function fromWire(forms: readonly unknown[]): { stubs?: CompiledStub[]; problems: string[] } {
  const { config, problems } = validateConfig({ routes: forms }, { readFile: noFiles });
  const errors = problems.filter((p) => p.level === "error").map((p) => p.message);
  return config && errors.length === 0 ? { stubs: config.routes, problems: [] } : { problems: errors };
}
