import type { ConnectionState } from "@agentwire-chat/client";
import type { MemoryEntry } from "@agentwire-chat/protocol";
import { useEffect, useRef } from "preact/hooks";
import { questionText } from "../state/asking-subtask.js";
import { lastTurn, type ThreadView } from "../state/thread-view.js";
import { AgentStatus } from "./agent-status.js";
import { Composer } from "./composer.js";
import { ConnectionLost } from "./connection-lost.js";
import { MemoryPanel } from "./memory-panel.js";
import { NoProviderNotice } from "./no-provider-notice.js";
import { QueueChips } from "./queue-chips.js";
import { ScratchpadPanel } from "./scratchpad-panel.js";
import { ThreadBar } from "./thread-bar.js";
import { TurnBlock } from "./turn-view.js";

/** A thread's transcript, the agent's status and the composer; the scratchpad panel beside them. */
export function ChatView({
  view,
  link,
  noProvider,
  empty,
  scratchpadOpen,
  memoryOpen,
  memory,
}: {
  view: ThreadView | undefined;
  /** The connection: while it is down, the page says so instead of a live-looking status. */
  link: ConnectionState;
  scratchpadOpen: boolean;
  memoryOpen: boolean;
  memory: MemoryEntry[] | null;
  /** The server said it has no provider: say how to configure one instead of letting a message fail. */
  noProvider: boolean;
  empty: string;
}) {
  const log = useRef<HTMLDivElement>(null);
  const turns = view?.turns ?? [];
  const current = view ? lastTurn(view) : undefined;
  const running = current?.running ?? false;
  const connected = link.status === "open";
  const waiting = running ? current?.questions.find((q) => !q.resolved) : undefined;
  // The turn waits on the user (a question or an approval): the queued messages wait with it.
  const waitingOnUser =
    running &&
    (waiting !== undefined ||
      (current?.approvals.some((a) => !a.resolved) ?? false) ||
      current?.state === "waiting_user");
  // The composer answers the first open question: it names the subtask that asks, as its card does.
  const question = waiting && {
    ...waiting,
    question: questionText(current, waiting.toolCallId, waiting.question),
  };

  // Follow the stream while the reader is at the bottom; leave them alone when they scrolled up.
  const atBottom = useRef(true);
  useEffect(() => {
    const el = log.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  });

  return (
    <div class={`chat-area${scratchpadOpen || memoryOpen ? " with-panel" : ""}`}>
      <div class="chat">
        <ThreadBar view={view} scratchpadOpen={scratchpadOpen} memoryOpen={memoryOpen} />
        <div
          class="log"
          ref={log}
          role="log"
          aria-label="Conversation"
          onScroll={(e) => {
            const el = e.currentTarget;
            atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
          }}
        >
          {turns.length === 0 ? (
            <p class="empty">{empty}</p>
          ) : (
            turns.map((t, i) => (
              <TurnBlock
                key={t.key}
                turn={t}
                last={i === turns.length - 1}
                siblings={view?.siblings}
                busy={running}
              />
            ))
          )}
        </div>
        {noProvider && <NoProviderNotice />}
        {connected ? <AgentStatus turn={current} /> : <ConnectionLost link={link} running={running} />}
        <QueueChips queued={view?.queued ?? []} sending={view?.sending ?? []} waitingOnUser={waitingOnUser} />
        <Composer
          running={running}
          canStop={running && view?.threadId != null && connected}
          connected={connected}
          question={question}
          unavailable={noProvider ? "no provider" : undefined}
        />
      </div>
      {scratchpadOpen && <ScratchpadPanel items={view?.scratchpad ?? []} />}
      {memoryOpen && <MemoryPanel entries={memory} />}
    </div>
  );
}
