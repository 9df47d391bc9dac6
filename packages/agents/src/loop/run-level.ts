import type { LoopEvent } from "../turn/loop-event.js";
import type { LoopResult, LoopStatus } from "../turn/loop-result.js";
import { suspensionEvents } from "../turn/suspension-events.js";
import { callModel } from "./call-model.js";
import { createLevel, type Level } from "./level.js";
import { checkpointEvent } from "./level-state.js";
import { assertNever, type NextStep } from "./next-step.js";
import type { RunLoopParams } from "./run-loop-params.js";
import { runToolsStep } from "./run-tools-step.js";

const FINISH_REMINDER =
  "You have not finished: call finish_subtask with a result that matches its schema to end this subtask.";

/**
 * The agent loop of one level, at any depth: stream a model turn, run its tool calls (subtasks are
 * child levels whose events come through this generator), repeat until an answer, a suspension, a
 * stop or a limit. Yields protocol events; returns how the level ended. Never throws for a model,
 * tool or provider failure: those are results.
 */
export async function* runLevel(params: RunLoopParams): AsyncGenerator<LoopEvent, LoopResult> {
  const level = createLevel(params, runLevel);
  const root = level.depth === 0;
  const freeze = () => level.budget.freeze();
  if (root) params.signal?.addEventListener("abort", freeze, { once: true });
  try {
    const pending = params.pendingCalls;
    let step: NextStep = pending?.length ? { type: "run_tools", calls: pending } : { type: "call_model" };
    // The turn's first call already has the newest user message; steering joins only later calls.
    let called = false;
    for (;;) {
      switch (step.type) {
        case "call_model":
          if (root && called && (await steered(level))) yield checkpointEvent(level);
          called = true;
          step = yield* callModel(level);
          // Durable with the frames before it: a crash from here on continues from this step.
          if (step.type === "run_tools") yield checkpointEvent(level);
          break;
        case "run_tools":
          step = yield* runToolsStep(level, step.calls);
          if (step.type === "call_model") yield checkpointEvent(level);
          break;
        case "remind_finish":
          level.messages.push({ role: "user", content: FINISH_REMINDER });
          step = { type: "call_model" };
          break;
        case "final_output":
          return result(level, "complete", {
            text: step.text || level.lastText,
            ...(step.structured !== undefined && { structured: step.structured }),
          });
        case "suspend":
          if (root) yield* suspensionEvents(step.pending);
          return result(level, "waiting_user", { pending: step.pending });
        case "stop": {
          if (step.status === "budget_exceeded") {
            const breach = level.budget.claimReport();
            if (breach) yield { type: "budget_exceeded", ...breach };
          }
          // The root's state at a limit, with the results of the batch it cut: `continue_turn` goes
          // on from exactly here (the last step's checkpoint would lose or repeat work).
          if (root && continuable(step.status)) yield checkpointEvent(level);
          return result(level, step.status, {
            ...(step.error !== undefined && { error: step.error }),
            ...(step.status === "budget_exceeded" && level.budget.breach && { budget: level.budget.breach }),
          });
        }
        default:
          return assertNever(step);
      }
    }
  } finally {
    level.dispose();
    if (root) {
      params.signal?.removeEventListener("abort", freeze);
      level.budget.dispose();
    }
  }
}

/** Adds the user messages that steer the turn (ctx.steer) to the root's conversation; true when any did. */
async function steered(level: Level): Promise<boolean> {
  const messages = (await level.ctx.steer?.()) ?? [];
  for (const message of messages) level.messages.push(message);
  return messages.length > 0;
}

/** The ends a user may continue from with a fresh budget. */
function continuable(status: LoopStatus): boolean {
  return status === "budget_exceeded" || status === "iteration_limit";
}

function result(level: Level, status: LoopStatus, extra: Partial<LoopResult>): LoopResult {
  return { status, text: level.lastText, messages: level.messages, usage: level.usage.snapshot(), ...extra };
}
