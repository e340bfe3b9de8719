/**
 * The converter's copy of a document made ready for `openapi-sampler`, whose `allOf` merge takes
 * the last branch's sample for a non-object (`allOf: [{type: array, minItems: 1}, {nullable:
 * false}]` gave `[]`) and merges an annotation branch's `example` into an object (`allOf: [$ref,
 * {example: [...]}]` gave no object), and which leaves out a required property the schema never
 * describes (Box's `shared_link` requires `accessed`). {@link prepareForSampling} rewrites the
 * copy in place so that every sample it makes passes the schema it came from.
 * @module
 */

import { isObject } from "../util/json_shape.ts";

type Json = Record<string, unknown>;

/** Keywords that describe a schema without constraining its values. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "nullable",
  "x-nullable",
  "example",
  "examples",
  "default",
  "readOnly",
  "writeOnly",
  "deprecated",
  "externalDocs",
  "xml",
  "$comment",
]);

/** Keys under which a document holds values, not schemas: never looked into. */
const VALUE_KEYS = new Set(["example", "examples", "default", "enum", "const"]);

/** Keys whose values are maps from names (a property, a schema's name) to schemas. */
const NAME_MAPS = new Set(["properties", "patternProperties", "definitions", "$defs", "schemas", "dependentSchemas"]);

/** Calls `visit` on each child of `node` that may hold schemas (not example data, not extensions). */
function eachChild(node: Json, visit: (child: unknown) => void): void {
  for (const [key, value] of Object.entries(node)) {
    if (VALUE_KEYS.has(key) || key.startsWith("x-")) continue;
    if (NAME_MAPS.has(key) && isObject(value)) Object.values(value).forEach(visit);
    else visit(value);
  }
}

/** Whether a schema only annotates (`{description}`, `{nullable: true}`, `{example}`): it constrains nothing. */
function annotatesOnly(schema: unknown): schema is Json {
  return isObject(schema) && Object.keys(schema).every((key) => ANNOTATIONS.has(key) || key.startsWith("x-"));
}

/**
 * Rewrites a document's schemas in place for the sampler: an `allOf` branch that only annotates
 * is dropped (its `readOnly`/`writeOnly` move to the `allOf`'s own schema; an `example` there
 * describes no branch, so the sample is built from the branches), and an object schema that
 * requires a property it never describes gets it as `{}` (any value: the sampler writes null),
 * unless it is a branch of an `allOf` whose other branches may describe it. `resolve` follows
 * an internal `$ref`.
 */
export function prepareForSampling(doc: Json, resolve: (value: unknown) => unknown): void {
  const branches = new WeakSet<object>();
  const visited = new WeakSet<object>();
  const fold = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(fold);
    if (!isObject(node) || visited.has(node)) return;
    visited.add(node);
    if (Array.isArray(node.allOf) && node.allOf.length > 1) {
      const kept = node.allOf.filter((branch) => !annotatesOnly(branch));
      let allOf: unknown[] = node.allOf;
      if (kept.length && kept.length < allOf.length) {
        for (const branch of allOf) {
          if (!annotatesOnly(branch)) continue;
          for (const key of ["readOnly", "writeOnly"]) {
            if (branch[key] === true && node[key] === undefined) node[key] = true;
          }
        }
        node.allOf = allOf = kept;
      }
      if (allOf.length > 1) {
        for (const branch of allOf) {
          const target = resolve(branch);
          if (isObject(target)) branches.add(target);
          if (isObject(branch)) branches.add(branch);
        }
      }
    }
    eachChild(node, fold);
  };
  fold(doc);
  const described = new WeakSet<object>();
  const describe = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(describe);
    if (!isObject(node) || described.has(node)) return;
    described.add(node);
    if (
      Array.isArray(node.required) && !branches.has(node) && node.additionalProperties !== false &&
      node.patternProperties === undefined && (isObject(node.properties) || node.type === "object")
    ) {
      const properties = isObject(node.properties) ? node.properties : {};
      for (const name of node.required) {
        if (typeof name === "string" && !Object.hasOwn(properties, name)) properties[name] = {};
      }
      node.properties = properties;
    }
    eachChild(node, describe);
  };
  describe(doc);
}
