import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { startTcpProxy, type TcpProxy } from "@agentwire-chat/testkit/tcp-proxy";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import type { Client, Turn } from "../src/index.js";
import { chunks, readAll, seqs } from "./support/frames.js";

let server: ChatTestServer | undefined;
let proxy: TcpProxy | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await proxy?.close();
  await server?.close();
  server = proxy = undefined;
});

/**
 * Two model calls around a send_update, each streaming three chunks and then held by a gate: the
 * test cuts the socket while a gate is shut, then opens it, so the server streams on while the
 * client is away.
 */
function heldScript(gates: () => { promise: Promise<void> }[]) {
  let turnCount = 0;
  return (request: ProviderRequest): ScriptedStep => {
    const answered = request.messages.at(-1)?.role === "tool";
    if (!answered) turnCount++;
    const g = gates()[answered ? 1 : 0]?.promise;
    return answered
      ? { text: ["gamma ", "delta ", "epsilon"], ...(g && { hold: g }) }
      : {
          text: ["alpha ", "beta ", "half: "],
          ...(g && { hold: g }),
          toolCalls: [{ id: `up_${turnCount}`, name: "send_update", args: { message: "halfway" } }],
        };
  };
}

const sawChunk = (turn: Turn, text: string) => () =>
  JSON.stringify(turn.tree?.root ?? []).includes(text) || undefined;

describe("reconnect through a cut network", () => {
  it("a turn cut twice mid-stream completes with every frame once, in order, and the uncut run's text", async () => {
    const opened = [gate(), gate()];
    for (const g of opened) g.open();
    const gates = [gate(), gate()];
    let current = opened;
    server = await startChatServer(heldScript(() => current));
    proxy = await startTcpProxy(server.wsUrl);

    // The uncut run, straight to the server, gates open.
    const direct = testClient(server.wsUrl);
    clients.push(direct);
    const uncut = direct.send({ content: "uncut" });
    const uncutFrames = await readAll(uncut);
    expect((await uncut.done).status).toBe("complete");

    current = gates;
    const client = testClient(proxy.url);
    clients.push(client);
    const turn = client.send({ content: "cut" });
    const reading = readAll(turn);

    await until(sawChunk(turn, "half: "), "the first call's text");
    proxy.cut();
    await until(() => !client.connected || undefined, "the client to see the drop");
    gates[0]?.open();
    await until(sawChunk(turn, "epsilon"), "the second call's text after the reconnect");
    proxy.cut();
    await until(() => !client.connected || undefined, "the second drop");
    gates[1]?.open();

    const end = await turn.done;
    const frames = await reading;
    expect(end.status).toBe("complete");
    expect(proxy.connections()).toBeGreaterThanOrEqual(3);
    // Every frame once, in order, no gap: seqs rise by one from the turn's first.
    const s = seqs(frames);
    expect(s).toEqual(s.map((_, i) => (s[0] ?? 0) + i));
    expect(frames.at(-1)).toMatchObject({ type: "chunk", done: true });
    expect(chunks(frames)).toEqual(chunks(uncutFrames));
    expect(await turn.text()).toBe(await uncut.text());
    expect(await turn.text()).toBe("gamma delta epsilon");
    expect(turn.tree?.running).toBe(false);
    expect(turn.errors).toEqual([]);
  });

  it("a drop before the turn's first frame: the server had started it, so the turn is found and replayed from its start", async () => {
    server = await startChatServer([{ text: ["found ", "again"] }]);
    proxy = await startTcpProxy(server.wsUrl);
    const client = testClient(proxy.url);
    clients.push(client);
    await until(() => client.connected || undefined, "the connection");
    proxy.swallow("to-client");
    const turn = client.send({ content: "lost answer" });
    const running = server;
    await until(
      async () => (await running.repos.threads.list("local")).length === 1 || undefined,
      "the thread",
    );
    proxy.cut();
    const frames = await readAll(turn);
    expect(await turn.text()).toBe("found again");
    expect(frames[0]).toMatchObject({ type: "thread", seq: 1 });
    expect(seqs(frames)).toEqual(frames.map((_, i) => i + 1));
    expect(server.provider.requests).toHaveLength(1);
  });

  it("a drop that lost the message itself: it is sent again, and runs once", async () => {
    server = await startChatServer([{ text: "ran once" }]);
    proxy = await startTcpProxy(server.wsUrl);
    const client = testClient(proxy.url);
    clients.push(client);
    await until(() => client.connected || undefined, "the connection");
    proxy.swallow("to-server");
    const turn = client.send({ content: "lost on the way" });
    proxy.cut();
    expect(await turn.text()).toBe("ran once");
    expect((await client.threads.list()).map((t) => t.title)).toEqual(["lost on the way"]);
    expect(server.provider.requests).toHaveLength(1);
  });

  it("stop() while the socket is down waits for the next socket, and stops the turn there", async () => {
    server = await startChatServer([{ text: ["never ", "ending"], hold: "until-aborted" }]);
    proxy = await startTcpProxy(server.wsUrl);
    const client = testClient(proxy.url, { reconnect: { initialDelayMs: 200, maxDelayMs: 200 } });
    clients.push(client);
    const turn = client.send({ content: "go" });
    await until(sawChunk(turn, "ending"), "the streamed text");
    proxy.cut();
    await until(() => !client.connected || undefined, "the drop");
    const stopping = turn.stop();
    await expect(stopping).resolves.toBeUndefined();
    expect(client.connected).toBe(true);
    const end = await turn.done;
    expect(end.status).toBe("stopped");
    expect(await turn.text()).toBe("never ending");
  });
});
