import type { ThreadListing } from "@agentwire-chat/protocol";
import { useEffect, useMemo, useState } from "preact/hooks";
import { loadSettings } from "../net/settings.js";
import { SeenThreads } from "../state/seen-threads.js";
import { exactTime, relativeTime } from "./relative-time.js";

/**
 * The user's threads, newest first; plain links so the browser's history and keyboard just work.
 * Each shows its title (the server takes it from the first message) and when it was last active,
 * so two threads that began alike are still told apart.
 */
export function ThreadList({ threads, current }: { threads: ThreadListing[]; current?: string }) {
  const now = useMinuteClock();
  const seen = useMemo(() => new SeenThreads(loadSettings().token), []);
  const open = threads.find((t) => t.id === current);
  // The open thread is looked at: whatever it did up to now is seen, and so is what it does while open.
  const lookedAt = open ? maxIso(open.updated_at, new Date().toISOString()) : undefined;
  if (open && lookedAt) seen.look(open.id, lookedAt);
  return (
    <nav class="threads" aria-label="Threads">
      <a class="new-chat" href="#/">
        + New chat
      </a>
      <a class="editor-link" href="#/editor">
        Editor demo
      </a>
      <ul>
        {threads.map((t) => (
          <li key={t.id}>
            <a
              href={`#/t/${encodeURIComponent(t.id)}`}
              aria-current={t.id === current ? "page" : undefined}
              title={`${t.title || "Untitled"} (${exactTime(t.updated_at)})`}
            >
              {/* The mark sits on the title's row, not on a row of its own. */}
              <span class="thread-head">
                {t.id !== current && seen.isNew(t, now.toISOString()) && (
                  <span
                    class="thread-new"
                    role="img"
                    aria-label="new activity"
                    title="New since you last looked"
                  >
                    •
                  </span>
                )}
                <span class="thread-title">{t.title || "Untitled"}</span>
              </span>
              <ThreadState thread={t} />
              <time class="thread-time" dateTime={t.updated_at}>
                {relativeTime(t.updated_at, now)}
              </time>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * Work live on a thread: a turn running, or a question waiting for you. Loaded with the list and
 * kept current by `thread_state` frames, so a thread busy in another tab shows it here too.
 */
function ThreadState({ thread }: { thread: ThreadListing }) {
  if (thread.state === "running") return <span class="thread-state running">running</span>;
  if (thread.state === "waiting_user")
    return (
      <>
        <span class="thread-state waiting" title={thread.question}>
          waiting for you
        </span>
        {thread.question && <span class="thread-question">{thread.question}</span>}
      </>
    );
  return null;
}

/** The current time, refreshed every minute so "5 min ago" does not go stale on an idle page. */
function useMinuteClock(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

const maxIso = (a: string, b: string) => (a > b ? a : b);
