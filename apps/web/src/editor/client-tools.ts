import type { ClientToolSpec } from "@agentwire-chat/protocol";

/** A workflow graph the agent asks the page to draw. */
export type GraphView = { nodes: { id: string; label: string }[]; edges: { from: string; to: string }[] };
export type NoticeLevel = "info" | "success" | "warning" | "error";

/** What the UI tools may do to the page; injected so the tools stay testable without a DOM. */
export type ClientToolEffects = {
  showGraph: (graph: GraphView) => void;
  notify: (message: string, level: NoticeLevel) => void;
};

export type ClientToolOutcome = { ok: true; result: unknown } | { ok: false; error: string };

/** Announced with `client_tools_manifest`; the server offers them to the agent in editor context. */
export const clientToolsManifest: ClientToolSpec[] = [
  {
    name: "ui_show_graph",
    description:
      "Draw a workflow graph in the user's editor. Nodes have an id and a label; edges join node ids.",
    input_schema: {
      type: "object",
      properties: {
        nodes: {
          type: "array",
          items: {
            type: "object",
            properties: { id: { type: "string" }, label: { type: "string" } },
            required: ["id"],
          },
        },
        edges: {
          type: "array",
          items: {
            type: "object",
            properties: { from: { type: "string" }, to: { type: "string" } },
            required: ["from", "to"],
          },
        },
      },
      required: ["nodes"],
    },
  },
  {
    name: "ui_notify",
    description: "Show a short notification to the user in the editor.",
    input_schema: {
      type: "object",
      properties: {
        message: { type: "string" },
        level: { type: "string", enum: ["info", "success", "warning", "error"] },
      },
      required: ["message"],
    },
  },
];

/** Runs one client tool call; bad arguments become a tool error the model can read and correct. */
export function runClientTool(name: string, args: unknown, effects: ClientToolEffects): ClientToolOutcome {
  const input = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
  switch (name) {
    case "ui_show_graph": {
      if (!Array.isArray(input.nodes)) return { ok: false, error: "nodes: expected an array" };
      const nodes = input.nodes.flatMap((n: unknown) => {
        const node = n as { id?: unknown; label?: unknown };
        if (typeof node?.id !== "string") return [];
        return [{ id: node.id, label: typeof node.label === "string" ? node.label : node.id }];
      });
      const ids = new Set(nodes.map((n) => n.id));
      const edges = (Array.isArray(input.edges) ? input.edges : []).flatMap((e: unknown) => {
        const edge = e as { from?: unknown; to?: unknown };
        return typeof edge?.from === "string" &&
          typeof edge.to === "string" &&
          ids.has(edge.from) &&
          ids.has(edge.to)
          ? [{ from: edge.from, to: edge.to }]
          : [];
      });
      effects.showGraph({ nodes, edges });
      return { ok: true, result: { shown: true, nodes: nodes.length, edges: edges.length } };
    }
    case "ui_notify": {
      if (typeof input.message !== "string") return { ok: false, error: "message: expected a string" };
      const level =
        (["info", "success", "warning", "error"] as const).find((l) => l === input.level) ?? "info";
      effects.notify(input.message, level);
      return { ok: true, result: { shown: true } };
    }
    default:
      return { ok: false, error: `unknown client tool ${name}` };
  }
}
