/**
 * Counts a user's open sockets against the per-user cap. One process alone counts in memory
 * (`LocalConnectionQuota`); instances sharing Redis count in Redis (`RedisConnectionQuota`), so the
 * cap holds across all of them.
 */
export interface ConnectionQuota {
  /**
   * Counts the connection for the user, atomically with the check: false (nothing counted) when the
   * user already has `max` open. Rejects when the count cannot be read (e.g. Redis unreachable).
   */
  acquire(userId: string, connectionId: string, max: number): Promise<boolean>;
  /** Stops counting the connection (idempotent). */
  release(userId: string, connectionId: string): Promise<void>;
}

/** The cap within one process: a set of connection ids per user. */
export class LocalConnectionQuota implements ConnectionQuota {
  private readonly byUser = new Map<string, Set<string>>();

  async acquire(userId: string, connectionId: string, max: number): Promise<boolean> {
    let held = this.byUser.get(userId);
    if (held?.has(connectionId)) return true;
    if ((held?.size ?? 0) >= max) return false;
    if (!held) {
      held = new Set();
      this.byUser.set(userId, held);
    }
    held.add(connectionId);
    return true;
  }

  async release(userId: string, connectionId: string): Promise<void> {
    const held = this.byUser.get(userId);
    if (!held) return;
    held.delete(connectionId);
    if (held.size === 0) this.byUser.delete(userId);
  }
}
