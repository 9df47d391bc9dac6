import type { ServerFrame } from "@agentwire-chat/protocol";
import { type ChatTestServer, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { startTcpProxy, type TcpProxy } from "@agentwire-chat/testkit/tcp-proxy";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import type { Client, ConnectionState } from "../src/index.js";
import { readAll } from "./support/frames.js";

let server: ChatTestServer | undefined;
let proxy: TcpProxy | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await proxy?.close();
  await server?.close();
  server = proxy = undefined;
});

/** The client and every connection state it reported, from its first. */
function watched(url: string, options: Parameters<typeof testClient>[1] = {}) {
  const client = testClient(url, options);
  clients.push(client);
  const states: ConnectionState[] = [client.connection];
  client.onConnection((state) => states.push(state));
  return { client, states };
}

describe("the client's connection state, raw frames and commands", () => {
  it("reports connecting, open, offline with the next attempt's time, and open again after a cut", async () => {
    server = await startChatServer([{ text: "hi" }]);
    proxy = await startTcpProxy(server.wsUrl);
    const { client, states } = watched(proxy.url);
    await until(() => client.connected || undefined, "the first open");
    expect(states).toEqual([{ status: "connecting", attempt: 0 }, { status: "open" }]);

    const before = Date.now();
    proxy.cut();
    await until(() => (states.length >= 4 && client.connected) || undefined, "the reconnect");
    const offline = states[2];
    expect(offline).toMatchObject({ status: "offline", attempt: 1 });
    // The test client's backoff is 20 ms doubling to 100 ms, with jitter down to half.
    const retryAt = offline?.status === "offline" ? offline.retryAt : 0;
    expect(retryAt).toBeGreaterThanOrEqual(before + 10);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 100);
    expect(states.slice(3)).toEqual([{ status: "connecting", attempt: 1 }, { status: "open" }]);

    client.close();
    expect(client.connection).toEqual({ status: "closed" });
    expect(states.at(-1)).toEqual({ status: "closed" });
  });

  it("retryNow() reconnects at once instead of waiting out a long backoff", async () => {
    server = await startChatServer([{ text: "hi" }]);
    proxy = await startTcpProxy(server.wsUrl);
    const { client } = watched(proxy.url, { reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    await until(() => client.connected || undefined, "the first open");
    proxy.cut();
    await until(() => client.connection.status === "offline" || undefined, "offline");
    const state = client.connection;
    expect(state.status === "offline" && state.retryAt - Date.now()).toBeGreaterThan(20_000);
    client.retryNow();
    await until(() => client.connected || undefined, "the reconnect without the backoff", {
      timeoutMs: 5_000,
    });
  });

  it("onFrame sees every frame the socket brings, the turn's among them", async () => {
    server = await startChatServer([{ text: ["one ", "two"] }]);
    const { client } = watched(server.wsUrl);
    const seen: ServerFrame[] = [];
    const unsubscribe = client.onFrame((frame) => seen.push(frame));
    const turn = client.send({ content: "go" });
    const frames = await readAll(turn);
    // Each of the turn's frames reached the listener, in the same order.
    expect(seen.filter((f) => frames.includes(f))).toEqual(frames);
    expect(frames.length).toBeGreaterThan(3);
    unsubscribe();
    const count = seen.length;
    await readAll(client.send({ content: "again", thread_id: await turn.threadId }));
    expect(seen.length).toBe(count);
  });

  it("command() settles when the server took it and rejects with the server's code", async () => {
    server = await startChatServer([{ text: "hi" }]);
    const { client } = watched(server.wsUrl);
    await expect(client.command({ command: "subscribe_threads", data: {} })).resolves.toBeUndefined();
    await expect(
      client.command({ command: "stop", data: { thread_id: "no-such-thread" } }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("a command that went out on a socket that then dropped rejects with closed instead of waiting forever", async () => {
    server = await startChatServer([{ text: "hi" }]);
    proxy = await startTcpProxy(server.wsUrl);
    const { client } = watched(proxy.url);
    await until(() => client.connected || undefined, "the first open");
    proxy.swallow("to-client");
    const pending = client.command({ command: "subscribe_threads", data: {} });
    proxy.cut();
    await expect(pending).rejects.toMatchObject({ code: "closed" });
  });
});
