import type { ApiTokensRepo } from "@agentwire-chat/storage";
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
  // Keyed by hash, as the api_tokens table is: a lookup costs the same with 1 token or 10,000 (every
  // entry was compared on each connection before, ~3 ms per socket with 2,000 static tokens). What a
  // lookup's timing could tell is about the SHA-256 of the presented token, which gives nothing away.
  const staticTokens = new Map<string, StaticToken>();
  // The first entry of a token listed twice wins, as it did.
  for (const t of auth.staticTokens) if (!staticTokens.has(t.tokenHash)) staticTokens.set(t.tokenHash, t);
  return async (token) => {
    if (token === undefined || token.length === 0 || token.length > 512) return undefined;
    const hash = hashApiToken(token);
    const entry = staticTokens.get(hash);
    if (entry) return entry.userId;
    const row = await tokens.findActiveByHash(hash);
    if (!row || !hashesEqual(row.tokenHash, hash)) return undefined;
    await tokens.touch(row.id);
    return row.userId;
  };
}
