import { agentStateOnWire, type ChatResumedFrame, chatResumedStatusOnWire } from "@agentwire-chat/protocol";
import { waitingTurn } from "../chat/resume-turn.js";
import type { ActiveTurn } from "../turns/active-turn.js";
import { ownThread } from "../turns/watch-turn.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/**
 * `resume_chat`: replays every logged frame of the thread's last turn after `last_seq`, exactly once
 * and in order (from memory or disk, whichever process logged them), then answers `chat_resumed`;
 * while the turn is active the socket keeps receiving it live. A turn that waits on the user since a
 * restart has its question sent again.
 */
export const handleResumeChat: ChatCommandHandler<"resume_chat"> = async (frame, conn, chat) => {
  const thread = await ownThread(conn, frame.data.thread_id);
  const found = chat.turns.get(thread.id);
  let turn: ActiveTurn | undefined = found?.active ? found : undefined;
  if (!turn) {
    const waiting = await waitingTurn(conn, chat, thread.id);
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
      turn.emit({ type: "agent_state", state: agentStateOnWire("waiting_user") });
    }
  }
  // A turn running on another instance reaches this socket through the shared log.
  const remote = !turn && (await chat.coordination?.remoteOwner(thread.id)) !== undefined;
  // Stored as running, but no lease and no run here: its instance died and a survivor has yet to end
  // it. Follow it too, or the closing frames the survivor appends a moment later never come.
  const orphan =
    !remote && !turn?.active && chat.coordination !== undefined
      ? (await conn.repos.turns.latest(conn.userId, thread.id))?.status === "running"
      : false;
  const active = remote || orphan || (turn?.active === true && turn.userId === conn.userId);
  // Everything appended before this point is part of the replay. After `active` is read: a turn that
  // ended meanwhile has appended its last frame by then, so the replay holds its end even though it is
  // not followed (flushed before the check, its closing frames could still be on their way to the log).
  await conn.frames.flush();
  const { replayed, lastSeq } = await conn.frames.resume(
    thread.id,
    frame.data.last_seq,
    conn.subscriber,
    active,
  );
  // A followed turn that ended during the resume, with its last frames still on their way: to this
  // socket it is running (the end comes live), so "finished" always means the replay holds the end.
  const endComesLive = turn !== undefined && !turn.active && lastSeq < conn.frames.lastSeq(thread.id);
  const status: ChatResumedFrame["status"] =
    remote || (active && endComesLive)
      ? "running"
      : active && turn
        ? chatResumedStatusOnWire(turn.status)
        : chatResumedStatusOnWire((await conn.repos.turns.latest(conn.userId, thread.id))?.status);
  conn.send({ type: "chat_resumed", thread_id: thread.id, status, last_seq: lastSeq, replayed });
};
