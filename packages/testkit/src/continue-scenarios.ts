/**
 * The turns the crash-continue tests kill and continue: the child server process and the restarted
 * server build the same chat services from them. Tools with a side effect append a line to a file in
 * `dir` per run, so a test counts how often each really ran; in the child (`inChild`) of `in-flight`
 * they then hang, so the kill finds them in flight.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import {
  createProviderRegistry,
  defineTool,
  ok,
  type ProviderRequest,
  RESTARTED,
  type Tool,
} from "@agentwire-chat/agents";
import { ScriptedProvider, type ScriptedStep } from "@agentwire-chat/agents/testing";
import { AdmissionQueue, type ChatServices, createChatServices } from "@agentwire-chat/websocket";
import { z } from "zod";
import { echoTool } from "./test-tools.js";

export type ContinueScenario =
  | "second-call"
  | "in-flight"
  | "crash-loop"
  | "subtask"
  | "subtask-first-call"
  | "subtask-asks"
  | "first-call"
  | "plan-step";

/** The plan of `plan-step`: three steps one after another; the first runs a tool with a side effect. */
export const threeStepPlan = {
  goal: "three parts",
  stages: [
    {
      id: "work",
      name: "Work",
      mode: "sequence",
      steps: [
        { id: "one", title: "One", instructions: "step one" },
        { id: "two", title: "Two", instructions: "step two" },
        { id: "three", title: "Three", instructions: "step three" },
      ],
    },
  ],
};

/** A tool that appends its text to `<dir>/<name>.log` each time it runs, then (in the child) hangs until aborted. */
function sideEffectTool(name: string, idempotent: boolean, dir: string, hang: boolean): Tool {
  return defineTool({
    name,
    description: `Test tool ${name}: appends a line.`,
    args: z.object({ text: z.string() }),
    permissionClass: "workspace_write",
    idempotent,
    execute: async ({ text }, ctx) => {
      appendFileSync(join(dir, `${name}.log`), `${text}\n`);
      if (hang) await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      return ok(`${name}:${text}`);
    },
  });
}

const task = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};

const lastTool = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "tool" ? last : undefined;
};

/** Kills this process once the group commit queued before now has run (setImmediate callbacks run in order). */
async function crashAfterCommit(): Promise<ScriptedStep> {
  await new Promise((resolve) => setImmediate(resolve));
  process.kill(process.pid, "SIGKILL");
  return { text: "never" };
}

