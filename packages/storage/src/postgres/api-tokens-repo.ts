import { randomUUID } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { ApiTokenRow, ApiTokensRepo } from "../contract/repositories.js";
import type { PgDb } from "./open-postgres.js";
import { apiTokens } from "./schema/index.js";

/**
 * API tokens, by hash. The one lookup not scoped by user is `findActiveByHash`: it is how a user is found.
 */
export class PgApiTokensRepo implements ApiTokensRepo {
  constructor(private readonly db: PgDb) {}

  /** Stores a token hash for a user (who must exist) and returns the new token id. */
  async create(userId: string, tokenHash: string, now = Date.now()): Promise<string> {
    const id = randomUUID();
    await this.db.insert(apiTokens).values({ id, userId, tokenHash, createdAt: now });
    return id;
  }

  /** The unrevoked token with this hash, if any. */
  async findActiveByHash(tokenHash: string): Promise<ApiTokenRow | undefined> {
    const rows = await this.db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
      .limit(1);
    return rows[0];
  }

  /** Records that a token was used (for `token list`). */
  async touch(id: string, now = Date.now()): Promise<void> {
    await this.db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, id));
  }

  /** Every token of one user, or of everyone (operator CLI), oldest first; hashes included. */
  async list(userId?: string): Promise<ApiTokenRow[]> {
    const query = this.db.select().from(apiTokens);
    const scoped = userId === undefined ? query : query.where(eq(apiTokens.userId, userId));
    return scoped.orderBy(asc(apiTokens.createdAt));
  }

  /** Revokes a token by id; false when no unrevoked token has that id. */
  async revoke(id: string, now = Date.now()): Promise<boolean> {
    const result = await this.db
      .update(apiTokens)
      .set({ revokedAt: now })
      .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)));
    return (result.rowCount ?? 0) > 0;
  }
}
