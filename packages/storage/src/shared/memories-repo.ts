import { randomUUID } from "node:crypto";
import { and, asc, count, eq } from "drizzle-orm";
import type { MemoriesRepo } from "../contract/repositories.js";
import type { Dialect } from "./dialect.js";

/** Per-user key/value memory rows; every query is scoped by the user id, never by a key alone. */
export class SharedMemoriesRepo implements MemoriesRepo {
  constructor(private readonly dialect: Dialect) {}

  /** The user's keys, sorted by bytes (as SQLite's BINARY collation) on either dialect. */
  async keys(userId: string): Promise<string[]> {
    const { memories } = this.dialect.tables;
    const rows = await this.dialect.all<{ key: string }>({
      table: memories,
      fields: { key: memories.key },
      where: eq(memories.userId, userId),
      orderBy: [asc(this.dialect.bytewise(memories.key))],
    });
    return rows.map((r) => r.key);
  }

  /** The value under the user's key, or undefined. */
  async get(userId: string, key: string): Promise<string | undefined> {
    const { memories } = this.dialect.tables;
    const row = await this.dialect.first<{ value: string }>({
      table: memories,
      fields: { value: memories.value },
      where: and(eq(memories.userId, userId), eq(memories.key, key)),
    });
    return row?.value;
  }

  /** Creates or replaces the value under the user's key (one statement: an upsert on (user_id, key)). */
  async set(userId: string, key: string, value: string, now = Date.now()): Promise<void> {
    const { memories } = this.dialect.tables;
    await this.dialect.insert(
      memories,
      { id: randomUUID(), userId, key, value, createdAt: now, updatedAt: now },
      { target: [memories.userId, memories.key], set: { value, updatedAt: now } },
    );
  }

  /** Deletes the user's key; false when there was none. */
  async delete(userId: string, key: string): Promise<boolean> {
    const { memories } = this.dialect.tables;
    return (await this.dialect.delete(memories, and(eq(memories.userId, userId), eq(memories.key, key)))) > 0;
  }

  /** How many keys the user has. */
  async count(userId: string): Promise<number> {
    const { memories } = this.dialect.tables;
    // drizzle's count() casts Postgres's bigint count to a number.
    const row = await this.dialect.first<{ n: number }>({
      table: memories,
      fields: { n: count() },
      where: eq(memories.userId, userId),
    });
    return row?.n ?? 0;
  }

  /** Every key of the user with its value, sorted by key (in byte order, as `keys`). */
  async list(userId: string): Promise<{ key: string; value: string; updatedAt: number }[]> {
    const { memories } = this.dialect.tables;
    return this.dialect.all({
      table: memories,
      fields: { key: memories.key, value: memories.value, updatedAt: memories.updatedAt },
      where: eq(memories.userId, userId),
      orderBy: [asc(this.dialect.bytewise(memories.key))],
    });
  }

  /** Deletes every key of the user; how many there were. */
  async clear(userId: string): Promise<number> {
    const { memories } = this.dialect.tables;
    return this.dialect.delete(memories, eq(memories.userId, userId));
  }
}
