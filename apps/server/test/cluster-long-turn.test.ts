import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { openStorage } from "@agentwire-chat/storage";
import { until } from "@agentwire-chat/testkit/until";
import { describe, expect, it } from "vitest";
import { STEPS } from "./fixtures/long-turn-provider.js";
import { isDone, seqsOf, useCluster } from "./support/cluster-instances.js";

/**
 * A long turn at a short scale, on two real server processes over one Postgres and one Redis: the turn
 * runs many leases and heartbeats long, streaming all along, and keeps its lease on the instance that
 * runs it; the other instance never takes it over, and shows its progress in the thread list.
 */
const LEASE_MS = 1_000;
const { skip, instance, client, redisUrl, databaseUrl } = useCluster({
  provider: join(import.meta.dirname, "fixtures/long-turn-provider.ts"),
  leaseMs: LEASE_MS,
});

type LeaseSample = { at: number; value: string; pttl: number };

/**
 * Reads the thread's lease over one redis-cli connection (a process per look is too slow on a busy
 * machine): each look is its value ("<instance> <turn>", "" when none) and its TTL in ms.
 */
function leaseReader(threadId: string) {
  const cli = spawn("redis-cli", ["-u", redisUrl()], { stdio: ["pipe", "pipe", "inherit"] });
  const replies: string[] = [];
  let wake: (() => void) | undefined;
  createInterface({ input: cli.stdout }).on("line", (line) => {
    replies.push(line);
    wake?.();
  });
  const line = async () => {
    while (replies.length === 0)
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    return replies.shift() as string;
  };
  const key = `aw:lease:${threadId}`;
  return {
    async look(): Promise<LeaseSample> {
      // Both read in one script, so a look cannot straddle the release at the turn's end (GET's value,
      // then PTTL -2 of the key just deleted); one reply line each: the value ("" when none), the PTTL.
      cli.stdin.write(
        `EVAL "return {redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[1])}" 1 ${key}\n`,
      );
      const value = await line();
      const pttl = Number(await line());
      return { at: Date.now(), value, pttl };
    },
    close: () => cli.kill(),
  };
}

type StateFrame = Extract<ServerFrame, { type: "thread_state" }>;

describe.skipIf(skip)("a long turn across two instances", { timeout: 150_000 }, () => {
  it("runs ten leases long (at a short scale) on A with its lease renewed all along; B never takes it over and lists its progress", async () => {
    const env = { MAX_WALL_CLOCK_MS: "3600000" };
    const a = await instance("a", env);
    const b = await instance("b", env);
    const watcher = await client(b.url);
    watcher.send("subscribe_threads", {});
    const onA = await client(a.url);
    onA.send("chat_message", { content: "a long task" });
    const threadId = ((await onA.until((f) => f.type === "thread")) as { thread_id: string }).thread_id;
    const reader = leaseReader(threadId);
    const samples: LeaseSample[] = [];
    try {
      await until(
        async () => {
          if (onA.frames.some(isDone)) return true;
          samples.push(await reader.look());
          return undefined;
        },
        "the long turn's end",
        { timeoutMs: 60_000, everyMs: 50 },
      );
      // The lease goes with the turn's end.
      await until(async () => (await reader.look()).value === "", "the released lease");
    } finally {
      reader.close();
    }
    // Held by A from start to end, never older than one lease: a lapse would show as no value before
    // the turn released it at its end (only the last looks may come after that), or as B's.
    const released = samples.findIndex((s) => s.value === "");
    const running = released === -1 ? samples : samples.slice(0, released);
    expect(
      samples.slice(running.length).every((s) => s.value === ""),
      JSON.stringify(samples),
    ).toBe(true);
    expect(running.length).toBeGreaterThanOrEqual(5);
    expect(new Set(running.map((s) => s.value.split(" ")[0]))).toEqual(new Set(["a"]));
    expect(new Set(running.map((s) => s.value)).size).toBe(1);
    for (const s of running) expect(s.pttl).toBeGreaterThan(0);
    for (const s of running) expect(s.pttl).toBeLessThanOrEqual(LEASE_MS);
    // Still held many leases after the first look: it was renewed, not just taken once.
    const span = (running.at(-1)?.at ?? 0) - (running[0]?.at ?? 0);
    expect(span).toBeGreaterThan(5 * LEASE_MS);

    // One turn, run by A alone: contiguous seqs, one done, no continuation, every step streamed.
    const frames = onA.frames;
    const seqs = seqsOf(frames);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(frames.filter(isDone)).toHaveLength(1);
    expect(frames.some((f) => f.type === "agent_state" && f.state === "resumed")).toBe(false);
    expect(frames.filter((f) => f.type === "progress_update")).toHaveLength(STEPS);
    expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
      message: { role: "assistant", content: "Finished the long task.", status: "complete" },
    });
    const storage = await openStorage({ databaseUrl: databaseUrl(), databasePath: "unused" });
    try {
      const turn = await storage.repos.turns.latest("local", threadId);
      expect(turn).toMatchObject({ status: "complete", recoveries: 0 });
    } finally {
      await storage.close();
    }

    // B's subscriber saw the turn's progress lines, relayed from A, then the end.
    await watcher.until((f) => f.type === "thread_state" && f.state === "idle");
    const states = watcher.frames.filter((f): f is StateFrame => f.type === "thread_state");
    expect(states.filter((f) => f.progress !== undefined).map((f) => f.progress)).toEqual(
      Array.from({ length: STEPS }, (_, i) => `Step ${i + 1} of ${STEPS}`),
    );
    expect(states.at(-1)).toEqual({ type: "thread_state", thread_id: threadId, state: "idle" });
  });
});
