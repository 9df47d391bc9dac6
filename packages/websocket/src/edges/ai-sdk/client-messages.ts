import type { ClientFrame } from "@agentwire-chat/protocol";
import { z } from "zod";
import type { SendRequest, UiPart } from "./transport-request.js";
import type { AgentwireNode } from "./ui-chunks.js";

/**
 * The longest user message the edge takes, in characters: the protocol's limit on an `answer`. A
 * longer one is refused with an `error` frame before anything is stored (a frame over the server's
 * payload limit closes the socket 1009 before it is read, as on `/ws`).
 */
export const MAX_MESSAGE_CHARS = 100_000;

/**
 * The text of the request's last message, the one a `send` adds: the thread keeps the history, so
 * earlier messages are the stored thread's, not the client's. Or why it cannot start a turn.
 */
export function lastUserText(messages: SendRequest["messages"]): string | { problem: string } {
  const last = messages[messages.length - 1];
  if (last?.role !== "user") return { problem: "the last message must be the user's" };
  const text = last.parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("");
  if (text.trim() === "") return { problem: "the last user message has no text" };
  if (text.length > MAX_MESSAGE_CHARS) {
    return { problem: `the message is longer than ${MAX_MESSAGE_CHARS} characters` };
  }
  return text;
}

/**
 * The native answers an assistant message carries, newest first: an `ask_user` part the client gave
 * an output (`addToolOutput`) and a part whose approval it responded to (`addToolApprovalResponse`).
 * The message may still hold answers the server already took; those are refused, changing nothing.
 */
export function pendingAnswers(parts: readonly UiPart[], threadId: string): ClientFrame[] {
  const answers: ClientFrame[] = [];
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as UiPart;
    if (!isToolPart(part) || part.toolCallId === undefined) continue;
    if (part.state === "approval-responded" && part.approval?.approved !== undefined) {
      answers.push({
        command: "tool_approval_response",
        data: { approval_id: part.approval.id, decision: part.approval.approved ? "allow" : "deny" },
      });
    } else if (part.state === "output-available" && toolName(part) === "ask_user") {
      const output = part.output;
      answers.push({
        command: "answer",
        data: {
          thread_id: threadId,
          tool_call_id: part.toolCallId,
          answer: typeof output === "string" ? output : JSON.stringify(output ?? ""),
        },
      });
    }
  }
  return answers;
}

function isToolPart(part: UiPart): boolean {
  return part.type === "dynamic-tool" || part.type.startsWith("tool-");
}

function toolName(part: UiPart): string | undefined {
  return part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
}

/** A `data-agentwire-node` part's payload as the client holds it (what `pushNode` sent it). */
const NodeData = z.object({
  id: z.string(),
  parent_id: z.string().nullable(),
  depth: z.number().int().min(0),
  name: z.string(),
  title: z.string().optional(),
  status: z.enum(["running", "complete", "error"]),
  text: z.string(),
}) satisfies z.ZodType<AgentwireNode>;

/**
 * The tree's nodes as the client's assistant message holds them, to go on from when the turn
 * continues on that message (after an answer): a subtask's text streamed before the question is in
 * no frame of the continued response. A part of another shape is skipped; the edge gives it back
 * only to the same client, as its own display state.
 */
export function nodesOf(parts: readonly UiPart[]): AgentwireNode[] {
  return parts.flatMap((part) => {
    if (part.type !== "data-agentwire-node") return [];
    const node = NodeData.safeParse(part.data);
    return node.success ? [node.data] : [];
  });
}
