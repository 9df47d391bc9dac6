import path from "node:path";
import { pathToFileURL } from "node:url";
import { NodeRegistry } from "./node-registry.js";
import type { NodeType } from "./node-type.js";

/** The node types a plugin added, or why loading it failed (then nothing was added). */
export type PluginLoadResult = { ok: true; registered: string[] } | { ok: false; error: string };

/**
 * Loads an operator's node plugin: a module exporting `register(registry)` (sync or async), or an
 * array of node types (as `nodes` or the default export). All-or-nothing: the plugin registers into
 * a scratch copy, and only a clean run is copied over. Every failure is a value naming the module.
 */
export async function loadNodePlugin(registry: NodeRegistry, modulePath: string): Promise<PluginLoadResult> {
  const label = `node plugin ${modulePath}`;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path.resolve(modulePath)).href)) as Record<string, unknown>;
  } catch (err) {
    return { ok: false, error: `${label}: cannot load: ${message(err)}` };
  }

  const scratch = new NodeRegistry();
  const existing = registry.list();
  for (const node of existing) scratch.register(node);
  const errors: string[] = [];
  // Plugins often ignore register()'s result; record refusals so they are not lost.
  const register = scratch.register.bind(scratch);
  scratch.register = (node: NodeType) => {
    const res = register(node);
    if (!res.ok) errors.push(res.error);
    return res;
  };

  if (typeof mod.register === "function") {
    try {
      await (mod.register as (r: NodeRegistry) => unknown)(scratch);
    } catch (err) {
      return { ok: false, error: `${label}: register() failed: ${message(err)}` };
    }
  } else {
    const list = Array.isArray(mod.nodes) ? mod.nodes : Array.isArray(mod.default) ? mod.default : undefined;
    if (!list) {
      return { ok: false, error: `${label}: exports neither register(registry) nor an array of node types` };
    }
    for (const node of list as NodeType[]) scratch.register(node);
  }
  if (errors.length > 0) return { ok: false, error: `${label}: ${errors.join("; ")}` };

  const known = new Set(existing.map((n) => n.type));
  const added = scratch.list().filter((n) => !known.has(n.type));
  for (const node of added) registry.register(node);
  return { ok: true, registered: added.map((n) => n.type) };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
