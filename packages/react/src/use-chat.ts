import type { ApprovalDecision, Client, ClientError, Turn, TurnView } from "@agentwire-chat/client";
import type { MessageContent, StoredMessage } from "@agentwire-chat/protocol";
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { useAgentwire } from "./agentwire-context.js";
import { type ChatSendOptions, ChatSession, type ChatStatus } from "./chat-session.js";

export type UseChatOptions = {
  /** The thread to show; a turn running on it when the component mounts is resumed. None: a new thread. */
  threadId?: string;
  /** The client, when not the provider's. */
  client?: Client;
};

export type UseChat = {
  threadId: string | undefined;
  messages: StoredMessage[];
  liveTree: TurnView | undefined;
  status: ChatStatus;
  error: ClientError | undefined;
  /** Sends a message; undefined (and `error` set) while a turn runs. */
  send(content: MessageContent, options?: ChatSendOptions): Turn | undefined;
  stop(): Promise<void>;
  answer(text: string, toolCallId?: string): Promise<void>;
  approve(approvalId: string, decision: ApprovalDecision): Promise<void>;
};

/** One chat: the thread's rows, the current turn's live tree and status, and the commands on it. */
export function useChat({ threadId, client: given }: UseChatOptions = {}): UseChat {
  const client = useAgentwire(given);
  // One session per client and thread prop. A session that named a new thread is kept when the
  // app passes that id back in (it then shows the same turn, not a resumed copy).
  const [held, setHeld] = useState(() => ({
    session: new ChatSession(client, threadId),
    forThread: threadId,
  }));
  let current = held.session;
  if (held.session.client !== client || held.forThread !== threadId) {
    const adopt =
      held.session.client === client &&
      threadId !== undefined &&
      held.session.getState().threadId === threadId;
    if (!adopt) current = new ChatSession(client, threadId);
    setHeld({ session: current, forThread: threadId });
  }
  useEffect(() => {
    current.attach();
    return () => current.detach();
  }, [current]);
  const state = useSyncExternalStore(current.subscribe, current.getState, current.getState);
  const send = useCallback(
    (content: MessageContent, options?: ChatSendOptions) => current.send(content, options),
    [current],
  );
  const stop = useCallback(() => current.stop(), [current]);
  const answer = useCallback(
    (text: string, toolCallId?: string) => current.answer(text, toolCallId),
    [current],
  );
  const approve = useCallback(
    (id: string, decision: ApprovalDecision) => current.approve(id, decision),
    [current],
  );
  return { ...state, send, stop, answer, approve };
}
