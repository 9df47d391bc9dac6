// The model side of `pnpm bench scale`, loaded by each real server process through
// AGENTWIRE_SCRIPTED_PROVIDER (the server's own hook for tests and benchmarks). A turn's root call
// fans out to `subtasks` parallel run_subtask calls, each subtask streams `subtaskChunks` text deltas
// `chunkMs` apart, then the root streams a `finalChunks` answer. Every call first waits `firstTokenMs`.
// The shape comes from BENCH_SCALE_TURN (JSON), set by scale.ts.
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { PacedProvider } from "./_paced-provider.js";

/** The turn shape scale.ts passes to the server processes. */
export type ScaleTurnShape = {
  subtasks: number;
  subtaskChunks: number;
  finalChunks: number;
  chunkMs: number;
  firstTokenMs: number;
};

const shape = JSON.parse(process.env.BENCH_SCALE_TURN ?? "{}") as Partial<ScaleTurnShape>;
const subtasks = shape.subtasks ?? 3;
const subtaskChunks = shape.subtaskChunks ?? 40;
const finalChunks = shape.finalChunks ?? 20;
const firstTokenMs = shape.firstTokenMs ?? 300;
const usage = { inputTokens: 50, outputTokens: 20 };

const firstUserText = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};

export default new PacedProvider((request): ScriptedStep => {
  if (firstUserText(request).startsWith("subtask ")) {
    return { delayMs: firstTokenMs, text: Array(subtaskChunks).fill(" word"), usage };
  }
  if (request.messages.length === 1) {
    return {
      delayMs: firstTokenMs,
      text: "Splitting the work.",
      toolCalls: Array.from({ length: subtasks }, (_, i) => ({
        name: "run_subtask",
        args: { title: `part ${i + 1}`, instructions: `subtask ${i + 1}: research part ${i + 1}` },
      })),
      usage,
    };
  }
  return { delayMs: firstTokenMs, text: Array(finalChunks).fill(" word"), usage };
}, shape.chunkMs ?? 50);
