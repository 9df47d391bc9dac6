import type { ThreadListing } from "@agentwire-chat/protocol";

/** Per user: when each thread was last looked at (ISO), and when the list was first shown. */
type Seen = { threads: Record<string, string>; since?: string };

/**
 * What this user has seen of their threads, in this browser's localStorage (one entry per token,
 * so two users of one browser keep their own marks), like the CLI's `agentwire threads` keeps it.
 * Losing it (private mode, a cleared storage) loses only the marks.
 */
export class SeenThreads {
  private readonly key: string;

  constructor(
    token: string | undefined,
    private readonly storage: Storage | undefined = globalThis.localStorage,
  ) {
    this.key = `agentwire.seen.${userKey(token)}`;
  }

  /** Notes the thread as looked at, as of `at` (ISO). */
  look(threadId: string, at: string): void {
    const seen = this.read();
    const before = seen.threads[threadId];
    if (before !== undefined && before >= at) return;
    seen.threads[threadId] = at;
    this.write(seen);
  }

  /**
   * Whether the thread had activity since the user last looked at it: an answer finished (its
   * `updated_at` moved on) or a question waits. A thread never opened here counts from when this
   * browser first listed the user's threads, so a first visit does not mark everything.
   */
  isNew(thread: ThreadListing, now: string): boolean {
    const seen = this.read();
    if (seen.since === undefined) {
      seen.since = now;
      this.write(seen);
    }
    if (thread.state === "running") return false;
    const at = seen.threads[thread.id];
    if (thread.state === "waiting_user" && at === undefined) return true;
    return thread.updated_at > (at ?? seen.since ?? now);
  }

  private read(): Seen {
    try {
      const parsed = JSON.parse(this.storage?.getItem(this.key) ?? "{}") as Partial<Seen>;
      return { threads: parsed.threads ?? {}, ...(parsed.since !== undefined && { since: parsed.since }) };
    } catch {
      return { threads: {} };
    }
  }

  private write(seen: Seen): void {
    try {
      this.storage?.setItem(this.key, JSON.stringify(seen));
    } catch {
      // A full quota or a disabled storage loses only the marks.
    }
  }
}

/** A short, stable key for the user behind a token (the token itself is not written twice). */
function userKey(token: string | undefined): string {
  if (!token) return "local";
  let hash = 5381;
  for (let i = 0; i < token.length; i++) hash = ((hash * 33) ^ token.charCodeAt(i)) >>> 0;
  return hash.toString(36);
}
