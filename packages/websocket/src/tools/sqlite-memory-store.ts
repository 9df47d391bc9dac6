import type { MemoryStore } from "@agentwire/agents";
import type { MemoriesRepo } from "../db/memories-repo.js";

/** The agents' MemoryStore over the `memories` table; every call is scoped by the user id it is given. */
export class SqliteMemoryStore implements MemoryStore {
  constructor(private readonly repo: MemoriesRepo) {}

  async list(userId: string): Promise<string[]> {
    return this.repo.keys(userId);
  }

  async get(userId: string, key: string): Promise<string | undefined> {
    return this.repo.get(userId, key);
  }

  async set(userId: string, key: string, value: string): Promise<void> {
    this.repo.set(userId, key, value);
  }
}
