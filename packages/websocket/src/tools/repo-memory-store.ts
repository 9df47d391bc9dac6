import type { MemoryStore } from "@agentwire-chat/agents";
import type { MemoriesRepo } from "@agentwire-chat/storage";

/** The agents' MemoryStore over the memories repository (either dialect); every call is scoped by the user id it is given. */
export class RepoMemoryStore implements MemoryStore {
  constructor(private readonly repo: MemoriesRepo) {}

  async list(userId: string): Promise<string[]> {
    return this.repo.keys(userId);
  }

  async get(userId: string, key: string): Promise<string | undefined> {
    return this.repo.get(userId, key);
  }

  async set(userId: string, key: string, value: string): Promise<void> {
    await this.repo.set(userId, key, value);
  }
}
