import { EventChannel } from "../loop/event-channel.js";
import { createLevel } from "../loop/level.js";
import { runLevel } from "../loop/run-level.js";
import { runApprovedCall } from "../loop/run-one-call.js";
import type { Tool } from "../tools/tool.js";
import { errorOutcome } from "../turn/call-outcome.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { SuspendedLevel } from "../turn/suspended-state.js";
import type { ResumeParams } from "./resume-params.js";
import { resolveTools, type ToolLevelRun } from "./resume-tool-level.js";

/**
 * Runs the pending call of the level that asked for approval, now approved: in a level rebuilt from
 * the saved one (same depth, parent, toolbelt, turn context and signal), through the loop's own
 * call path, so the tool gets the services, lock, permit and budget an unapproved call gets, and its
 * events nest under the call. Returns the call's outcome (a suspension when the tool waits again)
 * and the usage of what it ran.
 */
export async function* resumeApprovedCall(
  p: ResumeParams,
  saved: SuspendedLevel,
  tool: Tool,
  args: unknown,
): AsyncGenerator<LoopEvent, ToolLevelRun> {
  if (tool.name !== saved.pendingCall.name) {
    return { outcome: errorOutcome(`the approval is for ${saved.pendingCall.name}, not ${tool.name}`) };
  }
  const level = createLevel(
    {
      provider: p.provider,
      model: p.model ?? p.state.model,
      systemPrompt: saved.systemPrompt,
      history: [],
      tools: resolveTools(p.tools, saved.toolNames),
      ctx: p.ctx,
      depth: saved.depth,
      parentId: saved.parentId,
      ...(saved.operation !== undefined && { operation: saved.operation }),
      ...(p.signal !== undefined && { signal: p.signal }),
      ...(p.maxTokens !== undefined && { maxTokens: p.maxTokens }),
      ...(p.settings !== undefined && { settings: p.settings }),
    },
    runLevel,
  );
  try {
    const channel = new EventChannel<LoopEvent>();
    const push = (event: LoopEvent) => channel.push(event);
    const running = runApprovedCall(level, tool, args, saved.pendingCall.id, push).finally(() =>
      channel.close(),
    );
    yield* channel.drain();
    const outcome = await running;
    return { outcome, usage: level.usage.snapshot() };
  } finally {
    level.dispose();
  }
}
