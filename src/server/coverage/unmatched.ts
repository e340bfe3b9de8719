/**
 * Answers to requests no stub matched: recorded as unmatched with their near misses (the
 * stubs that nearly matched, and why), then answered 404 — or by the real service when
 * `proxy_unmatched` is set.
 * @module
 */

import type { ClosestStub } from "../../report/types.ts";
import type { ProxyAnswerer } from "../answers/proxy.ts";
import type { BodyReader, BodyRecord } from "../body.ts";
import type { Incoming } from "../incoming.ts";
import type { Recorder } from "./recorder.ts";
import type { RequestView } from "../request_view.ts";
import { errorAnswer, type Respond } from "../response.ts";
import { NEED_BODY } from "../matching/router.ts";
import type { StubSet } from "../matching/stub_set.ts";
import { readFile, stat } from "node:fs/promises";
import { contentTypeOf } from "../../stubs/media.ts";
import { resolveInside } from "../../util/paths.ts";

/** How many explained misses are kept (clients repeat the same unmatched request: polling, retries). */
const CLOSEST_CACHE_SIZE = 256;
/** Longer targets are explained every time rather than kept. */
const CLOSEST_CACHE_KEY_MAX = 1024;

/**
 * The content type WireMock (Jetty) sends with a `__files` file: the type by its extension,
 * with a charset only for HTML (`text/html;charset=utf-8`), as recorded from WireMock 3.13.2.
 */
function servedType(file: string): string {
  const type = contentTypeOf(file).replace(/;\s*charset=utf-8$/i, "");
  return type === "text/html" ? "text/html;charset=utf-8" : type;
}

/** What an unmatched answer records besides the report: the near misses, for the journal. */
export interface MissRecord extends BodyRecord {
  closest: ClosestStub[] | undefined;
}

/** Records and answers requests that matched no stub. */
export class UnmatchedAnswerer {
  readonly #stubs: StubSet;
  readonly #recorder: Recorder;
  readonly #bodies: BodyReader;
  readonly #proxy: ProxyAnswerer;
  readonly #proxyUnmatched: URL | undefined;
  /** WireMock `__files` folders a `GET` no stub matches is answered from (`serve --wiremock`). */
  readonly #fileRoots: readonly string[];
  /** Near misses already worked out, for one version of the stubs. */
  #closest = { version: -1, cache: new Map<string, ClosestStub[]>() };

  constructor(
    stubs: StubSet,
    recorder: Recorder,
    bodies: BodyReader,
    proxy: ProxyAnswerer,
    proxyUnmatched: URL | undefined,
    fileRoots: readonly string[] = [],
  ) {
    this.#fileRoots = fileRoots;
    this.#stubs = stubs;
    this.#recorder = recorder;
    this.#bodies = bodies;
    this.#proxy = proxy;
    this.#proxyUnmatched = proxyUnmatched;
  }

  /** Records the request as unmatched and answers it: 404 with its near misses, or the upstream's answer. */
  answer<R>(
    view: RequestView,
    incoming: Incoming,
    respond: Respond<R>,
    record: MissRecord | undefined,
  ): R | Promise<R> {
    const closest = this.#closestTo(view);
    if (closest === NEED_BODY) {
      return this.#bodies.whole(incoming, view, record).then((failed) =>
        failed ? respond(...failed) : this.answer(view, incoming, respond, record)
      );
    }
    const { method, pathname, rawQuery } = view;
    const entry = this.#recorder.unmatched(method, pathname, rawQuery, closest, view.scope);
    if (record) record.closest = closest;
    if (this.#fileRoots.length && method === "GET") {
      const file = this.#servedFile(pathname);
      if (file !== undefined) {
        // Still an unmatched request (the report says so), answered from a WireMock folder's __files.
        return Promise.all([readFile(file), stat(file)]).then(
          ([bytes, info]) =>
            respond({
              status: 200,
              headers: {
                "content-type": servedType(file),
                "accept-ranges": "bytes",
                "last-modified": info.mtime.toUTCString(),
              },
            }, new Uint8Array(bytes)),
          () => this.#notFound(entry, closest, respond),
        );
      }
    }
    if (this.#proxyUnmatched) {
      // Still an unmatched request (the report says so), answered by the real service.
      entry.proxied = true;
      return this.#proxy.answer(this.#proxyUnmatched, view, incoming, respond, undefined, (status) => {
        if (status !== undefined) entry.upstream_status = status;
      });
    }
    return this.#notFound(entry, closest, respond);
  }

  /**
   * The file of a WireMock `__files` folder a `GET` of `pathname` names, as WireMock serves
   * it: the file itself, or for a folder its `index.json`, else its `index.html`; only inside
   * the folder (symbolic links followed), never a path that leaves it.
   */
  #servedFile(pathname: string): string | undefined {
    let path: string;
    try {
      path = decodeURIComponent(pathname);
    } catch {
      return undefined;
    }
    if (path.includes("\0")) return undefined;
    const relative = `.${path}`;
    for (const root of this.#fileRoots) {
      for (const candidate of [relative, `${relative}/index.json`, `${relative}/index.html`]) {
        const found = resolveInside(root, candidate);
        if ("path" in found) return found.path;
        if (found.problem === "outside") break;
      }
    }
    return undefined;
  }

  #notFound<R>(
    entry: ReturnType<Recorder["unmatched"]>,
    closest: ClosestStub[],
    respond: Respond<R>,
  ): R {
    // The answer echoes what the report keeps: a long path or query cut, marked `truncated`.
    const { path, query, truncated } = entry;
    return respond(
      ...errorAnswer(404, "no stub matched", {
        method: entry.method,
        path,
        ...(query === undefined ? {} : { query }),
        ...(truncated ? { truncated } : {}),
        closest,
      }),
    );
  }

  /** The near misses of an unmatched request, from the cache when it was seen before. */
  #closestTo(view: RequestView): ClosestStub[] | typeof NEED_BODY {
    const stubs = this.#stubs;
    if (this.#closest.version !== stubs.version) this.#closest = { version: stubs.version, cache: new Map() };
    const cache = this.#closest.cache;
    // Explanations that depend on headers or the body are not worth keeping by target.
    const key = `${view.method} ${view.scope ?? ""} ${view.pathname}?${view.rawQuery}`;
    const cacheable = !stubs.hasRequestConditions && key.length <= CLOSEST_CACHE_KEY_MAX;
    const cached = cacheable ? cache.get(key) : undefined;
    if (cached) return cached;
    const misses = stubs.router.nearMisses(view);
    if (misses === NEED_BODY) return NEED_BODY;
    const closest = misses.map(({ route, reason }): ClosestStub => {
      const entry: ClosestStub = { method: route.method, path: route.path, reason };
      if (route.stub.query) entry.query_params = { ...route.stub.query };
      entry.id = route.id;
      entry.place = route.stub.place ?? route.source;
      return entry;
    });
    if (cacheable) {
      if (cache.size >= CLOSEST_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(key, closest);
    }
    return closest;
  }
}
