import { z } from "zod";
import type { PermissionClass } from "../turn/permission-class.js";
import type { Tool, ToolContext, ToolOutcome } from "./tool.js";

type ToolDefinition<S extends z.ZodType> = {
  name: string;
  description: string;
  args: S;
  permissionClass: PermissionClass;
  parallelSafe?: boolean;
  idempotent?: boolean;
  requiresExclusiveLock?: string;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutcome>;
};

/**
 * JSON Schemas by their zod schema: per-user tools are built for every turn from the same
 * module-level schemas, and converting them again each time was a visible share of a turn's start.
 */
const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { unrepresentable: "any" }) as Record<string, unknown>;
    delete json.$schema;
    jsonSchemas.set(schema, json);
  }
  return json;
}

/** Builds a Tool whose arguments are a zod schema: JSON Schema for the model, validation for the loop. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool<z.infer<S>> {
  const inputSchema = jsonSchemaOf(def.args);
  return {
    name: def.name,
    description: def.description,
    inputSchema,
    permissionClass: def.permissionClass,
    parallelSafe: def.parallelSafe ?? true,
    ...(def.idempotent !== undefined && { idempotent: def.idempotent }),
    ...(def.requiresExclusiveLock !== undefined && { requiresExclusiveLock: def.requiresExclusiveLock }),
    validate(args) {
      const parsed = def.args.safeParse(args ?? {});
      if (parsed.success) return { ok: true, value: parsed.data };
      const msg = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.length ? i.path.join(".") : "(args)"}: ${i.message}`)
        .join("; ");
      return { ok: false, message: `invalid arguments for ${def.name}: ${msg}` };
    },
    execute: def.execute,
  };
}

/** A successful result. */
export const ok = (output: unknown): ToolOutcome => ({ type: "result", output });
/** An error result the model sees (the loop goes on). */
export const toolError = (message: string): ToolOutcome => ({
  type: "result",
  output: message,
  isError: true,
});
