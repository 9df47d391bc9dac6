import type { ModelDefaults, ProviderRegistry } from "../../providers/registry.js";
import { type NodeType, nodeError, nodeOk } from "../node-type.js";

/** The part of the server's provider registry (the one chat turns use) that llm.prompt needs. */
export type LlmProviders = Pick<ProviderRegistry, "resolve">;

const PROGRESS_STEP_CHARS = 64;

/** `llm.prompt`: one streamed model call; the node's provider/model properties override the chat's. */
export function createLlmPromptNode(providers: LlmProviders, defaults: ModelDefaults = {}): NodeType {
  return {
    type: "llm.prompt",
    description:
      "Asks the language model. Properties: provider?, model? (default: the chat's), max_tokens?. The system input (or property) sets instructions.",
    inputs: [
      { name: "prompt", schema: { type: "string" }, description: "the user prompt" },
      { name: "system", schema: { type: "string" }, optional: true, description: "system instructions" },
    ],
    outputs: [{ name: "text", schema: { type: "string" }, description: "the model's answer" }],
    process: async (inputs, ctx, signal) => {
      if (typeof inputs.prompt !== "string") return nodeError('input "prompt" must be a string');
      const props = ctx.properties;
      const providerId = typeof props.provider === "string" ? props.provider : ctx.input.provider;
      const model = typeof props.model === "string" ? props.model : ctx.input.model;
      const llm = providers.resolve({ provider: providerId, model }, defaults);
      if (!llm.ok) return nodeError(llm.message);
      if (!ctx.countLlmCall()) return nodeError("the turn's LLM call budget is exhausted");
      const maxTokens = typeof props.max_tokens === "number" ? props.max_tokens : undefined;
      let text = "";
      let reported = 0;
      for await (const ev of llm.provider.stream(
        {
          model: llm.model,
          systemPrompt: typeof inputs.system === "string" ? inputs.system : "",
          messages: [{ role: "user", content: inputs.prompt }],
          tools: [],
          ...(maxTokens !== undefined && { maxTokens }),
        },
        signal,
      )) {
        if (ev.type === "error") return nodeError(`${llm.provider.id} error: ${ev.error.message}`);
        if (ev.type !== "text-delta") continue;
        text += ev.text;
        if (text.length - reported >= PROGRESS_STEP_CHARS) {
          reported = text.length;
          ctx.progress(text);
        }
      }
      if (signal.aborted) return nodeError("aborted");
      return nodeOk({ text });
    },
  };
}
