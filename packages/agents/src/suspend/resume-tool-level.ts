import type { TurnUsage } from "@agentwire-chat/protocol";
import { EventChannel } from "../loop/event-channel.js";
import { createLevel } from "../loop/level.js";
import { runLevel } from "../loop/run-level.js";
import { toolCallOutcome, toolThrew } from "../loop/tool-level.js";
import { toolServices } from "../loop/tool-services.js";
import type { NestedSubtaskResult, Tool } from "../tools/tool.js";
import { type CallOutcome, errorOutcome } from "../turn/call-outcome.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { SuspendedLevel } from "../turn/suspended-state.js";
import type { ResumeParams } from "./resume-params.js";

/** How a resumed tool call ended, and the usage of what it ran. */
export type ToolLevelRun = { outcome: CallOutcome; usage?: TurnUsage };

/**
 * Continues a tool whose nested subtask waited (a tool level of the suspended state): the tool's
 * `resume` runs in a level rebuilt from its owner's saved one (same depth, toolbelt, budget), so its
 * further subtasks nest and count exactly as before the pause. Returns the tool call's outcome (a
 * suspension again when another subtask asks) and the usage of what ran.
 */
export async function* resumeToolLevel(
  p: ResumeParams,
  toolLevel: SuspendedLevel,
  owner: SuspendedLevel | undefined,
  resumed: NestedSubtaskResult,
): AsyncGenerator<LoopEvent, ToolLevelRun> {
  const saved = toolLevel.tool;
  if (!saved || !owner)
    return { outcome: errorOutcome("the suspended state has a tool level without its caller") };
  const level = createLevel(
    {
      provider: p.provider,
      model: p.model ?? p.state.model,
      systemPrompt: owner.systemPrompt,
      history: [],
      tools: resolveTools(p.tools, owner.toolNames),
      ctx: p.ctx,
      depth: owner.depth,
      parentId: owner.parentId,
      ...(owner.operation !== undefined && { operation: owner.operation }),
      ...(p.signal !== undefined && { signal: p.signal }),
      ...(p.maxTokens !== undefined && { maxTokens: p.maxTokens }),
      ...(p.settings !== undefined && { settings: p.settings }),
    },
    runLevel,
  );
  try {
    const tool = level.tools.get(saved.name);
    if (!tool?.resume) {
      return {
        outcome: errorOutcome(`${saved.name} cannot go on after the answer: the tool is not available`),
      };
    }
    const channel = new EventChannel<LoopEvent>();
    const push = (event: LoopEvent) => channel.push(event);
    const resume = tool.resume.bind(tool);
    const running = Promise.resolve()
      .then(() =>
        resume(saved.state, resumed, {
          toolCallId: saved.callId,
          depth: owner.depth,
          parentId: owner.parentId,
          signal: level.signal,
          emit: push,
          ...toolServices(level, saved.callId, push),
        }),
      )
      .then(
        (outcome) =>
          toolCallOutcome(
            outcome,
            { depth: owner.depth, toolNames: owner.toolNames },
            { name: saved.name, id: saved.callId },
          ),
        (error: unknown) =>
          toolThrew(level.ctx.onToolCrash, {
            tool: saved.name,
            toolCallId: saved.callId,
            parentId: owner.parentId,
            depth: owner.depth,
            error,
          }),
      )
      .finally(() => channel.close());
    yield* channel.drain();
    const outcome = await running;
    return { outcome, usage: level.usage.snapshot() };
  } finally {
    level.dispose();
  }
}

/** The root toolbelt narrowed to a saved level's names; null: the whole toolbelt. */
export function resolveTools(rootTools: readonly Tool[], names: string[] | null): Tool[] {
  if (names === null) return rootTools.slice();
  const wanted = new Set(names);
  return rootTools.filter((t) => wanted.has(t.name));
}
