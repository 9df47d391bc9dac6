import {
  AnthropicProvider,
  type AnthropicProviderOptions,
} from "../../../src/providers/anthropic/anthropic-provider.js";
import { OpenAIProvider, type OpenAIProviderOptions } from "../../../src/providers/openai/openai-provider.js";

export const TEST_OPENAI_KEY = "sk-test-0123456789abcdefSECRET";
export const TEST_ANTHROPIC_KEY = "sk-ant-test-0123456789SECRET";

/** An OpenAI provider pointed at a mock server; no retries and a short timeout unless overridden. */
export function openaiAt(url: string, overrides: Partial<OpenAIProviderOptions> = {}): OpenAIProvider {
  return new OpenAIProvider({
    id: "openai",
    apiKey: TEST_OPENAI_KEY,
    baseURL: `${url}/v1`,
    maxRetries: 0,
    timeoutMs: 5_000,
    maxRetryDelayMs: 1_000,
    ...overrides,
  });
}

/** An Anthropic provider pointed at a mock server; no retries and a short timeout unless overridden. */
export function anthropicAt(
  url: string,
  overrides: Partial<AnthropicProviderOptions> = {},
): AnthropicProvider {
  return new AnthropicProvider({
    apiKey: TEST_ANTHROPIC_KEY,
    baseURL: url,
    maxRetries: 0,
    timeoutMs: 5_000,
    maxRetryDelayMs: 1_000,
    ...overrides,
  });
}
