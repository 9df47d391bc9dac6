import type { ThreadSummary } from "@agentwire/protocol";

/** The user's threads, newest first; plain links so the browser's history and keyboard just work. */
export function ThreadList({ threads, current }: { threads: ThreadSummary[]; current?: string }) {
  return (
    <nav class="threads" aria-label="Threads">
      <a class="new-chat" href="#/">
        + New chat
      </a>
      <a href="#/editor">Editor demo</a>
      <ul>
        {threads.map((t) => (
          <li key={t.id}>
            <a href={`#/t/${encodeURIComponent(t.id)}`} aria-current={t.id === current ? "page" : undefined}>
              {t.title || "Untitled"}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
