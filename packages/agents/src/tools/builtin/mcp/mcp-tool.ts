import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Ajv } from "ajv";
import type { PermissionClass } from "../../../turn/permission-class.js";
import { ok, toolError } from "../../define-tool.js";
import type { Tool, ToolOutcome } from "../../tool.js";
import type { Checked } from "../workspace/confine-path.js";
import type { PinnedToolDefinition } from "./tool-pins.js";

/** How one MCP tool is exposed: its server, class and limits. */
export type McpToolBinding = {
  server: string;
  permissionClass: PermissionClass;
  parallelSafe: boolean;
  callTimeoutMs: number;
  maxResultChars: number;
  maxDescriptionChars: number;
};

/** A compiled MCP tool, bound per user to that user's live client (reconnecting, and re-checking the pin, if needed). */
export type BindMcpTool = (client: () => Promise<Client>) => Tool;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Compiles a listed MCP tool once per connection (its ajv validator is the costly part) into a Tool
 * named `server__tool` for any user's client.
 */
export function compileMcpTool(
  def: PinnedToolDefinition,
  bind: McpToolBinding,
  ajv: Ajv,
): Checked<BindMcpTool> {
  const name = `${bind.server}__${def.name}`;
  if (!TOOL_NAME.test(def.name) || name.length > 64) {
    return { ok: false, reason: `tool name ${JSON.stringify(def.name.slice(0, 80))} is not usable` };
  }
  const schema = def.inputSchema;
  if (typeof schema !== "object" || schema === null || (schema as { type?: unknown }).type !== "object") {
    return { ok: false, reason: `tool ${def.name} has no object input schema` };
  }
  let validateArgs: ReturnType<Ajv["compile"]>;
  try {
    // $id is dropped so two servers (or sessions) announcing the same id cannot collide in ajv.
    const { $id: _id, $schema: _s, ...rest } = schema as Record<string, unknown>;
    validateArgs = ajv.compile(rest);
  } catch (err) {
    return {
      ok: false,
      reason: `tool ${def.name} has an invalid input schema: ${(err as Error).message.slice(0, 200)}`,
    };
  }
  const description = (def.description ?? def.title ?? "").slice(0, bind.maxDescriptionChars);
  return { ok: true, value: (client) => boundTool(def, bind, name, description, validateArgs, client) };
}

function boundTool(
  def: PinnedToolDefinition,
  bind: McpToolBinding,
  name: string,
  description: string,
  validateArgs: ReturnType<Ajv["compile"]>,
  liveClient: () => Promise<Client>,
): Tool {
  const tool: Tool<Record<string, unknown>> = {
    name,
    description: `[MCP ${bind.server}] ${description}`,
    inputSchema: def.inputSchema as Record<string, unknown>,
    permissionClass: bind.permissionClass,
    parallelSafe: bind.parallelSafe,
    validate(args) {
      const value = args ?? {};
      if (validateArgs(value)) return { ok: true, value: value as Record<string, unknown> };
      const msg = (validateArgs.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || "(args)"}: ${e.message ?? "invalid"}`)
        .join("; ");
      return { ok: false, message: `invalid arguments for ${name}: ${msg}` };
    },
    async execute(args, ctx): Promise<ToolOutcome> {
      try {
        const client = await liveClient();
        const result = await client.callTool({ name: def.name, arguments: args }, undefined, {
          timeout: bind.callTimeoutMs,
          signal: ctx.signal,
        });
        const text = resultText(result.content, result.structuredContent);
        const capped =
          text.length > bind.maxResultChars
            ? `${text.slice(0, bind.maxResultChars)}\n…[truncated: ${text.length} characters]`
            : text;
        return result.isError
          ? toolError(`${name} failed: ${capped || "error without message"}`)
          : ok(capped);
      } catch (err) {
        return toolError(`${name} failed: ${describeMcpError(err, bind.callTimeoutMs)}`);
      }
    },
  };
  return tool as Tool;
}

type ContentItem = { type: string; text?: unknown; uri?: unknown; resource?: unknown };

/** The text of a tool result; non-text content is named, not inlined. */
function resultText(content: unknown, structured: unknown): string {
  const items = Array.isArray(content) ? (content as ContentItem[]) : [];
  const parts = items.map((item) => {
    if (item.type === "text" && typeof item.text === "string") return item.text;
    if (item.type === "resource") {
      const r = item.resource as { text?: unknown; uri?: unknown } | undefined;
      return typeof r?.text === "string" ? r.text : `[resource ${String(r?.uri ?? "")}]`;
    }
    if (item.type === "resource_link") return `[resource link ${String(item.uri ?? "")}]`;
    return `[${String(item.type)} content omitted]`;
  });
  if (parts.length === 0 && structured !== undefined) return JSON.stringify(structured);
  return parts.join("\n");
}

/** A short, model-facing reason for a failed call. */
function describeMcpError(err: unknown, timeoutMs: number): string {
  const e = err as { code?: unknown; message?: unknown; name?: unknown };
  if (e?.code === -32001) return `timed out after ${timeoutMs} ms`;
  if (e?.name === "AbortError") return "cancelled";
  const message = typeof e?.message === "string" ? e.message : String(err);
  return message.slice(0, 500);
}
