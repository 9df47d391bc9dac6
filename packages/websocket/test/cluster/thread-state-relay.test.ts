import { RedisThreadStateRelay } from "@agentwire-chat/cluster";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ThreadStates } from "../../src/chat/thread-states/thread-states.js";

/** Thread live states across two instances on one real Redis: a change on A reaches B's sockets. */
const skip = skipMissingService(redisMissing());
let server: TestRedis | undefined;
const relays: RedisThreadStateRelay[] = [];

beforeAll(async () => {
  if (skip) return;
  server = await startRedis();
});
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await server?.stop();
});

/** Instances of one test share a channel prefix; each test its own. */
let prefix = "t0:";

async function instance(name: string): Promise<ThreadStates> {
  const relay = await RedisThreadStateRelay.connect({ url: server!.url, instanceId: name, prefix });
  relays.push(relay);
  const states = new ThreadStates();
  await states.relayVia(relay);
  return states;
}

/** A subscribed socket of `userId` that records what it is sent. */
function socket(states: ThreadStates, userId: string, connectionId: string) {
  const frames: ServerFrame[] = [];
  const closed = new AbortController();
  const waiters: (() => void)[] = [];
  const subscribed = states.subscribe(
    {
      connectionId,
      userId,
      signal: closed.signal,
      send: (f) => {
        frames.push(f);
        for (const w of waiters.splice(0)) w();
        return true;
      },
    },
    async () => [],
  );
  /** Resolves once `n` frames arrived. */
  const received = async (n: number) => {
    while (frames.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    return frames;
  };
  return { frames, subscribed, received, close: () => closed.abort() };
}

describe.skipIf(skip)("thread_state across instances (Redis pub/sub)", () => {
  it("a change on A reaches the user's sockets on A once and on B; another user's socket on B gets nothing", async () => {
    prefix = `t${Date.now()}:`;
    const [a, b] = [await instance("a"), await instance("b")];
    const onA = socket(a, "alice", "c1");
    const onB = socket(b, "alice", "c2");
    const bobOnB = socket(b, "bob", "c3");
    await Promise.all([onA.subscribed, onB.subscribed, bobOnB.subscribed]);

    a.changed({ userId: "alice", threadId: "t1", state: "waiting_user", question: "Which?" });
    a.changed({ userId: "alice", threadId: "t1", state: "idle" });
    expect(await onB.received(2)).toEqual([
      { type: "thread_state", thread_id: "t1", state: "waiting_on_user", question: "Which?" },
      { type: "thread_state", thread_id: "t1", state: "idle" },
    ]);
    // Bob's socket and A's own echo: a later change of Bob's, once seen on B, proves nothing else came first.
    a.changed({ userId: "bob", threadId: "t9", state: "running" });
    expect(await bobOnB.received(1)).toEqual([{ type: "thread_state", thread_id: "t9", state: "running" }]);
    expect(onA.frames.map((f) => (f.type === "thread_state" ? f.state : f.type))).toEqual([
      "waiting_on_user",
      "idle",
    ]);
  });
});
