import type { ModelMessage, ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { Gate } from "./scripted-chat.js";

/** The plan the scripted planner answers with: one parallel stage of two steps. */
export const comparePlan = {
  goal: "Compare the two shops",
  stages: [
    {
      id: "gather",
      name: "Gather prices",
      mode: "parallel",
      steps: [
        { id: "a", title: "Price of A", instructions: "Plan step A" },
        { id: "b", title: "Price of B", instructions: "Plan step B" },
      ],
    },
  ],
};

export type LongTaskGates = { writing: Gate };

/**
 * The long-task scenarios (issue 15), chosen by the conversation's first user message like
 * scripted-chat.ts: progress updates, the scratchpad, a draft plan, a held answer. The planner's
 * call starts with `Objective: …`; a plan step's subtask with its instructions.
 */
export function longTaskResponder(gates: LongTaskGates) {
  return (request: ProviderRequest): ScriptedStep => {
    const first = textOf(request.messages.find((m) => m.role === "user"));
    const results = request.messages.filter((m) => m.role === "tool");
    const last = results[results.length - 1];
    const lastContent = last?.role === "tool" ? last.content : undefined;
    switch (first) {
      case "Report progress":
        return results.length === 0
          ? {
              text: "Starting the long job.",
              toolCalls: [{ name: "send_update", args: { message: "Half way there: 5 of 10 files read." } }],
            }
          : { text: "All ten files are read." };
      case "Take notes":
        return results.length === 0
          ? {
              toolCalls: [
                {
                  name: "scratchpad_update",
                  args: {
                    ops: [
                      { op: "add", kind: "task", title: "Read the report", details: "Chapters 1 to 3" },
                      { op: "add", kind: "question", title: "Which year is meant?" },
                      { op: "add", kind: "note", title: "Budget is 5k" },
                    ],
                  },
                },
              ],
            }
          : results.length === 1
            ? { toolCalls: [{ name: "scratchpad_update", args: { ops: [{ op: "resolve", id: "s1" }] } }] }
            : { text: "Noted." };
      case "Plan the comparison":
        if (lastContent?.includes("awaiting_user_review"))
          return { text: "The plan is ready for your review." };
        if (lastContent?.includes('"status":"complete"'))
          return { text: "Both prices are in: A is cheaper." };
        return {
          toolCalls: [
            { name: "create_plan", args: { objective: "Compare the shops", execution_mode: "draft_only" } },
          ],
        };
      case "Objective: Compare the shops":
        return { text: `\`\`\`json\n${JSON.stringify(comparePlan)}\n\`\`\`` };
      case "Plan step A":
        return { text: "A costs 3." };
      case "Plan step B":
        return { text: "B costs 4." };
      case "Write slowly":
        return { text: "Drafting the answer. ", hold: gates.writing.promise };
      case "Ask me":
        return results.length === 0
          ? { toolCalls: [{ name: "ask_user", args: { question: "Which colour?" } }] }
          : { text: `You chose ${lastContent}.` };
      default:
        return { text: `No script for ${JSON.stringify(first)}.` };
    }
  };
}

function textOf(message: ModelMessage | undefined): string {
  if (!message || message.role !== "user") return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}
