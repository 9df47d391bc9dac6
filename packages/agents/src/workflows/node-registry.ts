import { type NodeType, NodeTypeShape } from "./node-type.js";

/** The outcome of registering a node type. */
export type RegisterResult = { ok: true } | { ok: false; error: string };

/** The node types a server offers to workflows; the planner and the validator read it. */
export class NodeRegistry {
  readonly #types = new Map<string, NodeType>();

  /** Adds a node type; refuses a malformed one, duplicate port names, or a type name already taken. */
  register(node: NodeType): RegisterResult {
    const shape = NodeTypeShape.safeParse(node);
    const label = typeof node?.type === "string" ? `node type "${node.type}"` : "node type";
    if (!shape.success) {
      const issue = shape.error.issues[0];
      const where = issue?.path.length ? issue.path.join(".") : "(node)";
      return { ok: false, error: `${label}: ${where}: ${issue?.message ?? "invalid"}` };
    }
    if (this.#types.has(node.type)) return { ok: false, error: `${label} is already registered` };
    for (const side of ["inputs", "outputs"] as const) {
      const names = node[side].map((p) => p.name);
      const dup = names.find((n, i) => names.indexOf(n) !== i);
      if (dup !== undefined) return { ok: false, error: `${label}: duplicate ${side} port "${dup}"` };
    }
    this.#types.set(node.type, node);
    return { ok: true };
  }

  /** The node type registered under `type`, if any. */
  get(type: string): NodeType | undefined {
    return this.#types.get(type);
  }

  has(type: string): boolean {
    return this.#types.has(type);
  }

  /** Every registered node type, sorted by name so prompts are stable. */
  list(): NodeType[] {
    return [...this.#types.values()].sort((a, b) => a.type.localeCompare(b.type));
  }
}
