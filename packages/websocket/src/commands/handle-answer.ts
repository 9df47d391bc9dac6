import { AgentwireError } from "@agentwire-chat/protocol";
import { resumeTurn, waitingTurn } from "../chat/resume-turn.js";
import { ownThread } from "../turns/watch-turn.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/** `answer`: the user's reply to a pending `question`; the suspended turn continues where it was, at any depth. */
export const handleAnswer: ChatCommandHandler<"answer"> = async (frame, conn, chat) => {
  const thread = await ownThread(conn, frame.data.thread_id);
  const waiting = await waitingTurn(conn, chat, thread.id);
  const state = waiting?.saved.state;
  if (!waiting || state?.suspension.kind !== "question" || state.toolCallId !== frame.data.tool_call_id) {
    throw new AgentwireError(
      "bad_request",
      "data.tool_call_id: no pending question with that id on this thread",
    );
  }
  await resumeTurn(conn, chat, waiting, async () => frame.data.answer);
};
