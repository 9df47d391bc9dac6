import type { ValidateFunction } from "ajv";
import { createAjv } from "../tools/create-ajv.js";

export type CompiledSchema = { ok: true; validate: ValidateFunction } | { ok: false; message: string };

// No logger reaches here: ajv's notes on model-written schemas (unknown formats) are dropped, not printed.
const ajv = createAjv();
const cache = new Map<string, CompiledSchema>();
const CACHE_MAX = 256;

/** Compiles a model-written JSON Schema once; an invalid schema is a message, not an exception. */
export function compileOutputSchema(schema: Record<string, unknown>): CompiledSchema {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  let compiled: CompiledSchema;
  try {
    compiled = { ok: true, validate: ajv.compile(schema) };
  } catch (error) {
    compiled = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

/** The validator's errors as one line the model can act on. */
export function describeSchemaErrors(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { dataVar: "result" });
}
