import { RESTARTED } from "@agentwire-chat/agents";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { isDone } from "@agentwire-chat/testkit/chat-harness";
import { until } from "@agentwire-chat/testkit/until";
import { describe, expect, it } from "vitest";
import {
  crashDir,
  ends,
  type Frame,
  lines,
  openClient,
  restart,
  resumeToEnd,
  spawnChild,
  storedRows,
  subtaskText,
  useCrashHarness,
} from "./crash-continue-harness.js";

useCrashHarness();

type PlanCreated = Extract<ServerFrame, { type: "plan_created" }>;

// Spawns a real server process that loads the sources through tsx: seconds on a busy machine.
describe(
  "kill -9 during a step of an approved plan, then a restart over the same file",
  { timeout: 90_000 },
  () => {
    it("the turn goes on: the plan's call gets the restart error, no step runs again, every frame once, the row complete", async () => {
      const dir = crashDir();
      const child = await spawnChild(dir, "plan-step");
      const client = await openClient(await child.url);
      const seen: Frame[] = [];
      client.ws.on("message", (data) => seen.push(JSON.parse(data.toString()) as Frame));
      client.command("chat_message", { content: "crash during plan-step" });
      await until(() => seen.some(isDone), "the draft's turn");
      const draftEnd = (seen.find(isDone) as Frame).seq;
      const threadId = seen[0]?.thread_id as string;
      const planId = (seen.find((f) => f.type === "plan_created") as PlanCreated).plan.id;

      client.command("plan_decision", { thread_id: threadId, plan_id: planId, decision: "approve" });
      const running = () => seen.filter((f) => f.seq > draftEnd);
      const call = `plan_${planId}`;
      await until(
        () =>
          ends(running()).some((e) => e.tool_call_id === `${call}/one`) &&
          subtaskText(running(), `${call}/two`).endsWith("half"),
        "step two's model call, after step one",
      );
      child.proc.kill("SIGKILL");
      expect(await child.exited).toBe("SIGKILL");
      await client.closed;
      expect(running().some(isDone)).toBe(false);
      expect(lines(dir, "append_line")).toEqual(["one"]);
      const lastSeq = (seen.at(-1) as Frame).seq;

      const { server, client: again, repos, provider } = await restart(dir, "plan-step");
      const { frames } = await resumeToEnd(again, threadId, lastSeq);
      // One continuous turn: the next seqs, once each, one done, saying it resumed.
      expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => lastSeq + 1 + i));
      expect(frames.filter(isDone)).toHaveLength(1);
      expect(frames[0]).toMatchObject({ type: "agent_state", state: "resumed" });
      // The plan's call was in flight and is not idempotent: it ends with the restart's error, and the
      // model decides. No step runs again (a plan keeps no checkpoint of its own steps yet).
      expect(ends(frames).map((e) => [e.tool_call_id, e.result, e.is_error])).toEqual([
        [call, RESTARTED, true],
      ]);
      expect(frames.some((f) => f.type === "tool_call_update" && f.name === "plan_step")).toBe(false);
      expect(provider.requests.map((r) => r.systemPrompt.startsWith("You are a focused sub-agent"))).toEqual([
        false,
      ]);
      expect(lines(dir, "append_line")).toEqual(["one"]);
      expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
        message: { role: "assistant", content: "The plan was cut by a restart.", status: "complete" },
      });
      expect(await repos.turns.latest("local", threadId)).toMatchObject({
        status: "complete",
        recoveries: 1,
      });
      // The stored tree: step one done with its tool, step two interrupted with the text it streamed.
      const rows = await storedRows(server, threadId);
      const final = rows.at(-1);
      expect(final).toMatchObject({ content: "The plan was cut by a restart.", status: "complete" });
      const nodes = final?.execution_tree?.nodes ?? [];
      expect(
        nodes.map((n) => [n.id, n.parent_id, n.is_error ?? false, n.status ?? null, n.text ?? null]),
      ).toEqual([
        [call, null, true, null, null],
        [`${call}/one`, call, false, null, null],
        ["a1", `${call}/one`, false, null, null],
        [`${call}/two`, call, true, "interrupted", "two half"],
      ]);
      // A client that resumes from the draft's end gets what was seen before the kill, then the rest.
      again.command("resume_chat", { thread_id: threadId, last_seq: draftEnd });
      const all = (await again.collectUntil((f) => f.type === "chat_resumed")) as Frame[];
      expect(all.pop()).toMatchObject({ status: "finished" });
      expect(all).toEqual([...running(), ...frames]);
    });
  },
);
