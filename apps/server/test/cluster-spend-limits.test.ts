import { fileURLToPath } from "node:url";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { isDone, useCluster } from "./support/cluster-instances.js";

/**
 * Issue 39 on two real server processes over one Postgres and one Redis: the daily spend limit holds
 * across instances because the ledger it reads is the shared database. A turn on A spends past the
 * limit (and ends `budget_exceeded spend_limit`); the next message, sent to B, is refused
 * `spend_limit` with nothing stored.
 */
const provider = fileURLToPath(new URL("./support/priced-provider.ts", import.meta.url));
const { skip, instance, client } = useCluster({ provider, leaseMs: 600 });

const env = { SPEND_LIMIT_USER_DAILY_USD: "0.2", MAX_TOTAL_TOKENS: "100000000" };

async function threadCount(url: string): Promise<number> {
  const body = (await (await fetch(`${url}/api/threads`)).json()) as { threads: unknown[] };
  return body.threads.length;
}

describe.skipIf(skip)("spend limits across two instances", { timeout: 60_000 }, () => {
  it("spent on A, refused on B before anything is stored", async () => {
    const a = await instance("a", env);
    const b = await instance("b", env);
    const onA = await client(a.url);
    onA.send("chat_message", { content: "spend", model: "gpt-4o-mini" });
    await onA.until(isDone);
    expect(onA.frames.find((f) => f.type === "budget_exceeded")).toMatchObject({
      reason: "spend_limit",
      limit: 0.2,
      observed: 0.3,
    });
    expect(await threadCount(b.url)).toBe(1);

    const onB = await client(b.url);
    onB.send("chat_message", { content: "more", model: "gpt-4o-mini" }, "on-b");
    const refused = (await onB.until((f) => f.type === "error" && f.request_id === "on-b")) as Extract<
      ServerFrame,
      { type: "error" }
    >;
    expect(refused.code).toBe("spend_limit");
    expect(refused.message).toMatch(
      /^daily spend limit of \$0\.20 reached \(\$0\.30 spent\); resets at \d{4}-\d\d-\d\dT00:00:00Z$/,
    );
    expect(onB.frames.some((f) => f.type === "thread" || f.type === "turn_started")).toBe(false);
    expect(await threadCount(a.url)).toBe(1);
  });
});
