import type { Connection } from "./connection.js";

/** Every open connection, by user: shutdown, heartbeats and per-user fan-out (the per-user cap is the ConnectionQuota's). */
export class ConnectionRegistry {
  private readonly byUser = new Map<string, Set<Connection>>();

  /** Adds a connection. */
  add(connection: Connection): void {
    let set = this.byUser.get(connection.userId);
    if (!set) {
      set = new Set();
      this.byUser.set(connection.userId, set);
    }
    set.add(connection);
  }

  /** Removes a connection (idempotent). */
  remove(connection: Connection): void {
    const set = this.byUser.get(connection.userId);
    if (!set) return;
    set.delete(connection);
    if (set.size === 0) this.byUser.delete(connection.userId);
  }

  /** The user's open connections. */
  forUser(userId: string): Connection[] {
    return [...(this.byUser.get(userId) ?? [])];
  }

  /** Every open connection. */
  all(): Connection[] {
    return [...this.byUser.values()].flatMap((set) => [...set]);
  }

  get size(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    return n;
  }
}
