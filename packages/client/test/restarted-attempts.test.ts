import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RESTART_DETAIL } from "@agentwire-chat/protocol";
import type { ContinueScenario } from "@agentwire-chat/testkit/continue-scenarios";
import { killHard, restartContinuing, spawnContinueServer } from "@agentwire-chat/testkit/crash-server";
import { startTcpProxy, type TcpProxy } from "@agentwire-chat/testkit/tcp-proxy";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../apps/server/src/start-server.js";
import type { Child, Client, Turn, TurnView } from "../src/index.js";

let child: ChildProcess | undefined;
let fresh: RunningServer | undefined;
let proxy: TcpProxy | undefined;
let client: Client | undefined;
let dir: string | undefined;
afterEach(async () => {
  client?.close();
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await proxy?.close();
  await fresh?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = fresh = proxy = client = dir = undefined;
});

/** A container's children as text runs, `{cut, detail}` and card ids (nested), for comparison. */
function shape(turn: TurnView, children: Child[] = turn.root): unknown[] {
  return children.map((c) => {
    if (c.kind === "text") return c.text;
    if (c.kind === "cut") return { cut: c.text, detail: c.detail };
    if (c.kind === "approval") return `approval:${c.id}`;
    const card = turn.cards[c.id];
    return { [c.id]: card?.status, children: shape(turn, card?.children) };
  });
}

/** Starts the scenario's turn on a real server process, kills it -9 once `cut` holds, restarts it; the turn's end. */
async function crashAndContinue(scenario: ContinueScenario, cut: (tree: TurnView) => boolean): Promise<Turn> {
  dir = mkdtempSync(join(tmpdir(), "agentwire-client-attempts-"));
  const server = spawnContinueServer(dir, scenario);
  child = server.proc;
  proxy = await startTcpProxy((await server.url).replace("http", "ws"));
  client = testClient(proxy.url.replace("ws:", "http:"));
  const turn = client.send({ content: `crash during ${scenario}` });
  await until(() => (turn.tree && cut(turn.tree)) || undefined, "the cut point", { timeoutMs: 30_000 });
  expect(await killHard(server.proc)).toBe("SIGKILL");
  const live = client;
  await until(() => !live.connected || undefined, "the drop");
  fresh = await restartContinuing(dir, scenario);
  proxy.retarget(fresh.url.replace("http", "ws"));
  expect((await turn.done).status).toBe("complete");
  return turn;
}

const rootText = (tree: TurnView) => tree.root.map((c) => (c.kind === "text" ? c.text : "")).join("");
const cardText = (tree: TurnView, id: string) =>
  (tree.cards[id]?.children ?? []).map((c) => (c.kind === "text" ? c.text : "")).join("");

// Real server processes load the sources through tsx: seconds on a busy machine.
describe("the SDK across a kill -9 and the turn's continuation", { timeout: 90_000 }, () => {
  it("the root's cut model call is kept apart, marked with the server's detail; the new attempt is the answer", async () => {
    const turn = await crashAndContinue("second-call", (t) => rootText(t).endsWith("Half an answer"));
    const tree = turn.tree as TurnView;
    expect(shape(tree)).toEqual([
      "Looking.",
      { a1: "complete", children: [] },
      { cut: "Half an answer", detail: RESTART_DETAIL.continues },
      "Checking.",
      { e2: "complete", children: [] },
      "All done.",
    ]);
    // The answer's text runs hold the new attempt alone: nothing of the cut one is glued to them.
    expect(rootText(tree)).toBe("Looking.Checking.All done.");
    expect(tree.errors).toEqual([]);
  });

  it("a subtask cut in its first model call: its cut text stays apart in its card, the restart noted at the root", async () => {
    const turn = await crashAndContinue("subtask-first-call", (t) => cardText(t, "s1").endsWith("R half"));
    const tree = turn.tree as TurnView;
    expect(shape(tree)).toEqual([
      "Delegating.",
      { s1: "complete", children: [{ cut: "R half", detail: RESTART_DETAIL.subtaskRerun }] },
      { cut: "", detail: RESTART_DETAIL.continues },
      "Restarted and done.",
    ]);
    expect(tree.cards.s1?.resultPreview).toBe("R whole");
  });
});
