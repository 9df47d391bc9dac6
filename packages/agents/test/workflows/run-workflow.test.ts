import { describe, expect, it } from "vitest";
import { TurnBudget } from "../../src/budget/turn-budget.js";
import { abortTurn, SHUTDOWN, USER_STOP } from "../../src/loop/aborted-status.js";
import { nodeError, nodeOk } from "../../src/workflows/node-type.js";
import { runWorkflow } from "../../src/workflows/run-workflow.js";
import { deferred, drain, edge, nodeStatuses, stringRegistry, testNode } from "./helpers.js";

const input = { text: "hello" };
const base = { input, jobId: "job-1" };
const live = () => new AbortController().signal;

/** Waits until aborted, like a well-behaved slow node. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted"))));

describe("runWorkflow", () => {
  it("runs a chain in order and returns the output text", async () => {
    const { frames, result } = await drain(
      runWorkflow({
        ...base,
        registry: stringRegistry(),
        signal: live(),
        workflowId: "wf-1",
        graph: {
          nodes: [
            { id: "s", type: "src", properties: { value: "abc" } },
            { id: "up", type: "upper" },
            { id: "out", type: "output.sink" },
          ],
          edges: [edge("s.out -> up.in"), edge("up.out -> out.text")],
        },
      }),
    );
    expect(frames[0]).toEqual({
      type: "job_update",
      job_id: "job-1",
      workflow_id: "wf-1",
      status: "running",
    });
    expect(nodeStatuses(frames)).toEqual([
      "s:running",
      "s:completed",
      "up:running",
      "up:completed",
      "out:running",
      "out:completed",
    ]);
    expect(
      frames.find((f) => f.type === "node_update" && f.node_id === "up" && f.status === "completed"),
    ).toEqual({
      type: "node_update",
      job_id: "job-1",
      node_id: "up",
      node_type: "upper",
      status: "completed",
      result_preview: "ABC",
    });
    expect(frames.at(-1)).toEqual({
      type: "job_update",
      job_id: "job-1",
      workflow_id: "wf-1",
      status: "completed",
    });
    expect(result).toEqual({ status: "complete", outputs: { out: { text: "ABC" } }, text: "ABC" });
  });

  it("runs independent branches concurrently and joins when both are ready", async () => {
    const started = { a: deferred(), b: deferred() };
    // Each gate finishes only once both have started: run one at a time and it never would.
    const gate = testNode("gate", async (i, ctx) => {
      started[ctx.nodeId as "a" | "b"].resolve();
      await Promise.all([started.a.promise, started.b.promise]);
      return nodeOk({ out: `${ctx.nodeId}:${i.in}` });
    });
    const { frames, result } = await drain(
      runWorkflow({
        ...base,
        registry: stringRegistry([gate]),
        signal: live(),
        graph: {
          nodes: [
            { id: "s", type: "src", properties: { value: "x" } },
            { id: "a", type: "gate" },
            { id: "b", type: "gate" },
            { id: "j", type: "join" },
            { id: "o", type: "output.sink" },
          ],
          edges: [
            edge("s.out -> a.in"),
            edge("s.out -> b.in"),
            edge("a.out -> j.a"),
            edge("b.out -> j.b"),
            edge("j.out -> o.text"),
          ],
        },
      }),
    );
    const order = nodeStatuses(frames);
    expect(order.indexOf("b:running")).toBeLessThan(order.indexOf("a:completed"));
    expect(order.indexOf("j:running")).toBeGreaterThan(
      Math.max(order.indexOf("a:completed"), order.indexOf("b:completed")),
    );
    expect(result.text).toBe("a:x+b:x");
  });

  it("stops mid-node: running node cancelled, downstream skipped, job cancelled, the run stopped", async () => {
    const started = deferred();
    let sawAbort = false;
    const slow = testNode("slow", async (_i, _ctx, signal) => {
      started.resolve();
      await untilAborted(signal).catch(() => {
        sawAbort = true;
      });
      return nodeError("aborted");
    });
    const stop = new AbortController();
    const gen = runWorkflow({
      ...base,
      registry: stringRegistry([slow]),
      signal: stop.signal,
      graph: {
        nodes: [
          { id: "w", type: "slow", properties: { in: "x" } },
          { id: "o", type: "output.sink" },
        ],
        edges: [edge("w.out -> o.text")],
      },
    });
    const frames = [(await gen.next()).value, (await gen.next()).value];
    expect(frames[1]).toMatchObject({ node_id: "w", status: "running" });
    await started.promise;
    stop.abort(USER_STOP);
    const rest = await drain(gen);
    expect(nodeStatuses(rest.frames)).toEqual(["w:cancelled", "o:skipped"]);
    expect(rest.frames.at(-1)).toMatchObject({
      type: "job_update",
      status: "cancelled",
      error: "workflow stopped",
    });
    expect(rest.result).toEqual({ status: "stopped", outputs: {}, text: "", error: "workflow stopped" });
    expect(sawAbort).toBe(true);
  });

  it("an abort for any other reason (shutdown) ends the run interrupted; the job still says cancelled", async () => {
    const started = deferred();
    const slow = testNode("slow", (_i, _ctx, signal) => {
      started.resolve();
      return untilAborted(signal);
    });
    const shutdown = new AbortController();
    const gen = runWorkflow({
      ...base,
      registry: stringRegistry([slow]),
      signal: shutdown.signal,
      graph: { nodes: [{ id: "w", type: "slow", properties: { in: "x" } }] },
    });
    await gen.next();
    await gen.next();
    await started.promise;
    abortTurn(shutdown, SHUTDOWN);
    const rest = await drain(gen);
    expect(rest.frames.at(-1)).toMatchObject({ type: "job_update", status: "cancelled" });
    expect(rest.result.status).toBe("interrupted");
  });

  it("fails the job when a node fails: running siblings aborted, downstream skipped", async () => {
    const slowStarted = deferred();
    let siblingAborted = false;
    const slow = testNode("slow", async (_i, _ctx, signal) => {
      slowStarted.resolve();
      await untilAborted(signal).catch(() => {
        siblingAborted = true;
      });
      return nodeOk({ out: "late" });
    });
    const bad = testNode("bad", async () => {
      await slowStarted.promise;
      return nodeError("bad input");
    });
    const { frames, result } = await drain(
      runWorkflow({
        ...base,
        registry: stringRegistry([slow, bad]),
        signal: live(),
        graph: {
          nodes: [
            { id: "s", type: "src", properties: { value: "x" } },
            { id: "slow", type: "slow" },
            { id: "bad", type: "bad" },
            { id: "after", type: "upper" },
            { id: "o", type: "output.sink" },
          ],
          edges: [
            edge("s.out -> slow.in"),
            edge("s.out -> bad.in"),
            edge("bad.out -> after.in"),
            edge("after.out -> o.text"),
          ],
        },
      }),
    );
    const statuses = nodeStatuses(frames);
    expect(statuses).toEqual(
      expect.arrayContaining(["bad:failed", "slow:cancelled", "after:skipped", "o:skipped"]),
    );
    expect(frames.find((f) => f.type === "node_update" && f.status === "failed")).toMatchObject({
      error: "bad input",
    });
    const error = 'node "bad" (bad) failed: bad input';
    expect(frames.at(-1)).toEqual({ type: "job_update", job_id: "job-1", status: "failed", error });
    expect(result).toEqual({ status: "error", outputs: {}, text: "", error });
    expect(siblingAborted).toBe(true);
  });

  it("ends on the turn budget's breach even when a node ignores its signal", async () => {
    const started = deferred();
    const stuck = testNode("stuck", async () => {
      started.resolve();
      return new Promise<never>(() => {});
    });
    let now = 0;
    const budget = new TurnBudget({ MAX_WALL_CLOCK_MS: 500 }, { now: () => now, wallClockTimer: false });
    const gen = runWorkflow({
      ...base,
      budget,
      registry: stringRegistry([stuck]),
      signal: live(),
      graph: { nodes: [{ id: "w", type: "stuck", properties: { in: "x" } }] },
    });
    const first = [(await gen.next()).value, (await gen.next()).value];
    expect(first[1]).toMatchObject({ node_id: "w", status: "running" });
    await started.promise;
    now = 501;
    expect(budget.checkWallClock()).toMatchObject({ reason: "wall_clock", limit: 500 });
    const { frames, result } = await drain(gen);
    const error = "workflow exceeded its wall-clock budget of 500 ms";
    expect(frames).toEqual([
      { type: "node_update", job_id: "job-1", node_id: "w", node_type: "stuck", status: "cancelled", error },
      { type: "job_update", job_id: "job-1", status: "failed", error },
    ]);
    expect(result.status).toBe("budget_exceeded");
  });

  it("ends when the budget's own (tiny, real) wall-clock timer fires", async () => {
    const wait = testNode("wait", (_i, _c, signal) => untilAborted(signal));
    const { result } = await drain(
      runWorkflow({
        ...base,
        budget: new TurnBudget({ MAX_WALL_CLOCK_MS: 5 }),
        registry: stringRegistry([wait]),
        signal: live(),
        graph: { nodes: [{ id: "w", type: "wait", properties: { in: "x" } }] },
      }),
    );
    expect(result).toMatchObject({
      status: "budget_exceeded",
      error: "workflow exceeded its wall-clock budget of 5 ms",
    });
  });

  it("fails an invalid graph before running anything, naming node and port", async () => {
    const { frames, result } = await drain(
      runWorkflow({
        ...base,
        registry: stringRegistry(),
        signal: live(),
        graph: { nodes: [{ id: "u", type: "upper" }] },
      }),
    );
    const error = 'invalid workflow: node "u" port "in": required input is not connected and has no property';
    expect(frames).toEqual([
      { type: "job_update", job_id: "job-1", status: "running" },
      { type: "job_update", job_id: "job-1", status: "failed", error },
    ]);
    expect(result).toMatchObject({ status: "error", error });
  });

  it("turns a throwing node into a failed node, and streams progress previews", async () => {
    const chatty = testNode("chatty", async (_i, ctx) => {
      ctx.progress("par");
      ctx.progress("par");
      ctx.progress("partial");
      return nodeOk({ out: "partial!" });
    });
    const thrower = testNode("thrower", async () => {
      throw new Error("bug");
    });
    const { frames, result } = await drain(
      runWorkflow({
        ...base,
        registry: stringRegistry([chatty, thrower]),
        signal: live(),
        graph: {
          nodes: [
            { id: "c", type: "chatty", properties: { in: "x" } },
            { id: "t", type: "thrower" },
          ],
          edges: [edge("c.out -> t.in")],
        },
      }),
    );
    const previews = frames.flatMap((f) =>
      f.type === "node_update" && f.node_id === "c" ? [f.result_preview] : [],
    );
    expect(previews).toEqual([undefined, "par", "partial", "partial!"]);
    expect(result.error).toBe('node "t" (thrower) failed: thrower threw: bug');
  });
});
