/**
 * The turns the kill -9 tests interrupt, one per kill point; the child server process and the
 * restarted server build the same chat services from them, so a waiting turn can be answered after
 * the restart.
 */
import { createProviderRegistry, type ProviderRequest } from "@agentwire-chat/agents";
import { ScriptedProvider, type ScriptedStep } from "@agentwire-chat/agents/testing";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { type ChatServices, createChatServices } from "../../src/index.js";

export type KillScenario = "stream" | "parallel" | "question" | "approval" | "commit";

const lastTool = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "tool" ? last.content : undefined;
};
const instructions = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};

const lastUser = (r: ProviderRequest) => {
  const user = r.messages.findLast((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : "";
};

/** After the restart the thread's next message gets a plain answer, whatever the scenario. */
const STILL_THERE = "still there?";

/** How long each parallel subtask runs before it streams: a lower bound of its real duration. */
export const SUBTASK_RUNS_MS = 50;

const scenarioSteps: Record<KillScenario, (r: ProviderRequest) => ScriptedStep> = {
  // The root streams, then hangs in the middle of its answer.
  stream: () => ({ text: ["Half ", "an ", "answer"], hold: "until-aborted" }),
  // Two subtasks in parallel; each runs a while (the stored durations must cover it), streams, then hangs.
  parallel: (r) => {
    const task = instructions(r);
    if (task.startsWith("part ")) {
      return { delayMs: SUBTASK_RUNS_MS, text: [`${task}: `, "working"], hold: "until-aborted" };
    }
    return {
      text: "Splitting.",
      toolCalls: [
        { id: "s1", name: "run_subtask", args: { title: "A", instructions: "part A" } },
        { id: "s2", name: "run_subtask", args: { title: "B", instructions: "part B" } },
      ],
    };
  },
  question: (r) => {
    const answer = lastTool(r);
    return answer === undefined
      ? {
          text: "One question first.",
          toolCalls: [{ id: "q1", name: "ask_user", args: { question: "Proceed?" } }],
        }
      : { text: `You said: ${answer}` };
  },
  approval: (r) => {
    const result = lastTool(r);
    return result === undefined
      ? { toolCalls: [{ id: "w1", name: "write_note", args: { text: "hello" } }] }
      : { text: `Wrote it: ${result}` };
  },
  // A first commit (thread, user message, first text) goes out; the next one never completes.
  commit: (r) =>
    lastTool(r) === undefined
      ? { text: "First part.", toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }] }
      : { delayMs: 20, text: ["never ", "seen"], hold: "until-aborted" },
};

const responders = Object.fromEntries(
  Object.entries(scenarioSteps).map(([name, step]) => [
    name,
    (r: ProviderRequest): ScriptedStep => (lastUser(r) === STILL_THERE ? { text: "Yes." } : step(r)),
  ]),
) as Record<KillScenario, (r: ProviderRequest) => ScriptedStep>;

/** Chat services for a scenario: its scripted provider, the echo and write_note tools, write_note gated. */
export function scenarioChat(scenario: KillScenario): ChatServices {
  const providers = createProviderRegistry(
    {},
    {
      extraProviders: [new ScriptedProvider(responders[scenario])],
      extraDefaultModels: { scripted: "scripted-1" },
    },
  );
  const base = createChatServices({ providers });
  return createChatServices({
    providers,
    defaults: { provider: "scripted" },
    policy: { workspaceWrite: "ask" },
    serverTools: async (scope) => [
      ...(await base.serverTools(scope)),
      echoTool(),
      echoTool("write_note", "workspace_write"),
    ],
  });
}
