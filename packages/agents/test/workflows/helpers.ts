import { ServerFrame } from "@agentwire-chat/protocol";
import { NodeRegistry } from "../../src/workflows/node-registry.js";
import { type NodeType, nodeError, nodeOk } from "../../src/workflows/node-type.js";
import type { WorkflowFrame, WorkflowRunResult } from "../../src/workflows/run-workflow.js";

/** A promise with its resolver exposed, for gating nodes without timers. */
export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Drains a workflow run: every frame (each checked against the protocol schema), and the run's result. */
export async function drain(
  gen: AsyncGenerator<WorkflowFrame, WorkflowRunResult>,
): Promise<{ frames: WorkflowFrame[]; result: WorkflowRunResult }> {
  const frames: WorkflowFrame[] = [];
  for (;;) {
    const next = await gen.next();
    if (next.done) return { frames, result: next.value };
    const checked = ServerFrame.safeParse(next.value);
    if (!checked.success) throw new Error(`not a protocol frame: ${JSON.stringify(next.value)}`);
    frames.push(next.value);
  }
}

/** `node_id:status` for each node_update, in order. */
export function nodeStatuses(frames: readonly WorkflowFrame[]): string[] {
  return frames.flatMap((f) => (f.type === "node_update" ? [`${f.node_id}:${f.status}`] : []));
}

/** A node type whose `process` is supplied by the test. */
export function testNode(type: string, process: NodeType["process"], optionalIn = false): NodeType {
  return {
    type,
    description: `test node ${type}`,
    inputs: [{ name: "in", schema: { type: "string" }, optional: optionalIn }],
    outputs: [{ name: "out", schema: { type: "string" } }],
    process,
  };
}

/** A registry of simple string nodes: `src` (no input), `upper`, `join` (a, b), `sink` (output.sink). */
export function stringRegistry(extra: NodeType[] = []): NodeRegistry {
  const r = new NodeRegistry();
  const nodes: NodeType[] = [
    {
      type: "src",
      description: "emits its `value` property",
      inputs: [],
      outputs: [{ name: "out", schema: { type: "string" } }],
      process: async (_i, ctx) => nodeOk({ out: String(ctx.properties.value ?? "") }),
    },
    testNode("upper", async (i) =>
      typeof i.in === "string" ? nodeOk({ out: i.in.toUpperCase() }) : nodeError("no input"),
    ),
    {
      type: "join",
      description: "joins a and b",
      inputs: [
        { name: "a", schema: { type: "string" } },
        { name: "b", schema: { type: "string" } },
      ],
      outputs: [{ name: "out", schema: { type: "string" } }],
      process: async (i) => nodeOk({ out: `${i.a}+${i.b}` }),
    },
    {
      type: "count",
      description: "a number",
      inputs: [],
      outputs: [{ name: "n", schema: { type: "integer" } }],
      process: async () => nodeOk({ n: 3 }),
    },
    {
      type: "output.sink",
      description: "output",
      inputs: [{ name: "text", schema: { type: "string" } }],
      outputs: [{ name: "text", schema: { type: "string" } }],
      process: async (i) => nodeOk({ text: i.text }),
    },
    ...extra,
  ];
  for (const n of nodes) {
    const res = r.register(n);
    if (!res.ok) throw new Error(res.error);
  }
  return r;
}

/** An edge in short form: "a.out -> b.in". */
export function edge(spec: string) {
  const m = /^(\S+)\.(\S+)\s*->\s*(\S+)\.(\S+)$/.exec(spec);
  if (!m) throw new Error(`bad edge spec ${spec}`);
  return { source: m[1]!, source_port: m[2]!, target: m[3]!, target_port: m[4]! };
}
