import type { ModelMessage } from "../providers/model-message.js";

/** A fresh turn: its model, its system prompt and the conversation it answers. */
export type StartFrom = {
  kind: "start";
  model: string;
  systemPrompt: string;
  /** The conversation so far, ending with the user's message; never mutated. */
  history: readonly ModelMessage[];
};
