import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Tool } from "@agentwire-chat/agents";

/** A harmless tool for subtasks to call, so nested cards have something to show. */
export const lookupPriceTool: Tool<{ shop: string }> = {
  name: "lookup_price",
  description: "Looks up a shop's price.",
  inputSchema: { type: "object", properties: { shop: { type: "string" } }, required: ["shop"] },
  permissionClass: "safe",
  validate: (args) => {
    const shop = (args as { shop?: unknown } | null)?.shop;
    return typeof shop === "string"
      ? { ok: true, value: { shop } }
      : { ok: false, message: "shop: expected a string" };
  },
  execute: async ({ shop }) => ({ type: "result", output: { shop, price: shop === "A" ? 3 : 4 } }),
};

/** A workspace_write tool: with `workspaceWrite: "ask"` the server asks the user before it runs. */
export function saveNoteTool(dir: string): Tool<{ path: string; content: string }> {
  return {
    name: "save_note",
    description: "Saves a note in the workspace.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
    permissionClass: "workspace_write",
    validate: (args) => {
      const a = (args ?? {}) as { path?: unknown; content?: unknown };
      return typeof a.path === "string" && /^[\w.-]+$/.test(a.path) && typeof a.content === "string"
        ? { ok: true, value: { path: a.path, content: a.content } }
        : { ok: false, message: "path and content: expected a plain file name and a string" };
    },
    execute: async ({ path, content }) => {
      writeFileSync(join(dir, path), content);
      return { type: "result", output: `saved ${path}` };
    },
  };
}
