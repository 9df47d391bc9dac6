import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { contentText } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { ContextScopes } from "../../src/index.js";
import { threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const GUIDANCE = "Answer in the voice of a ship's log.";

const scopes = ContextScopes.from({
  scopes: {
    logbook: { guidance: GUIDANCE, plan_mode: "agent_review", model: "scripted-log" },
    other: { provider: "scripted" },
  },
});

const plan = {
  goal: "a log",
  stages: [
    {
      id: "s1",
      name: "Write",
      mode: "sequence",
      steps: [{ id: "entry", title: "Write the entry", instructions: "step: write the entry" }],
    },
  ],
};

const fence = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;
const firstUser = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? contentText(first.content) : "";
};
const hasToolResult = (r: ProviderRequest) => r.messages.some((m) => m.role === "tool");

/** Who each request is: the root, a run_subtask level, the planner, the reviewer, or a plan step. */
function role(r: ProviderRequest): "root" | "subtask" | "planner" | "reviewer" | "step" {
  if (r.systemPrompt.startsWith("You are a planner")) return "planner";
  if (r.systemPrompt.startsWith("You review plans")) return "reviewer";
  if (firstUser(r).startsWith("sub:")) return "subtask";
  if (firstUser(r).startsWith("step:")) return "step";
  return "root";
}

/** Root: first a subtask and a plan, then it answers. */
function script(r: ProviderRequest): ScriptedStep {
  switch (role(r)) {
    case "planner":
      return { text: fence(plan) };
    case "reviewer":
      return { text: '{"verdict": "approve", "notes": ""}' };
    case "subtask":
      return { text: "sub done" };
    case "step":
      return { text: "entry written" };
    case "root":
      if (hasToolResult(r)) return { text: "logged" };
      return {
        toolCalls: [
          {
            id: "sub_1",
            name: "run_subtask",
            args: { title: "Check", instructions: "sub: check the weather" },
          },
          { id: "cp_1", name: "create_plan", args: { objective: "write the log" } },
        ],
      };
  }
}

describe("a scope reaches every level of its turn", () => {
  it("guidance is in the prompts of subtasks, plan steps, the planner and the reviewer; the scope's model runs them all", async () => {
    server = await startChatServer(script);
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "log today", chat_context: { kind: "logbook" } });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);

    const requests = server.provider.requests as ProviderRequest[];
    const byRole = (name: ReturnType<typeof role>) => requests.filter((r) => role(r) === name);
    for (const name of ["root", "subtask", "planner", "reviewer", "step"] as const) {
      const seen = byRole(name);
      expect(seen.length, name).toBeGreaterThan(0);
      for (const r of seen) {
        expect(r.systemPrompt, name).toContain(GUIDANCE);
        // The scope named a model and the message none: every call of the turn runs on it.
        expect(r.model, name).toBe("scripted-log");
      }
    }
    // The working rules are in the root's and the subtasks' prompts, naming the tools they have.
    for (const r of [...byRole("root"), ...byRole("subtask"), ...byRole("step")]) {
      expect(r.systemPrompt).toContain("Ask only when a missing detail would change the result");
      expect(r.systemPrompt).toContain("with send_update");
      expect(r.systemPrompt).toContain("deletes, overwrites or replaces what the user has");
      expect(r.systemPrompt).toContain("ask with ask_user first");
    }
  });

  it("a thread turn has no scope guidance anywhere; the message's own model wins over the scope's", async () => {
    server = await startChatServer(script);
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "log today" });
    const first = await client.collectUntil(isDone);
    expectWellFormedTurn(first);
    const plain = server.provider.requests.length;
    for (const r of server.provider.requests) {
      expect(r.systemPrompt).not.toContain(GUIDANCE);
      expect(r.model).toBe("scripted-1");
    }

    client.command("chat_message", {
      content: "log today",
      chat_context: { kind: "logbook" },
      model: "scripted-mine",
    });
    expectWellFormedTurn(await client.collectUntil(isDone));
    const scoped = server.provider.requests.slice(plain);
    expect(scoped.length).toBeGreaterThan(0);
    for (const r of scoped) expect(r.model).toBe("scripted-mine");

    // A scope naming only the server's provider keeps the server's default model.
    client.command("chat_message", { content: "hi", chat_context: { kind: "other" } });
    await client.collectUntil(isDone);
    expect(server.provider.requests.at(-1)?.model).toBe("scripted-1");
  });

  it("a turn resumed after the user's answer still gives its subtasks the scope's guidance", async () => {
    const steps: ScriptedStep[] = [
      { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which port?" } }] },
      { toolCalls: [{ id: "sub_2", name: "run_subtask", args: { title: "Go", instructions: "sub: sail" } }] },
      { text: "sub done" },
      { text: "logged" },
    ];
    server = await startChatServer(steps);
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "sail", chat_context: { kind: "logbook" } });
    const head = await client.collectUntil((f) => f.type === "question");
    client.command("answer", { thread_id: threadOf(head), tool_call_id: "ask_1", answer: "Lisbon" });
    await client.collectUntil(isDone);
    const sub = server.provider.requests[2] as ProviderRequest;
    expect(role(sub)).toBe("subtask");
    expect(sub.systemPrompt).toContain(GUIDANCE);
    expect(sub.model).toBe("scripted-log");
  });

  it("a scope naming a provider the server lacks: its turns are bad_request, naming the configured ones", async () => {
    server = await startChatServer([]);
    server.chat.scopes = ContextScopes.from({ scopes: { elsewhere: { provider: "nope" } } });
    const client = await server.connect();
    client.command("chat_message", { content: "hi", chat_context: { kind: "elsewhere" } }, "e1");
    const error = await client.next("error");
    expect(error).toMatchObject({ code: "bad_request", request_id: "e1" });
    expect(error.message).toContain('unknown provider "nope"; configured providers: scripted');
    expect(await server.repos.threads.list("local")).toHaveLength(0);
  });

  it("without ask_user or send_update in the toolbelt the rules do not name them", async () => {
    server = await startChatServer([{ text: "ok" }], { serverTools: async () => [] });
    server.chat.scopes = ContextScopes.from({
      scopes: { bare: { tools: { remove: ["send_update", "ask_user"] } } },
    });
    const client = await server.connect();
    client.command("chat_message", { content: "hi", chat_context: { kind: "bare" } });
    expectWellFormedTurn(await client.collectUntil(isDone));
    const prompt = server.provider.requests[0]?.systemPrompt ?? "";
    expect(server.provider.requests[0]?.tools.map((t) => t.name)).not.toContain("send_update");
    expect(prompt).not.toContain("send_update");
    expect(prompt).not.toContain("ask_user");
    expect(prompt).toContain("say what you need in your answer first");
  });
});
