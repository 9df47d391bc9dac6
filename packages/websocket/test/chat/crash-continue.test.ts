import { RESTARTED } from "@agentwire-chat/agents";
import { RESTART_DETAIL } from "@agentwire-chat/protocol";
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
  rootText,
  runUntilKilled,
  spawnChild,
  storedRows,
  subtaskText,
  useCrashHarness,
} from "./crash-continue-harness.js";

useCrashHarness();

// Each test spawns real server processes that load the sources through tsx: seconds each on a busy machine.
describe(
  "kill -9 in the middle of a turn, then a restart over the same file: the turn continues",
  {
    timeout: 90_000,
  },
  () => {
    it("during the second model call after a tool call: completes, the tool ran once, one continuous turn", async () => {
      const run = await runUntilKilled("second-call", (seen) => rootText(seen).endsWith("Half an answer"));
      expect(lines(run.dir, "append_line")).toEqual(["one"]);
      const lastSeq = (run.seen.at(-1) as Frame).seq;

      const { server, client, repos } = await restart(run.dir, "second-call");
      // A client that resumes from its last seq: the rest of the same turn, every frame once, in order.
      const { frames, resumed } = await resumeToEnd(client, run.threadId, lastSeq);
      expect(resumed.replayed).toBeLessThanOrEqual(frames.length);
      expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => lastSeq + 1 + i));
      expect(frames.filter(isDone)).toHaveLength(1);
      expect(frames.at(-1)).toMatchObject({ type: "chunk", done: true });
      // The partial text of the cut call is closed as interrupted, then the turn says it resumed.
      expect(frames[0]).toMatchObject({
        type: "message",
        message: { role: "assistant", content: "Half an answer", status: "interrupted" },
      });
      expect(frames[1]).toMatchObject({ type: "agent_state", state: "resumed" });
      expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
        message: { role: "assistant", content: "All done.", status: "complete" },
      });
      // The completed tool did not run again; the continuation ran its own.
      expect(lines(run.dir, "append_line")).toEqual(["one"]);
      expect(ends(frames).map((e) => e.tool_call_id)).toEqual(["e2"]);

      const turn = await repos.turns.latest("local", run.threadId);
      expect(turn?.status).toBe("complete");
      expect(turn?.recoveries).toBe(1);
      // The stored rows and tree hold both parts.
      const rows = await storedRows(server, run.threadId);
      expect(rows.map((m) => [m.role, m.content, m.tool_call_id ?? null, m.status])).toEqual([
        ["user", "crash during second-call", null, "complete"],
        ["assistant", "Looking.", null, "complete"],
        ["tool", "append_line:one", "a1", "complete"],
        ["assistant", "Half an answer", null, "interrupted"],
        ["assistant", "Checking.", null, "complete"],
        ["tool", "echo:two", "e2", "complete"],
        ["assistant", "All done.", null, "complete"],
      ]);
      const tree = rows.at(-1)?.execution_tree?.nodes ?? [];
      expect(tree.map((n) => [n.id, n.is_error ?? false])).toEqual([
        ["a1", false],
        ["e2", false],
      ]);

      // From 0: exactly the frames the client saw before the kill, then the continuation.
      client.command("resume_chat", { thread_id: run.threadId, last_seq: 0 });
      const all = (await client.collectUntil((f) => f.type === "chat_resumed")) as Frame[];
      const status = all.pop();
      expect(status).toMatchObject({ status: "finished" });
      expect(all).toEqual([...run.seen, ...frames]);
    });

    it("with tools in flight: the idempotent one runs again, the other gets the restart error and the model goes on", async () => {
      const run = await runUntilKilled("in-flight", (seen, dir) => {
        const started = seen.filter((f) => f.type === "tool_call_update" && f.status === "start");
        return (
          started.length === 2 &&
          lines(dir, "append_line").length === 1 &&
          lines(dir, "put_value").length === 1
        );
      });
      const lastSeq = (run.seen.at(-1) as Frame).seq;
      const { client, repos } = await restart(run.dir, "in-flight");
      const { frames } = await resumeToEnd(client, run.threadId, lastSeq);
      expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => lastSeq + 1 + i));
      const byId = new Map(ends(frames).map((e) => [e.tool_call_id, e]));
      expect(byId.get("a1")).toMatchObject({ is_error: true, result: RESTARTED });
      expect(byId.get("p1")).toMatchObject({ is_error: false, result: "put_value:y" });
      // What really ran: the non-idempotent tool once (before the kill), the idempotent one twice.
      expect(lines(run.dir, "append_line")).toEqual(["x"]);
      expect(lines(run.dir, "put_value")).toEqual(["y", "y"]);
      expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
        message: { content: "Done after the restart.", status: "complete" },
      });
      expect((await repos.turns.latest("local", run.threadId))?.status).toBe("complete");
    });

    it("during a parallel subtask's second model call: the subtask goes on from its own step, its finished sibling is kept", async () => {
      const run = await runUntilKilled(
        "subtask",
        (seen) =>
          subtaskText(seen, "s1").endsWith("A half") &&
          seen.some((f) => f.type === "tool_call_update" && f.tool_call_id === "s2" && f.status === "end"),
      );
      expect(lines(run.dir, "append_line")).toEqual(["A"]);
      const lastSeq = (run.seen.at(-1) as Frame).seq;
      const { server, client, repos, provider } = await restart(run.dir, "subtask");
      const { frames } = await resumeToEnd(client, run.threadId, lastSeq);
      expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => lastSeq + 1 + i));
      expect(frames.filter(isDone)).toHaveLength(1);
      expect(frames[0]).toMatchObject({ type: "agent_state", state: "resumed" });
      // A's cut model call is marked before A streams again: attempt 2 of the same call.
      expect(frames[1]).toEqual({
        type: "tool_call_update",
        tool_call_id: "s1",
        name: "run_subtask",
        status: "start",
        args: { title: "A", instructions: "part A" },
        title: "A",
        attempt: 2,
        parent_id: null,
        depth: 0,
        thread_id: run.threadId,
        seq: lastSeq + 2,
      });
      expect(frames.filter((f) => f.type === "tool_call_update" && f.status === "start")).toHaveLength(1);
      // Only A's cut model call is made again (with its tool's result), then the root's; B is not run again.
      const tasks = provider.requests.map((r) => (r.messages[0] as { content: string }).content);
      expect(tasks).toEqual(["part A", "crash during subtask"]);
      expect(provider.requests[0]?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "a1" });
      expect(lines(run.dir, "append_line")).toEqual(["A"]);
      expect(subtaskText(frames, "s1")).toBe("A done");
      expect(ends(frames).map((e) => [e.tool_call_id, e.result, e.is_error])).toEqual([
        ["s1", "A done", false],
      ]);
      expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
        message: { role: "assistant", content: "Both parts done.", status: "complete" },
      });
      expect((await repos.turns.latest("local", run.threadId))?.status).toBe("complete");
      // The stored tree holds both parts: the calls before the crash and the subtask that went on after it.
      const rows = await storedRows(server, run.threadId);
      const tree = rows.at(-1)?.execution_tree?.nodes ?? [];
      expect(tree.map((n) => [n.id, n.parent_id, n.result_preview, n.is_error ?? false]).sort()).toEqual([
        ["a1", "s1", "append_line:A", false],
        ["s1", null, "A done", false],
        ["s2", null, "B done", false],
      ]);
      // A's cut text is kept as its interrupted attempt, after its one nested call; no other node has one.
      expect(tree.find((n) => n.id === "s1")?.attempts).toEqual([
        { status: "interrupted", text: "A half", after_calls: 1 },
      ]);
      expect(tree.filter((n) => n.attempts !== undefined)).toHaveLength(1);
      expect(tree.find((n) => n.id === "s1")?.text).toBeUndefined();
      // The root model saw both subtasks' results: B's kept from before the crash, then A's.
      const root = provider.requests[1]?.messages ?? [];
      expect(root.filter((m) => m.role === "tool")).toMatchObject([
        { toolCallId: "s2", content: "B done" },
        { toolCallId: "s1", content: "A done" },
      ]);
    });

    it("during a subtask's first model call: the frames say it starts again, its cut text is an interrupted attempt in the tree", async () => {
      const run = await runUntilKilled("subtask-first-call", (seen) =>
        subtaskText(seen, "s1").endsWith("R half"),
      );
      const lastSeq = (run.seen.at(-1) as Frame).seq;
      const { server, client, repos } = await restart(run.dir, "subtask-first-call");
      const { frames } = await resumeToEnd(client, run.threadId, lastSeq);
      expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => lastSeq + 1 + i));
      expect(frames[0]).toMatchObject({
        type: "agent_state",
        state: "resumed",
        detail: RESTART_DETAIL.continues,
      });
      // The marker, then the subtask's own start again as the loop runs it from its instructions.
      const starts = frames.filter((f) => f.type === "tool_call_update" && f.status === "start");
      expect(
        starts.map((f) => [
          f.type === "tool_call_update" && f.tool_call_id,
          f.seq,
          "attempt" in f && f.attempt,
        ]),
      ).toEqual([
        ["s1", lastSeq + 2, 2],
        ["s1", expect.any(Number), false],
      ]);
      expect(frames[1]).toMatchObject({ title: "R", parent_id: null, depth: 0 });
      // The new attempt's text alone follows the marker; the cut text is not streamed again.
      expect(subtaskText(frames, "s1")).toBe("R whole");
      expect(ends(frames).map((e) => [e.tool_call_id, e.result, e.is_error])).toEqual([
        ["s1", "R whole", false],
      ]);
      expect((await repos.turns.latest("local", run.threadId))?.status).toBe("complete");
      const rows = await storedRows(server, run.threadId);
      expect(rows.at(-1)).toMatchObject({ content: "Restarted and done.", status: "complete" });
      const node = rows.at(-1)?.execution_tree?.nodes.find((n) => n.id === "s1");
      expect(node).toMatchObject({
        result_preview: "R whole",
        attempts: [{ status: "interrupted", text: "R half", after_calls: 0 }],
      });
      expect(node?.status).toBeUndefined();
      expect(node?.text).toBeUndefined();
      // A replay from 0 shows the first attempt's text, the marker, then the second attempt.
      const all = await resumeToEnd(client, run.threadId, 0);
      const marker = all.frames.findIndex(
        (f) => f.type === "tool_call_update" && "attempt" in f && f.attempt === 2,
      );
      expect(subtaskText(all.frames.slice(0, marker), "s1")).toBe("R half");
      expect(subtaskText(all.frames.slice(marker), "s1")).toBe("R whole");
    });

    it("a subtask continued after the crash that then asks the user: the turn waits for the answer, then completes", async () => {
      const run = await runUntilKilled("subtask-asks", (seen) => subtaskText(seen, "s1").endsWith("Q half"));
      expect(lines(run.dir, "append_line")).toEqual(["Q"]);
      const lastSeq = (run.seen.at(-1) as Frame).seq;
      const { server, client, repos } = await restart(run.dir, "subtask-asks");
      client.command("resume_chat", { thread_id: run.threadId, last_seq: lastSeq });
      const question = (await client.collectUntil((f) => f.type === "question")) as Frame[];
      expect(question.at(-1)).toMatchObject({
        type: "question",
        tool_call_id: "q1",
        question: "Which color?",
      });
      // Waiting, not ended: no error, no `done`, the stored turn waits on the user.
      expect(question.some((f) => f.type === "error" || isDone(f))).toBe(false);
      await until(
        async () => (await repos.turns.latest("local", run.threadId))?.status === "waiting_user",
        "the continued turn waits on the user",
      );

      client.command("answer", { thread_id: run.threadId, tool_call_id: "q1", answer: "teal" });
      const rest = (await client.collectUntil(isDone)) as Frame[];
      expect(rest.some((f) => f.type === "error")).toBe(false);
      expect(subtaskText(rest, "s1")).toBe("Q chose teal");
      expect(rest.filter((f) => f.type === "message").at(-1)).toMatchObject({
        message: { role: "assistant", content: "Asked and done.", status: "complete" },
      });
      const seqs = [...question, ...rest].map((f) => f.seq).filter((s) => s !== undefined);
      expect(seqs).toEqual(seqs.map((_, i) => lastSeq + 1 + i));
      expect((await repos.turns.latest("local", run.threadId))?.status).toBe("complete");
      expect(lines(run.dir, "append_line")).toEqual(["Q"]);
      const tree = (await storedRows(server, run.threadId)).at(-1)?.execution_tree?.nodes ?? [];
      expect(tree.map((n) => [n.id, n.parent_id, n.is_error ?? false]).sort()).toEqual([
        ["a1", "s1", false],
        ["q1", "s1", false],
        ["s1", null, false],
      ]);
    });

    it("before any step completed (in its first model call, or still queued): the turn runs again from its message", async () => {
      const dir = crashDir();
      const child = await spawnChild(dir, "first-call");
      const client = await openClient(await child.url);
      const seen: Frame[] = [];
      client.ws.on("message", (data) => seen.push(JSON.parse(data.toString()) as Frame));
      const threadOf = (content: string) =>
        seen.find((f) => f.type === "message" && f.message.content === content)?.thread_id;
      const of = (threadId: string | undefined) => seen.filter((f) => f.thread_id === threadId);
      client.command("chat_message", { content: "first" });
      await until(() => rootText(of(threadOf("first"))).endsWith("Half a start"), "the first call streaming");
      // The child admits one live turn: the second waits in the queue.
      client.command("chat_message", { content: "second" });
      await until(
        () => of(threadOf("second")).some((f) => f.type === "agent_state" && f.state === "queued"),
        "the second turn queued",
      );
      child.proc.kill("SIGKILL");
      expect(await child.exited).toBe("SIGKILL");
      await client.closed;
      const first = threadOf("first") as string;
      const second = threadOf("second") as string;
      const firstSeen = of(first);
      const lastSeq = (firstSeen.at(-1) as Frame).seq;

      const { server, client: again, repos, provider } = await restart(dir, "first-call");
      const { frames } = await resumeToEnd(again, first, lastSeq);
      expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => lastSeq + 1 + i));
      expect(frames.filter(isDone)).toHaveLength(1);
      expect(frames[0]).toMatchObject({
        type: "message",
        message: { role: "assistant", content: "Half a start", status: "interrupted" },
      });
      expect(frames[1]).toMatchObject({ type: "agent_state", state: "resumed" });
      expect(rootText(frames)).toBe("Started over.");
      // The cut call is made again as it was first sent: the user's message, not the cut text.
      const firstCall = provider.requests.find(
        (r) => (r.messages[0] as { content: string }).content === "first",
      );
      expect(firstCall?.messages.map((m) => m.role)).toEqual(["user"]);
      const turn = await repos.turns.latest("local", first);
      expect([turn?.status, turn?.recoveries]).toEqual(["complete", 1]);
      expect((await storedRows(server, first)).map((m) => [m.role, m.content, m.status])).toEqual([
        ["user", "first", "complete"],
        ["assistant", "Half a start", "interrupted"],
        ["assistant", "Started over.", "complete"],
      ]);

      // The queued one never started: it starts now, on the same thread log, and completes.
      const queued = await resumeToEnd(again, second, 0);
      expect(queued.frames.map((f) => f.seq)).toEqual(queued.frames.map((_, i) => i + 1));
      expect(queued.frames.filter(isDone)).toHaveLength(1);
      expect(rootText(queued.frames)).toBe("Second done.");
      expect((await repos.turns.latest("local", second))?.status).toBe("complete");
    });

    it("a turn that crashes its server on every continuation ends interrupted after TURN_MAX_RECOVERIES", async () => {
      const dir = crashDir();
      const env = { TURN_MAX_RECOVERIES: "2" };
      const first = await spawnChild(dir, "crash-loop", env);
      const client = await openClient(await first.url);
      client.command("chat_message", { content: "crash every time" });
      // The second model call kills the process: once at first, then once per continuation.
      expect(await first.exited).toBe("SIGKILL");
      for (let i = 0; i < 2; i++) {
        const again = await spawnChild(dir, "crash-loop", env);
        expect(await again.exited).toBe("SIGKILL");
      }
      // The third start finds the turn continued twice already: it ends it, and lives.
      const last = await spawnChild(dir, "crash-loop", env);
      const url = await last.url;
      const watcher = await openClient(url);
      const threads = (await (await fetch(`${url}/api/threads`)).json()) as { threads: { id: string }[] };
      const threadId = threads.threads[0]?.id as string;
      const { frames, resumed } = await resumeToEnd(watcher, threadId, 0);
      expect(resumed.status).toBe("interrupted");
      expect(frames.filter((f) => f.type === "agent_state" && f.state === "resumed")).toHaveLength(2);
      expect(frames.filter(isDone)).toHaveLength(1);
      expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
      expect(last.proc.exitCode).toBeNull();
    });
  },
);
