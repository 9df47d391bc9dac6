import { AgentwireError } from "@agentwire-chat/protocol";
import type { ChatServices } from "../chat/chat-services.js";
import { resumeTurn, type WaitingTurn, waitingTurn } from "../chat/resume-turn.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/**
 * `tool_approval_response`: `allow` runs the gated call, `allow_for_thread` also allows later calls of
 * that tool in the thread (stored with the thread), `deny` gives the model an error result. Only the
 * thread's owner can answer, and only once. The approved call runs inside the resumed turn, exactly
 * as an ungated call would, under the turn's signal: closing the approving socket does not stop it.
 */
export const handleToolApprovalResponse: ChatCommandHandler<"tool_approval_response"> = async (
  frame,
  conn,
  chat,
) => {
  const { approval_id: approvalId, decision } = frame.data;
  const waiting = await findApproval(conn, chat, approvalId);
  if (!waiting) throw new AgentwireError("not_found", "no pending approval with that id");
  const suspension = waiting.saved.state.suspension;
  if (suspension.kind !== "approval")
    throw new AgentwireError("not_found", "no pending approval with that id");
  if (decision === "allow_for_thread")
    await conn.repos.toolGrants.grant(conn.userId, waiting.turn.threadId, suspension.toolName);
  await resumeTurn(conn, chat, waiting, async (tools) => {
    if (decision === "deny") {
      return { content: `The user declined to run ${suspension.toolName}.`, isError: true };
    }
    const approved = tools.get(suspension.toolName);
    if (!approved) return { content: "the approved tool is no longer available", isError: true };
    return { approved };
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
