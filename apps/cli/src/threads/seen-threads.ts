import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** Per server: when each thread was last looked at (its `updated_at` then), and when the list was. */
type SeenFile = Record<string, { threads: Record<string, string>; listedAt?: string }>;

/**
 * What this user has seen of each server's threads, in a small JSON file
 * (`$AGENTWIRE_STATE_DIR`, else `$XDG_STATE_HOME/agentwire`, else `~/.local/state/agentwire`), so
 * `agentwire threads` can mark the threads with activity since. Losing it loses only the marks.
 */
export class SeenThreads {
  private readonly path: string;

  constructor(
    env: Record<string, string | undefined>,
    private readonly server: string,
  ) {
    const dir =
      env.AGENTWIRE_STATE_DIR ||
      join(env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state"), "agentwire");
    this.path = join(dir, "seen-threads.json");
  }

  /** When the thread was last looked at (its `updated_at` then), if ever. */
  seenAt(threadId: string): string | undefined {
    return this.read()[this.server]?.threads[threadId];
  }

  /** When the thread list was last shown, if ever. */
  listedAt(): string | undefined {
    return this.read()[this.server]?.listedAt;
  }

  /** Notes threads as looked at, as of their `updated_at`, and (with `listedAt`) the list as shown. */
  note(seen: Record<string, string>, listedAt?: string): void {
    const all = this.read();
    const mine = all[this.server] ?? { threads: {} };
    Object.assign(mine.threads, seen);
    if (listedAt) mine.listedAt = listedAt;
    all[this.server] = mine;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      // Written whole then renamed: two CLIs at once never leave half a file.
      const temp = `${this.path}.${process.pid}`;
      writeFileSync(temp, JSON.stringify(all));
      renameSync(temp, this.path);
    } catch {
      // A read-only home only loses the marks.
    }
  }

  private read(): SeenFile {
    try {
      return JSON.parse(readFileSync(this.path, "utf8")) as SeenFile;
    } catch {
      return {};
    }
  }
}
