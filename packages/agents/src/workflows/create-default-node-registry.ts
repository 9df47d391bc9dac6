import type { ModelDefaults } from "../providers/registry.js";
import type { GuardedGetOptions } from "../tools/builtin/web/guarded-get.js";
import { NodeRegistry } from "./node-registry.js";
import { createHttpGetNode } from "./nodes/http-get-node.js";
import { inputTextNode } from "./nodes/input-text-node.js";
import { jsonExtractNode } from "./nodes/json-extract-node.js";
import { createLlmPromptNode, type LlmProviders } from "./nodes/llm-prompt-node.js";
import { outputTextNode } from "./nodes/output-text-node.js";
import { textTemplateNode } from "./nodes/text-template-node.js";

/** What the starter node types need from the server. */
export type DefaultNodeDeps = {
  /** The server's provider registry (the same one chat turns use), for llm.prompt. */
  providers: LlmProviders;
  /** The server-wide default provider/model, used when neither the node nor the chat names one. */
  modelDefaults?: ModelDefaults;
  /** Options of http.get (allow-list, limits): the guarded client web_fetch uses, with the same options. */
  http?: GuardedGetOptions;
};

/** A registry with the starter set: input.text, llm.prompt, text.template, json.extract, http.get, output.text. */
export function createDefaultNodeRegistry(deps: DefaultNodeDeps): NodeRegistry {
  const registry = new NodeRegistry();
  for (const node of [
    inputTextNode,
    createLlmPromptNode(deps.providers, deps.modelDefaults),
    textTemplateNode,
    jsonExtractNode,
    createHttpGetNode(deps.http),
    outputTextNode,
  ]) {
    const res = registry.register(node);
    // The starter set is ours: a refusal here is a bug, not an operator mistake.
    if (!res.ok) throw new Error(`createDefaultNodeRegistry: ${res.error}`);
  }
  return registry;
}
