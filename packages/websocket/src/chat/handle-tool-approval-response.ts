import type { Tool } from "@agentwire/agents";
import { AgentwireError } from "../errors/agentwire-error.js";
import type { CommandHandler } from "../ws/command-router.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import { requireChat } from "./chat-connection.js";
import type { ChatServices } from "./chat-services.js";
import { continueTurn, type WaitingTurn, waitingTurn } from "./continue-turn.js";

/**
 * `tool_approval_response`: `allow` runs the gated call, `allow_for_thread` also allows later calls of
 * that tool in the thread, `deny` gives the model an error result. Only the thread's owner can answer,
 * and only once.
 */
export const handleToolApprovalResponse: CommandHandler<"tool_approval_response"> = async (frame, conn) => {
  const chat = requireChat(conn);
  const { approval_id: approvalId, decision } = frame.data;
  const waiting = await findApproval(conn, chat, approvalId);
  if (!waiting) throw new AgentwireError("not_found", "no pending approval with that id");
  const suspension = waiting.saved.state.suspension;
  if (suspension.kind !== "approval")
    throw new AgentwireError("not_found", "no pending approval with that id");
  if (decision === "allow_for_thread") chat.grants.grant(waiting.turn.threadId, suspension.toolName);
  await continueTurn(conn, chat, waiting, async (tools) => {
    if (decision === "deny") {
      return { content: `The user declined to run ${suspension.toolName}.`, isError: true };
    }
    return runApproved(tools.get(suspension.toolName), suspension.args, waiting, conn.signal);
  });
};

/** The user's turn that waits on this approval: only their own threads are searched. */
async function findApproval(
  conn: ConnectionContext,
  chat: ChatServices,
  approvalId: string,
): Promise<WaitingTurn | undefined> {
  for (const threadId of await conn.repos.turns.waitingThreads(conn.userId)) {
    const waiting = await waitingTurn(conn, chat, threadId);
    const s = waiting?.saved.state.suspension;
    if (s?.kind === "approval" && s.approvalId === approvalId) return waiting;
  }
  return undefined;
}

async function runApproved(
  tool: Tool | undefined,
  args: unknown,
  waiting: WaitingTurn,
  signal: AbortSignal,
): Promise<{ content: string; isError?: boolean }> {
  if (!tool) return { content: "the approved tool is no longer available", isError: true };
  const checked = tool.validate(args);
  if (!checked.ok) return { content: checked.message, isError: true };
  const level = waiting.saved.state.levels.at(-1);
  try {
    const outcome = await tool.execute(checked.value, {
      toolCallId: waiting.saved.state.toolCallId,
      depth: level?.depth ?? 0,
      parentId: level?.parentId ?? null,
      signal: AbortSignal.any([signal, waiting.turn.abort.signal]),
    });
    if (outcome.type === "suspend")
      return { content: "the tool asked for input it cannot get here", isError: true };
    const content = typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output);
    return { content, ...(outcome.isError && { isError: true }) };
  } catch (error) {
    return {
      content: `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      isError: true,
    };
  }
}
