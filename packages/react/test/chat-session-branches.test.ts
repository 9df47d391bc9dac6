import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { Client } from "@agentwire-chat/client";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { testClient } from "@agentwire-chat/testkit/test-client";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChatSession } from "../src/index.js";

let server: ChatTestServer | undefined;
const clients: Client[] = [];
let held = gate();
let answers = 0;

beforeEach(() => {
  held = gate();
  answers = 0;
});
afterEach(async () => {
  held.open();
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

function respond(r: ProviderRequest): ScriptedStep {
  const user = r.messages.filter((m) => m.role === "user").at(-1);
  const ask = typeof user?.content === "string" ? user.content : "";
  if (ask === "hold") return { text: "Held. ", hold: held.promise };
  return { text: `Hi: ${ask} #${++answers}` };
}

/** A ChatSession (what useChat renders) on a client of a real server, attached as a mounted hook is. */
async function session(threadId?: string): Promise<ChatSession> {
  server ??= await startChatServer(respond);
  const client = testClient(server.wsUrl);
  clients.push(client);
  const s = new ChatSession(client, threadId);
  s.attach();
  return s;
}

const contents = (s: ChatSession) => s.getState().messages.map((m) => m.content);
const settled = (s: ChatSession) => until(() => s.getState().status === "complete");

describe("ChatSession (useChat) with queue and branches, against a real server", () => {
  it("send while a turn runs queues the message (queued), then it becomes the current turn", async () => {
    const s = await session();
    s.send("hold");
    await until(() => s.getState().liveTree?.root.length === 1);
    expect(s.send("next")).toBeDefined();
    await until(() => s.getState().queued.length === 1);
    expect(s.getState().queued[0]).toMatchObject({ content: "next", mode: "queue", position: 1 });
    expect(s.getState().status).toBe("running");
    held.open();
    await until(() => s.getState().messages.length === 4 && s.getState().status === "complete");
    expect(contents(s)).toEqual(["hold", "Held. ", "next", "Hi: next #1"]);
    expect(s.getState().queued).toEqual([]);
  });

  it("cancelQueued drops the waiting message", async () => {
    const s = await session();
    s.send("hold");
    await until(() => s.getState().liveTree?.root.length === 1);
    s.send("never");
    await until(() => s.getState().queued.length === 1);
    await s.cancelQueued(s.getState().queued[0]?.messageId as string);
    expect(s.getState().queued).toEqual([]);
    expect(s.getState().error).toBeUndefined();
    held.open();
    await settled(s);
    expect(contents(s)).toEqual(["hold", "Held. "]);
  });

  it("regenerate shows the new answer with its branch arrows; selectBranch goes back", async () => {
    const s = await session();
    s.send("Say hi");
    await settled(s);
    const [, old] = s.getState().messages;
    s.regenerate();
    await until(() => Object.keys(s.getState().branches).length === 1);
    expect(contents(s)).toEqual(["Say hi", "Hi: Say hi #2"]);
    const shown = s.getState().messages[1]?.id as string;
    expect(s.getState().branches[shown]).toEqual({ ids: [old?.id, shown], index: 1 });
    await s.selectBranch(old?.id as string);
    expect(contents(s)).toEqual(["Say hi", "Hi: Say hi #1"]);
    expect(s.getState().branches[old?.id as string]).toEqual({ ids: [old?.id, shown], index: 0 });
    // A fresh session (a reload) shows the selected branch and its arrows.
    const reloaded = await session(s.getState().threadId);
    await until(() => reloaded.getState().status === "complete" || reloaded.getState().status === "idle");
    expect(contents(reloaded)).toEqual(["Say hi", "Hi: Say hi #1"]);
    expect(reloaded.getState().branches[old?.id as string]?.index).toBe(0);
  });

  it("edit replaces a message and what followed it with a new branch", async () => {
    const s = await session();
    s.send("one");
    await settled(s);
    s.send("two");
    await until(() => s.getState().messages.length === 4 && s.getState().status === "complete");
    const two = s.getState().messages[2]?.id as string;
    s.edit(two, "two, edited");
    await until(() => Object.keys(s.getState().branches).length === 1);
    expect(contents(s)).toEqual(["one", "Hi: one #1", "two, edited", "Hi: two, edited #3"]);
    const edited = s.getState().messages[2]?.id as string;
    expect(s.getState().branches[edited]).toEqual({ ids: [two, edited], index: 1 });
  });
});
