import type { ThinkingBlock } from "../providers/model-message.js";
import type { Provider } from "../providers/provider.js";
import type {
  FinishReason,
  ProviderErrorInfo,
  ProviderEvent,
  ProviderUsage,
  ToolCallEvent,
} from "../providers/provider-event.js";
import type { ProviderRequest } from "../providers/provider-request.js";
import { ABORTED } from "./abortable.js";
import { AbortableStream } from "./abortable-stream.js";
import type { ChunkEvent } from "./loop-event.js";

/** Everything one model turn produced. */
export type ModelTurn = {
  text: string;
  thinking: ThinkingBlock[];
  toolCalls: ToolCallEvent[];
  usage?: ProviderUsage;
  finish?: FinishReason;
  error?: ProviderErrorInfo;
  aborted: boolean;
};

/** Streams one provider call, yielding text and thinking chunks as they come. */
export async function* streamModelTurn(
  provider: Provider,
  request: ProviderRequest,
  signal: AbortSignal,
  parentId: string | null,
  depth: number,
): AsyncGenerator<ChunkEvent, ModelTurn> {
  const turn: ModelTurn = { text: "", thinking: [], toolCalls: [], aborted: false };
  let block: ThinkingBlock | null = null;
  let iterator: AsyncIterator<ProviderEvent> | undefined;
  let stream: AbortableStream<ProviderEvent> | undefined;
  try {
    iterator = provider.stream(request, signal)[Symbol.asyncIterator]();
    stream = new AbortableStream(iterator, signal);
    for (;;) {
      const next = await stream.next();
      if (next === ABORTED || next.done) break;
      const event = next.value;
      switch (event.type) {
        case "text-delta":
          turn.text += event.text;
          yield { type: "chunk", content: event.text, parent_id: parentId, depth };
          break;
        case "thinking-delta":
          block ??= { text: "" };
          block.text += event.text;
          if (event.text)
            yield { type: "chunk", content: event.text, thinking: true, parent_id: parentId, depth };
          if (event.signature !== undefined || event.redactedData !== undefined) {
            if (event.signature !== undefined) block.signature = event.signature;
            if (event.redactedData !== undefined) block.redactedData = event.redactedData;
            turn.thinking.push(block);
            block = null;
          }
          break;
        case "tool-call":
          turn.toolCalls.push(event);
          break;
        case "usage":
          turn.usage = { ...turn.usage, ...event.usage };
          break;
        case "finish":
          turn.finish = event.reason;
          break;
        case "error":
          turn.error = event.error;
          break;
      }
    }
  } catch (error) {
    // The Provider contract makes failures events; a throw is a provider bug, still not the turn's crash.
    turn.error = { message: `provider ${provider.id} failed: ${messageOf(error)}` };
  } finally {
    stream?.dispose();
  }
  if (block) turn.thinking.push(block);
  if (signal.aborted) {
    turn.aborted = true;
    void Promise.resolve(iterator?.return?.()).catch(() => {});
  }
  return turn;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