function step(
  scenario: ContinueScenario,
  inChild: boolean,
  r: ProviderRequest,
): ScriptedStep | Promise<ScriptedStep> {
  const last = lastTool(r);
  switch (scenario) {
    case "second-call":
      // Each call reports its usage at its end: the one the kill cuts never does.
      if (!last)
        return {
          text: "Looking.",
          toolCalls: [{ id: "a1", name: "append_line", args: { text: "one" } }],
          usage: { inputTokens: 100, outputTokens: 10 },
        };
      if (last.toolCallId === "a1")
        return inChild
          ? {
              text: ["Half ", "an answer"],
              hold: "until-aborted",
              usage: { inputTokens: 999, outputTokens: 99 },
            }
          : {
              text: "Checking.",
              toolCalls: [{ id: "e2", name: "echo", args: { text: "two" } }],
              usage: { inputTokens: 200, outputTokens: 20 },
            };
      return { text: "All done.", usage: { inputTokens: 300, outputTokens: 30 } };
    case "in-flight":
      if (!last)
        return {
          text: "Both.",
          toolCalls: [
            { id: "a1", name: "append_line", args: { text: "x" } },
            { id: "p1", name: "put_value", args: { text: "y" } },
          ],
        };
      return { text: "Done after the restart." };
    case "subtask":
      // Two parallel subtasks: B answers at once; A runs a tool, then is cut in its second model call.
      if (task(r) === "part B") return { text: "B done" };
      if (task(r) === "part A") {
        if (!last) return { toolCalls: [{ id: "a1", name: "append_line", args: { text: "A" } }] };
        return inChild ? { text: ["A ", "half"], hold: "until-aborted" } : { text: "A done" };
      }
      if (!last)
        return {
          text: "Splitting.",
          toolCalls: [
            { id: "s1", name: "run_subtask", args: { title: "A", instructions: "part A" } },
            { id: "s2", name: "run_subtask", args: { title: "B", instructions: "part B" } },
          ],
        };
      return { text: "Both parts done." };
    case "subtask-first-call":
      // One subtask cut in its first model call: it starts again from its instructions.
      if (task(r) === "part R")
        return inChild ? { text: ["R ", "half"], hold: "until-aborted" } : { text: "R whole" };
      if (!last)
        return {
          text: "Delegating.",
          toolCalls: [{ id: "s1", name: "run_subtask", args: { title: "R", instructions: "part R" } }],
        };
      return { text: "Restarted and done." };
    case "subtask-asks":
      // One subtask runs a tool, is cut in its second model call, and once continued asks the user.
      if (task(r) === "part Q") {
        if (!last) return { toolCalls: [{ id: "a1", name: "append_line", args: { text: "Q" } }] };
        if (last.toolCallId === "a1")
          return inChild
            ? { text: ["Q ", "half"], hold: "until-aborted" }
            : { toolCalls: [{ id: "q1", name: "ask_user", args: { question: "Which color?" } }] };
        return { text: `Q chose ${typeof last.content === "string" ? last.content : "?"}` };
      }
      if (!last)
        return {
          text: "Delegating.",
          toolCalls: [{ id: "s1", name: "run_subtask", args: { title: "Q", instructions: "part Q" } }],
        };
      return { text: "Asked and done." };
    case "first-call":
      // Cut before any step completed: "first" in its first model call, "second" still queued behind it.
      if (task(r) === "second") return { text: "Second done." };
      return inChild ? { text: ["Half ", "a start"], hold: "until-aborted" } : { text: "Started over." };
    case "plan-step":
      // A draft, approved by the user; its run is cut in step two's model call, after step one's tool.
      if (r.systemPrompt.startsWith("You are a planner"))
        return { text: `\`\`\`json\n${JSON.stringify(threeStepPlan)}\n\`\`\`` };
      if (r.systemPrompt.startsWith("You are a focused sub-agent")) {
        const step = task(r).split("\n")[0];
        if (step === "step one" && !last)
          return { toolCalls: [{ id: "a1", name: "append_line", args: { text: "one" } }] };
        if (step === "step two" && inChild) return { text: ["two ", "half"], hold: "until-aborted" };
        return { text: `did ${step}` };
      }
      if (!last)
        return {
          toolCalls: [
            { id: "cp1", name: "create_plan", args: { objective: "parts", execution_mode: "draft_only" } },
          ],
        };
      if (last.toolCallId === "cp1") return { text: "Draft ready." };
      return { text: last.content === RESTARTED ? "The plan was cut by a restart." : "Plan finished." };
    case "crash-loop":
      if (!last) return { text: "Step.", toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }] };
      // Every process that makes this call dies in it. Not before the commit queued ahead of the call
      // (it waits for this event-loop turn's end), as a real model call's network round trip would not.
      return crashAfterCommit();
  }
}

/**
 * Chat services for a scenario: its scripted provider (returned too: its `requests` record every
 * model call), echo, and the side-effect tools over `dir`.
 */
export function continueChat(
  scenario: ContinueScenario,
  dir: string,
  inChild: boolean,
): { chat: ChatServices; provider: ScriptedProvider } {
  const provider = new ScriptedProvider((r) => step(scenario, inChild, r));
  const providers = createProviderRegistry(
    {},
    {
      extraProviders: [provider],
      extraDefaultModels: { scripted: "scripted-1" },
    },
  );
  const base = createChatServices({ providers });
  const hang = inChild && scenario === "in-flight";
  const chat = createChatServices({
    providers,
    // One live turn in the child of first-call, so its second turn waits in the queue when the kill comes.
    ...(inChild && scenario === "first-call" && { admission: new AdmissionQueue({ maxLiveTurns: 1 }) }),
    defaults: { provider: "scripted" },
    serverTools: async (scope) => [
      ...(await base.serverTools(scope)),
      echoTool(),
      // Killed while they run only where the scenario wants calls in flight.
      sideEffectTool("append_line", false, dir, hang),
      sideEffectTool("put_value", true, dir, hang),
    ],
  });
  return { chat, provider };
}
