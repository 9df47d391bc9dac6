import { contentText } from "@agentwire-chat/protocol";
import type { ModelMessage } from "../providers/model-message.js";
import type { ContextEntry } from "./assemble-context.js";

/** Longest text of one message the summarizer reads; longer ones are cut (head and tail kept). */
export const SUMMARIZER_MESSAGE_CHARS = 6_000;

/** The summarizer's instructions: what a rolling summary must keep, and the JSON it answers with. */
export const SUMMARIZER_SYSTEM_PROMPT = `You maintain the rolling summary of a long conversation between a user and an AI agent.
You get the current summary (possibly empty), the agent's scratchpad, and the next messages to fold in.
Write the new summary: it replaces the old one, so carry over everything from the old summary that still matters.

Keep, exactly as written:
- ids and names (of files, records, entities, tools, people, urls) the conversation used;
- every decision, choice, approval or refusal the user made, and what they asked for;
- facts from tool results that changed state (what was created, written, sent, deleted, and with which id) or that later steps rely on.
Drop greetings, repetition, and tool output nobody relied on. Messages marked as pasted documents are still
shown to the agent verbatim: summarize them in a line or two (what they are, their main points).
Write plain text, compact, in the past tense, at most about 600 words.

You may also propose changes to the scratchpad (open tasks, questions, assumptions the agent should keep in mind):
ops {"op":"add","kind":"task|note|idea|question|assumption","title":"...","details":"..."},
{"op":"update","id":"s1",...}, {"op":"resolve","id":"s1"}, {"op":"discard","id":"s1"}. Only use ids that exist.

Answer with one JSON object and nothing else: {"summary": "...", "scratchpad": [ ...ops ]}`;

/** The one user message the summarizer reads: old summary, scratchpad, then the messages as a transcript. */
export function summarizerInput(
  previous: string,
  scratchpad: string,
  entries: readonly ContextEntry[],
  pinnedIds: readonly string[],
): string {
  const pinned = new Set(pinnedIds);
  const lines = entries.map((e) => transcriptLine(e.message, pinned.has(e.id)));
  return [
    `<current_summary>\n${previous || "(none yet)"}\n</current_summary>`,
    `<scratchpad>\n${scratchpad || "(empty)"}\n</scratchpad>`,
    `<messages count="${entries.length}">\n${lines.join("\n\n")}\n</messages>`,
  ].join("\n\n");
}

/** One message of the transcript. */
export function transcriptLine(message: ModelMessage, pinned = false): string {
  switch (message.role) {
    case "user":
      return `[user${pinned ? ", pasted document kept verbatim" : ""}] ${cut(contentText(message.content))}`;
    case "assistant": {
      const calls = (message.toolCalls ?? []).map(
        (c) => `\n[assistant calls ${c.name} ${cut(JSON.stringify(c.args ?? {}))}] (id ${c.id})`,
      );
      return `[assistant] ${cut(message.text)}${calls.join("")}`;
    }
    case "tool":
      return `[result of ${message.name} (id ${message.toolCallId})${message.isError ? ", error" : ""}] ${cut(message.content)}`;
  }
}

function cut(text: string): string {
  if (text.length <= SUMMARIZER_MESSAGE_CHARS) return text;
  const half = SUMMARIZER_MESSAGE_CHARS / 2;
  return `${text.slice(0, half)} […${text.length - SUMMARIZER_MESSAGE_CHARS} characters cut…] ${text.slice(-half)}`;
}
