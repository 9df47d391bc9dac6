import type { ApiTokensRepo } from "@agentwire/storage";
import { hashApiToken, hashesEqual } from "./api-token.js";

/** The user every connection is when AUTH_MODE=none. */
export const LOCAL_USER_ID = "local";

/** A token from AUTH_TOKENS, already hashed at start-up. */
export interface StaticToken {
  userId: string;
  tokenHash: string;
}

export type AuthSettings = { mode: "none" } | { mode: "token"; staticTokens: readonly StaticToken[] };

/** Finds the user a presented token belongs to. */
export type UserResolver = (token: string | undefined) => Promise<string | undefined>;

/** Builds the resolver: `local` for AUTH_MODE=none; otherwise static tokens, then the api_tokens table. */
export function createUserResolver(auth: AuthSettings, tokens: ApiTokensRepo): UserResolver {
  if (auth.mode === "none") return async () => LOCAL_USER_ID;
  const staticTokens = [...auth.staticTokens];
  return async (token) => {
    if (token === undefined || token.length === 0 || token.length > 512) return undefined;
    const hash = hashApiToken(token);
    // Every static entry is compared, match or not, so timing does not tell which entry matched.
    let userId: string | undefined;
    for (const entry of staticTokens) {
      if (hashesEqual(entry.tokenHash, hash) && userId === undefined) userId = entry.userId;
    }
    if (userId !== undefined) return userId;
    const row = await tokens.findActiveByHash(hash);
    if (!row || !hashesEqual(row.tokenHash, hash)) return undefined;
    await tokens.touch(row.id);
    return row.userId;
  };
}
