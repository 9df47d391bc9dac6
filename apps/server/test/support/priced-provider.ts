// Loaded by the server process through AGENTWIRE_SCRIPTED_PROVIDER in the spend-limit tests.

import { ScriptedProvider } from "@agentwire-chat/agents/testing";

/**
 * Answers every call reporting 2M input tokens: $0.30 when the turn names gpt-4o-mini ($0.15 per
 * million), so the ledger's spend after one turn is known.
 */
export default new ScriptedProvider(() => ({
  text: "an expensive answer",
  usage: { inputTokens: 2_000_000, outputTokens: 0 },
}));
