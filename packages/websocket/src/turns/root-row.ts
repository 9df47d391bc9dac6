import type { ModelMessage } from "@agentwire-chat/agents";
import type { NewMessage } from "@agentwire-chat/storage";

/** A root-level message of the loop as a row to store (assistant turns with tool calls, tool results). */
export function rootRow(message: ModelMessage, turnId: string, provider: string, model: string): NewMessage {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content, status: "complete", turnId };
    case "assistant":
      return {
        role: "assistant",
        content: message.text,
        status: "complete",
        turnId,
        provider,
        model,
        ...(message.toolCalls?.length && {
          toolCalls: message.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        }),
      };
    case "tool":
      return {
        role: "tool",
        content: message.content,
        toolCallId: message.toolCallId,
        status: "complete",
        turnId,
        ...(message.isError && { isError: true }),
      };
  }
}
