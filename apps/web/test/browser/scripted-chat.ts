import type { ModelMessage, ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";

/** A promise the test resolves by hand: the provider waits on it mid-turn. */
export class Gate {
  readonly promise: Promise<void>;
  open!: () => void;
  constructor() {
    this.promise = new Promise((resolve) => {
      this.open = resolve;
    });
  }
}

export type ScriptGates = {
  drop: Gate;
  away: Gate;
  /** Holds subtask A after its first text, so a test sees subtask text stream while it runs. */
  subtask: Gate;
  /** Holds the answer after its first text: the page is mid-stream. */
  writing: Gate;
};

/** A fresh set of gates, all closed. */
export function newGates(): ScriptGates {
  return { drop: new Gate(), away: new Gate(), subtask: new Gate(), writing: new Gate() };
}

/**
 * One provider for every browser scenario: the conversation's first user message says which one
 * (each test starts a new thread; a subtask's conversation starts with its instructions).
 */
export function respondFor(gates: ScriptGates) {
  return (request: ProviderRequest): ScriptedStep => {
    const first = textOf(request.messages.find((m) => m.role === "user"));
    const results = request.messages.filter((m) => m.role === "tool");
    const lastResult = results[results.length - 1];
    switch (first) {
      case "Say hello":
        return { text: ["Hello ", "from **agentwire**."], usage: { inputTokens: 1200, outputTokens: 7 } };
      case "Long answer":
        return { text: Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1} of a long answer.\n\n`) };
      case "Write slowly":
        return { text: "Drafting the answer. ", hold: gates.writing.promise };
      case "Compare A and B":
        return results.length === 0
          ? {
              text: "Splitting the work.",
              toolCalls: [
                { name: "run_subtask", args: { title: "Prices A", instructions: "Find price A" } },
                { name: "run_subtask", args: { title: "Prices B", instructions: "Find price B" } },
              ],
            }
          : { text: "A is cheaper." };
      case "Find price A":
      case "Find price B": {
        const which = first.slice(-1);
        return results.length === 0
          ? {
              text: `Looking up ${which}.`,
              ...(which === "A" && { hold: gates.subtask.promise }),
              toolCalls: [{ name: "lookup_price", args: { shop: which } }],
            }
          : { text: `${which} costs ${which === "A" ? 3 : 4}.` };
      }
      // With a model-call budget of 1 it stops after the lookup; Continue brings the answer.
      case "Price in steps":
        return results.length === 0
          ? { text: "Looking up A. ", toolCalls: [{ name: "lookup_price", args: { shop: "A" } }] }
          : { text: "A costs 3, after the lookup." };
      case "Deep work":
        return results.length === 0
          ? {
              text: "Handing it to a subtask.",
              toolCalls: [{ name: "run_subtask", args: { title: "Part A", instructions: "Split A" } }],
            }
          : { text: "Done." };
      case "Split A":
        // With MAX_TOTAL_SUBTASKS=2, A1 is the second subtask and A2 the third: refused.
        return {
          text: "Splitting A.",
          toolCalls: [
            { name: "run_subtask", args: { title: "A1", instructions: "Inner" } },
            { name: "run_subtask", args: { title: "A2", instructions: "Inner" } },
          ],
        };
      case "Inner":
        return { text: "inner result" };
      case "Work slowly":
        return { text: "Working on it.", hold: "until-aborted" };
      case "Ask me":
        return results.length === 0
          ? { toolCalls: [{ name: "ask_user", args: { question: "Which colour?" } }] }
          : { text: `You chose ${lastResult?.content}.` };
      case "Ask inside":
        return results.length === 0
          ? {
              toolCalls: [
                { name: "run_subtask", args: { title: "Pick a shade", instructions: "Ask nested" } },
              ],
            }
          : { text: "Picked." };
      // With MAX_DEPTH=1 the subtask's own run_subtask is refused; the subtask and the turn go on.
      case "Nest too deep":
        return results.length === 0
          ? { toolCalls: [{ name: "run_subtask", args: { title: "Outer", instructions: "Go deeper" } }] }
          : { text: "Finished anyway." };
      case "Go deeper":
        return results.length === 0
          ? {
              toolCalls: [
                { name: "lookup_price", args: { shop: "A" } },
                { name: "run_subtask", args: { title: "Too deep", instructions: "Inner" } },
              ],
            }
          : { text: "Outer went on." };
      case "Ask nested":
        return results.length === 0
          ? { toolCalls: [{ name: "ask_user", args: { question: "Which shade?" } }] }
          : { text: `Shade ${lastResult?.content}.` };
      case "Write the file":
        return results.length === 0
          ? { toolCalls: [{ name: "save_note", args: { path: "note.txt", content: "hi" } }] }
          : { text: lastResult?.isError ? "Could not save." : "Saved note.txt." };
      case "Drop test":
      case "Away test": {
        const gate = first === "Drop test" ? gates.drop : gates.away;
        return results.length === 0
          ? {
              text: "Part one. ",
              hold: gate.promise,
              toolCalls: [{ name: "lookup_price", args: { shop: "A" } }],
            }
          : { text: "Part two." };
      }
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
