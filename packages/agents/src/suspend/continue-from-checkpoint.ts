import type { LoopResult } from "../loop/loop-result.js";
import { endEvent } from "../loop/run-tool-calls.js";
import { runUnifiedAgentLoop } from "../loop/run-unified-agent-loop.js";
import type { ToolModelMessage } from "../providers/model-message.js";
import type { ToolCallEvent } from "../providers/provider-event.js";
import type { Tool } from "../tools/tool.js";
import type { Checkpoint } from "../turn/checkpoint.js";
import type { LoopEvent } from "../turn/loop-event.js";
import { resolveTools } from "./resume-tool-level.js";
import type { ResumeParams } from "./resume-unified-agent-loop.js";

/** What continuing needs beside the checkpoint: the same provider, root toolbelt and turn context. */
export type ContinueParams = Omit<ResumeParams, "state" | "answer"> & { checkpoint: Checkpoint };

/** The result of a call that was running when the process died and cannot safely run twice. */
export const RESTARTED = "the server restarted before this call finished";

/** True when a call in flight at a crash may simply run again: declared so, or of the read (`safe`) class. */
export function isIdempotent(tool: Tool | undefined): boolean {
  return tool?.idempotent ?? tool?.permissionClass === "safe";
}

/**
 * Continues a turn from its last checkpoint after the process that ran it died. The calls of the
 * checkpoint's last assistant message that had not finished run again when their tool is idempotent;
 * any other gets an error result (RESTARTED, its `end` yielded here) and the model decides. Then the
 * loop goes on as before the crash: the model call that was in flight is made again.
 */
export async function* continueFromCheckpoint(p: ContinueParams): AsyncGenerator<LoopEvent, LoopResult> {
  const { root } = p.checkpoint;
  const tools = resolveTools(p.tools, root.toolNames);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const last = root.messages.at(-1);
  const finished = new Set(root.results.map((r) => r.toolCallId));
  const open = last?.role === "assistant" ? (last.toolCalls ?? []).filter((c) => !finished.has(c.id)) : [];
  const again: ToolCallEvent[] = [];
  const lost: ToolModelMessage[] = [];
  const nest = { parentId: root.parentId, depth: root.depth, now: () => 0 };
  for (const call of open) {
    if (isIdempotent(byName.get(call.name))) {
      again.push({ type: "tool-call", id: call.id, name: call.name, args: call.args });
      continue;
    }
    lost.push({ role: "tool", toolCallId: call.id, name: call.name, content: RESTARTED, isError: true });
    yield endEvent(nest, call, RESTARTED, true, 0);
  }
  // New messages of the root, reported like the loop reports its own (the server stores them).
  for (const m of lost) p.ctx.onMessage?.(m, { depth: root.depth, parentId: root.parentId });
  return yield* runUnifiedAgentLoop({
    provider: p.provider,
    model: p.model ?? p.checkpoint.model,
    systemPrompt: root.systemPrompt,
    history: [...root.messages, ...root.results, ...lost],
    tools,
    ctx: p.ctx,
    depth: root.depth,
    parentId: root.parentId,
    maxIterations: root.maxIterations,
    iterationsUsed: root.iterationsUsed,
    ...(again.length > 0 && { pendingCalls: again }),
    ...(p.signal !== undefined && { signal: p.signal }),
    ...(p.maxTokens !== undefined && { maxTokens: p.maxTokens }),
    ...(root.outputSchema !== undefined && { outputSchema: root.outputSchema }),
    ...(root.title !== undefined && { title: root.title }),
    ...(p.context !== undefined && { context: p.context }),
  });
}
