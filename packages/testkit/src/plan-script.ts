import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { contentText } from "@agentwire-chat/protocol";

/** The planner's plan: two parallel research steps, then a step that writes from both. */
export const plan = {
  goal: "a short report",
  stages: [
    {
      id: "research",
      name: "Research",
      mode: "parallel",
      steps: [
        { id: "facts", title: "Collect facts", instructions: "collect facts" },
        { id: "quotes", title: "Find quotes", instructions: "find quotes" },
      ],
    },
    {
      id: "write",
      name: "Write",
      mode: "sequence",
      steps: [{ id: "draft", title: "Write it", instructions: "write it", inputs: ["facts", "quotes"] }],
    },
  ],
};

export const lastMessage = (r: ProviderRequest) => r.messages.at(-1);
export const firstText = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? contentText(first.content) : "";
};

/**
 * Root: "make a report (<mode>)" → create_plan in that mode; after a tool result → "finished: …";
 * after any other user message → "noted: <message>". Planner → the plan; steps → "did <task>".
 */
export function script(r: ProviderRequest): ScriptedStep {
  if (r.systemPrompt.startsWith("You are a planner"))
    return { text: `\`\`\`json\n${JSON.stringify(plan)}\n\`\`\`` };
  if (r.systemPrompt.startsWith("You are a focused sub-agent")) {
    return { text: `did ${firstText(r).split("\n")[0]}` };
  }
  const last = lastMessage(r);
  if (last?.role === "tool") return { text: `finished: ${last.content.slice(0, 40)}` };
  const said = last?.role === "user" ? contentText(last.content) : "";
  const mode = /make a report \((\w+)\)/.exec(said)?.[1];
  if (mode) {
    return {
      toolCalls: [{ id: "cp1", name: "create_plan", args: { objective: "a report", execution_mode: mode } }],
    };
  }
  return { text: `noted: ${said}` };
}
