import { RedisWorkflowUpdateRelay } from "@agentwire-chat/cluster";
import type { ServerFrame } from "@agentwire-chat/protocol";
import type { WorkflowRow } from "@agentwire-chat/storage";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OpenWorkflows } from "../../src/index.js";

/** Workflow saves across two instances on one real Redis: a save on A redraws the user's editors on B. */
const skip = skipMissingService(redisMissing());
let server: TestRedis | undefined;
const relays: RedisWorkflowUpdateRelay[] = [];

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

async function instance(name: string, prefix: string): Promise<OpenWorkflows> {
  const relay = await RedisWorkflowUpdateRelay.connect({ url: server!.url, instanceId: name, prefix });
  relays.push(relay);
  const open = new OpenWorkflows();
  await open.relayVia(relay);
  return open;
}

/** A socket of `userId` with `workflowId` open in its editor, recording what it is sent. */
function editor(open: OpenWorkflows, userId: string, connectionId: string, workflowId: string) {
  const frames: ServerFrame[] = [];
  const waiters: (() => void)[] = [];
  open.open(
    {
      connectionId,
      userId,
      signal: new AbortController().signal,
      send: (f) => {
        frames.push(f);
        for (const w of waiters.splice(0)) w();
        return true;
      },
    },
    workflowId,
  );
  /** Resolves once `n` frames arrived. */
  const received = async (n: number) => {
    while (frames.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    return frames;
  };
  return { frames, received };
}

const row = (id: string, name: string, at: number): WorkflowRow =>
  ({
    id,
    userId: "alice",
    name,
    graph: { nodes: [], edges: [] },
    createdAt: at,
    updatedAt: at,
  }) as WorkflowRow;

describe.skipIf(skip)("workflow_updated across instances (Redis pub/sub)", () => {
  it("a save on A reaches the user's editors of that workflow on A once and on B; nobody else", async () => {
    const prefix = `w${Date.now()}:`;
    const [a, b] = [await instance("a", prefix), await instance("b", prefix)];
    const onA = editor(a, "alice", "c1", "wf1");
    const onB = editor(b, "alice", "c2", "wf1");
    const otherWorkflowOnB = editor(b, "alice", "c3", "wf2");
    const bobOnB = editor(b, "bob", "c4", "wf1");

    a.saved("alice", row("wf1", "First", 1_000));
    expect(await onB.received(1)).toEqual([
      {
        type: "workflow_updated",
        workflow: {
          id: "wf1",
          name: "First",
          graph: { nodes: [], edges: [] },
          updated_at: "1970-01-01T00:00:01.000Z",
        },
      },
    ]);
    // A later save for the wf2 editor, once seen on B, proves nothing else was delivered there first.
    a.saved("alice", row("wf2", "Second", 2_000));
    await otherWorkflowOnB.received(1);
    expect(otherWorkflowOnB.frames).toHaveLength(1);
    expect(bobOnB.frames).toEqual([]);
    expect(onB.frames).toHaveLength(1);
    // A's own save came back on the channel and was skipped: delivered once.
    expect(onA.frames).toHaveLength(1);
  });

  it("a new workflow replacing an editor's id switches B's editor to it", async () => {
    const prefix = `r${Date.now()}:`;
    const [a, b] = [await instance("a", prefix), await instance("b", prefix)];
    const onB = editor(b, "alice", "c1", "draft");
    a.saved("alice", row("wf_new", "New", 3_000), "draft");
    await onB.received(1);
    a.saved("alice", row("wf_new", "Renamed", 4_000));
    const frames = await onB.received(2);
    expect(frames.map((f) => (f.type === "workflow_updated" ? f.workflow.name : f.type))).toEqual([
      "New",
      "Renamed",
    ]);
  });
});
