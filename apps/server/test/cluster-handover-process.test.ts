import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerFrame } from "@agentwire/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { isDone, seqsOf, useCluster } from "./support/cluster-instances.js";
import { expectWriteThenAnswerContinued } from "./support/expect-continued-turn.js";

/**
 * A rolling deploy on two real server processes (one Postgres, one Redis): SIGTERM past the drain
 * hands the running turn over instead of interrupting it. The lease is long, so a continuation well
 * within it can only come from the handover (lease released, the others told), not from its lapse.
 */
const LEASE_MS = 10_000;
const DRAIN_MS = 300;
const { skip, instance, client, databaseUrl } = useCluster({
  provider: join(import.meta.dirname, "fixtures/scripted-provider.ts"),
  leaseMs: LEASE_MS,
});

let workspaces: string[] = [];
afterEach(() => {
  for (const w of workspaces) rmSync(w, { recursive: true, force: true });
  workspaces = [];
});

describe.skipIf(skip)("SIGTERM hands running turns over to another instance", { timeout: 60_000 }, () => {
  it("A's turn in its second model call, after a completed tool call: B continues it at once; the client closed with 1012 resumes on B and sees one continuous turn complete; the tool did not run again; A exits 0", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "agentwire-handover-ws-"));
    workspaces.push(workspace);
    const a = await instance("a", { WORKSPACE_ROOT: workspace, SHUTDOWN_DRAIN_MS: String(DRAIN_MS) });
    const b = await instance("b", { WORKSPACE_ROOT: workspace });
    const onA = await client(a.url);
    onA.send("chat_message", { content: "write then answer" });
    await onA.until((f) => f.type === "chunk" && f.content === "an answer");
    const threadId = (onA.frames[0] as { thread_id: string }).thread_id;
    // The write is done; changed behind the agent's back, it would be overwritten if the tool ran again.
    const note = join(workspace, "local", "notes", "step.txt");
    expect(readFileSync(note, "utf8")).toBe("step one");
    writeFileSync(note, "changed after the tool ran");

    const closed = new Promise<number>((resolve) => onA.ws.once("close", (code) => resolve(code)));
    const exited = new Promise<number | null>((resolve) => a.proc.once("exit", resolve));
    const termAt = Date.now();
    a.proc.kill("SIGTERM");
    expect(await closed).toBe(1012);

    // The client reconnects elsewhere and resumes from the last frame it applied.
    const onB = await client(b.url);
    onB.send("resume_chat", { thread_id: threadId, last_seq: seqsOf(onA.frames).at(-1) });
    await onB.until((f) => f.type === "agent_state" && f.state === "resumed");
    // The drain, the handover and B's takeover: a fraction of the lease (its lapse alone would take 10 s).
    expect(Date.now() - termAt).toBeLessThan(LEASE_MS / 4);
    await onB.until(isDone);
    expect(await exited).toBe(0);

    // Every frame once, in order: what A sent, then the continuation B ran, on the same seqs.
    const continued = onB.frames.filter((f) => f.type !== "chat_resumed");
    const seen = [...onA.frames, ...continued];
    const seqs = seqsOf(seen);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(seen.filter(isDone)).toHaveLength(1);
    // A stopped the second model call and said nothing more (no end, no error); B went on from the tool's step.
    await expectWriteThenAnswerContinued(continued, {
      url: b.url,
      databaseUrl: databaseUrl(),
      threadId,
      note,
    });
    // Replayed from 0 on B, the turn is the same continuous one.
    const again = await client(b.url);
    again.send("resume_chat", { thread_id: threadId, last_seq: 0 });
    expect(await again.until((f) => f.type === "chat_resumed")).toMatchObject({ status: "finished" });
    expect(again.frames.filter((f: ServerFrame) => f.type !== "chat_resumed")).toEqual(seen);
  });
});
