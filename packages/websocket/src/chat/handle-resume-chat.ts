import type { ChatResumedFrame } from "@agentwire/protocol";
import type { CommandHandler } from "../ws/command-router.js";
import { ownThread, requireChat, sinkOf, watchTurn } from "./chat-connection.js";
import { waitingTurn } from "./continue-turn.js";

/**
 * `resume_chat`: replays every frame of the thread's running or last turn after `last_seq`, exactly
 * once and in order, then answers `chat_resumed` and streams live. A turn that waits on the user
 * since a restart has its question sent again.
 */
export const handleResumeChat: CommandHandler<"resume_chat"> = (frame, conn) => {
  const chat = requireChat(conn);
  const thread = ownThread(conn, frame.data.thread_id);
  const lastSeq = frame.data.last_seq;
  let turn = chat.turns.get(thread.id);
  if (!turn) {
    const waiting = waitingTurn(conn, chat, thread.id);
    if (waiting) {
      turn = waiting.turn;
      const { state } = waiting.saved;
      const s = state.suspension;
      if (s.kind === "question")
        turn.emit({ type: "question", tool_call_id: state.toolCallId, question: s.question });
      else
        turn.emit({
          type: "tool_approval_request",
          approval_id: s.approvalId,
          tool_name: s.toolName,
          permission_class: s.permissionClass,
          args: s.args,
        });
      turn.emit({ type: "agent_state", state: "waiting_on_user" });
      conn.repos.threads.setLastSeq(conn.userId, thread.id, turn.lastSeq);
    }
  }
  if (turn) {
    const replayed = turn.replayTo(sinkOf(conn), lastSeq);
    if (turn.phase !== "finished") watchTurn(conn, chat, turn);
    conn.send({
      type: "chat_resumed",
      thread_id: thread.id,
      status: turn.phase,
      last_seq: turn.lastSeq,
      replayed,
    });
    return;
  }
  const latest = conn.repos.turns.latest(conn.userId, thread.id);
  const status: ChatResumedFrame["status"] = !latest
    ? "unknown"
    : latest.status === "interrupted"
      ? "interrupted"
      : "finished";
  conn.send({ type: "chat_resumed", thread_id: thread.id, status, last_seq: thread.lastSeq, replayed: 0 });
};
