/** Per-user key/value memory. The server implements it over SQLite; every call is scoped by user id. */
export interface MemoryStore {
  /** The user's keys, sorted. */
  list(userId: string): Promise<string[]>;
  /** The value under `key`, or undefined. */
  get(userId: string, key: string): Promise<string | undefined>;
  /** Creates or replaces the value under `key`. */
  set(userId: string, key: string, value: string): Promise<void>;
}

/** A MemoryStore in a Map, for tests and single-process use. */
export class InMemoryMemoryStore implements MemoryStore {
  readonly #users = new Map<string, Map<string, string>>();

  async list(userId: string): Promise<string[]> {
    return [...(this.#users.get(userId)?.keys() ?? [])].sort();
  }

  async get(userId: string, key: string): Promise<string | undefined> {
    return this.#users.get(userId)?.get(key);
  }

  async set(userId: string, key: string, value: string): Promise<void> {
    let entries = this.#users.get(userId);
    if (!entries) {
      entries = new Map();
      this.#users.set(userId, entries);
    }
    entries.set(key, value);
  }
}
