import { randomUUID } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { ApiTokenRow, ApiTokensRepo } from "../contract/repositories.js";
import type { Dialect } from "./dialect.js";

/**
 * API tokens, by hash. The one lookup not scoped by user is `findActiveByHash`: it is how a user is found.
 */
export class SharedApiTokensRepo implements ApiTokensRepo {
  constructor(private readonly dialect: Dialect) {}

  /** Stores a token hash for a user (who must exist) and returns the new token id. */
  async create(userId: string, tokenHash: string, now = Date.now()): Promise<string> {
    const id = randomUUID();
    await this.dialect.insert(this.dialect.tables.apiTokens, { id, userId, tokenHash, createdAt: now });
    return id;
  }

  /** The unrevoked token with this hash, if any. */
  async findActiveByHash(tokenHash: string): Promise<ApiTokenRow | undefined> {
    const { apiTokens } = this.dialect.tables;
    return this.dialect.first<ApiTokenRow>({
      table: apiTokens,
      where: and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)),
    });
  }

  /** Records that a token was used (for `token list`). */
  async touch(id: string, now = Date.now()): Promise<void> {
    const { apiTokens } = this.dialect.tables;
    await this.dialect.update(apiTokens, { lastUsedAt: now }, eq(apiTokens.id, id));
  }

  /** Every token of one user, or of everyone (operator CLI), oldest first; hashes included. */
  async list(userId?: string): Promise<ApiTokenRow[]> {
    const { apiTokens } = this.dialect.tables;
    return this.dialect.all<ApiTokenRow>({
      table: apiTokens,
      where: userId === undefined ? undefined : eq(apiTokens.userId, userId),
      orderBy: [asc(apiTokens.createdAt)],
    });
  }

  /** Revokes a token by id; false when no unrevoked token has that id. */
  async revoke(id: string, now = Date.now()): Promise<boolean> {
    const { apiTokens } = this.dialect.tables;
    const changed = await this.dialect.update(
      apiTokens,
      { revokedAt: now },
      and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)),
    );
    return changed > 0;
  }
}
