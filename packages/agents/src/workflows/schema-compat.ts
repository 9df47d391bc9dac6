import type { JsonSchema } from "./node-type.js";

/** The JSON Schema `type`s a schema admits, or undefined when it admits anything. */
export function schemaTypes(schema: JsonSchema): Set<string> | undefined {
  const t = schema.type;
  if (typeof t === "string") return new Set([t]);
  if (Array.isArray(t) && t.every((x) => typeof x === "string") && t.length > 0) return new Set(t);
  return undefined;
}

/**
 * Whether an output with `source` schema may feed an input with `target` schema: every type the
 * source may produce must be accepted by the target. Only `type` is compared (deliberately coarse:
 * nodes still check their inputs at run time); a schema without `type` is compatible with all.
 */
export function portsCompatible(source: JsonSchema, target: JsonSchema): boolean {
  const from = schemaTypes(source);
  const to = schemaTypes(target);
  if (from === undefined || to === undefined) return true;
  for (const t of from) {
    if (to.has(t)) continue;
    if (t === "integer" && to.has("number")) continue;
    return false;
  }
  return true;
}

/** The JSON Schema type name of a value, for property checks and messages. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Whether a fixed property value fits a port schema's `type` (same coarse rule as ports). */
export function valueFits(value: unknown, schema: JsonSchema): boolean {
  const types = schemaTypes(schema);
  if (types === undefined) return true;
  const t = jsonTypeOf(value);
  return types.has(t) || (t === "integer" && types.has("number"));
}

/** A short human form of a schema's type, e.g. "string" or "string|null" or "any". */
export function describeSchemaType(schema: JsonSchema): string {
  const types = schemaTypes(schema);
  return types === undefined ? "any" : [...types].join("|");
}
