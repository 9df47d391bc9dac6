import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killHard, restartServer, spawnCrashServer } from "@agentwire-chat/testkit/crash-server";
import { startTcpProxy, type TcpProxy } from "@agentwire-chat/testkit/tcp-proxy";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../apps/server/src/start-server.js";
import type { Client } from "../src/index.js";
import { readAll, seqs } from "./support/frames.js";

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

// Real server processes load the sources through tsx: seconds on a busy machine.
describe("the server killed and restarted mid-turn", { timeout: 60_000 }, () => {
  it("the SDK reconnects on its own and the turn ends with the status the server stored", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-client-restart-"));
    const dbPath = join(dir, "agentwire.db");
    const server = spawnCrashServer(dbPath);
    child = server.proc;
    const first = await server.url;
    proxy = await startTcpProxy(first.replace("http", "ws"));
    // The http base works as the URL too.
    client = testClient(proxy.url.replace("ws:", "http:"));
    const turn = client.send({ content: "crash while you answer" });
    const reading = readAll(turn);
    await until(
      () => JSON.stringify(turn.tree?.root ?? []).includes("answer") || undefined,
      "the streamed text",
    );

    expect(await killHard(server.proc)).toBe("SIGKILL");
    const live = client;
    await until(() => !live.connected || undefined, "the drop");

    fresh = await restartServer(dbPath, [{ text: "Back again." }]);
    proxy.retarget(fresh.url.replace("http", "ws"));

    const end = await turn.done;
    expect(end.status).toBe("interrupted");
    expect(await turn.text()).toBe("Half an answer");
    const frames = await reading;
    expect(seqs(frames)).toEqual(frames.map((_, i) => i + 1));
    expect(frames.filter((f) => f.type === "chunk" && f.done)).toHaveLength(1);
    expect(turn.errors).toEqual([]);
    expect(client.connected).toBe(true);

    // The thread goes on on the new server, through the same client.
    const next = client.send({ content: "are you back?", thread_id: await turn.threadId });
    expect(await next.text()).toBe("Back again.");
    expect((await readAll(next))[0]).toMatchObject({ seq: (seqs(frames).at(-1) ?? 0) + 1 });
  });
});
