import type {
  ApprovalDecision,
  Client,
  ClientError,
  QueuedMessageView,
  Turn,
  TurnView,
} from "@agentwire-chat/client";
import type { MessageContent, StoredMessage } from "@agentwire-chat/protocol";
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { useAgentwire } from "./agentwire-context.js";
import type { Branches } from "./branches.js";
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
  /** Messages waiting for the running turn (sent while it ran), next first. */
  queued: QueuedMessageView[];
  /** Per shown message with alternatives: its siblings (oldest first) and which one is shown. */
  branches: Branches;
  /** Sends a message; while a turn runs it waits in the queue (`onBusy`, default queue) and runs next. */
  send(content: MessageContent, options?: ChatSendOptions): Turn | undefined;
  /** Answers a user message again (default: the last), as a new branch; undefined (and `error`) while a turn runs. */
  regenerate(messageId?: string): Turn | undefined;
  /** Sends `content` in place of the user message `messageId`, as a new branch after its parent. */
  edit(messageId: string, content: MessageContent): Turn | undefined;
  /** Shows the branch through `messageId` (one of `branches[id].ids`) and loads its rows. */
  selectBranch(messageId: string): Promise<void>;
  /** Takes a queued message back before it starts. */
  cancelQueued(messageId: string): Promise<void>;
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
  const regenerate = useCallback((messageId?: string) => current.regenerate(messageId), [current]);
  const edit = useCallback(
    (messageId: string, content: MessageContent) => current.edit(messageId, content),
    [current],
  );
  const selectBranch = useCallback((messageId: string) => current.selectBranch(messageId), [current]);
  const cancelQueued = useCallback((messageId: string) => current.cancelQueued(messageId), [current]);
  return { ...state, send, stop, answer, approve, regenerate, edit, selectBranch, cancelQueued };
}
