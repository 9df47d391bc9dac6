import { randomUUID } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "./open-database.js";
import { apiTokens } from "./schema/index.js";

export interface ApiTokenRow {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/**
 * API tokens, by hash. The one lookup not scoped by user is `findActiveByHash`: it is how a user is found.
 */
export class ApiTokensRepo {
  constructor(private readonly db: Db) {}

  /** Stores a token hash for a user (who must exist) and returns the new token id. */
  create(userId: string, tokenHash: string, now = Date.now()): string {
    const id = randomUUID();
    this.db.insert(apiTokens).values({ id, userId, tokenHash, createdAt: now }).run();
    return id;
  }

  /** The unrevoked token with this hash, if any. */
  findActiveByHash(tokenHash: string): ApiTokenRow | undefined {
    return this.db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
      .get();
  }

  /** Records that a token was used (for `token list`). */
  touch(id: string, now = Date.now()): void {
    this.db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, id)).run();
  }

  /** Every token of one user, or of everyone (operator CLI), oldest first; hashes included. */
  list(userId?: string): ApiTokenRow[] {
    const query = this.db.select().from(apiTokens);
    const scoped = userId === undefined ? query : query.where(eq(apiTokens.userId, userId));
    return scoped.orderBy(asc(apiTokens.createdAt)).all();
  }

  /** Revokes a token by id; false when no unrevoked token has that id. */
  revoke(id: string, now = Date.now()): boolean {
    const result = this.db
      .update(apiTokens)
      .set({ revokedAt: now })
      .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
      .run();
    return result.changes > 0;
  }
}
