import { z } from "zod";

/** A JSON Schema, as plain data; `{}` accepts anything. */
export type JsonSchema = Record<string, unknown>;

/** One input or output of a node type. */
export const PortSpec = z.object({
  name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.-]+$/),
  description: z.string().max(1000).optional(),
  schema: z.record(z.string(), z.unknown()),
  /** Inputs only: an optional input may stay unconnected. Inputs are required by default. */
  optional: z.boolean().optional(),
});
export type PortSpec = z.infer<typeof PortSpec>;

/** What the runner gives a node about the run it belongs to. */
export type WorkflowRunInput = {
  /** The chat message that started the run. */
  text: string;
  /** The provider and model of the chat message, used by LLM nodes that name none. */
  provider?: string;
  model?: string;
};

/** What a node sees while it runs. */
export type NodeContext = {
  nodeId: string;
  properties: Record<string, unknown>;
  input: WorkflowRunInput;
  /** Reports partial progress (e.g. streamed text); the runner shows it as a node preview. */
  progress(preview: string): void;
  /** Returns false when the turn's budget refuses another LLM call. */
  countLlmCall(): boolean;
};

/** A node's result: named output values, or an error message. Errors are values. */
export type NodeResult = { ok: true; outputs: Record<string, unknown> } | { ok: false; error: string };

/** A node type the registry knows: its ports and what it does. */
export interface NodeType {
  readonly type: string;
  readonly description: string;
  readonly inputs: readonly PortSpec[];
  readonly outputs: readonly PortSpec[];
  /** Runs the node; `signal` aborts on stop, wall-clock budget or a failing sibling. */
  process(inputs: Record<string, unknown>, ctx: NodeContext, signal: AbortSignal): Promise<NodeResult>;
}

/** Shape check for node types coming from plugins, which the type system cannot vouch for. */
export const NodeTypeShape = z.object({
  type: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, "a dotted name such as 'text.upper'"),
  description: z.string().min(1).max(2000),
  inputs: z.array(PortSpec),
  outputs: z.array(PortSpec),
  process: z.custom<NodeType["process"]>((v) => typeof v === "function", "must be a function"),
});

/** A successful node result. */
export const nodeOk = (outputs: Record<string, unknown>): NodeResult => ({ ok: true, outputs });
/** A failed node result. */
export const nodeError = (error: string): NodeResult => ({ ok: false, error });
