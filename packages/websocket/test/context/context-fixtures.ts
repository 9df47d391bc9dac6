/** Helpers the context tests share: seeding long threads, telling summarizer calls from turn calls. */
import {
  ContextSettings,
  estimateTextTokens,
  estimateTokens,
  type ProviderRequest,
  SUMMARIZER_SYSTEM_PROMPT,
} from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { StoredMessage } from "@agentwire-chat/protocol";
import type { TestServer } from "@agentwire-chat/testkit/harness";

export const USER = "local";

/** Context settings for a test, over the defaults. */
export const settings = (over: Record<string, number | string> = {}) => ContextSettings.parse(over);

/** True for the summarizer's own call. */
export const isSummarizer = (request: ProviderRequest) => request.systemPrompt === SUMMARIZER_SYSTEM_PROMPT;

/** The summarizer's transcript of one call. */
export const transcript = (request: ProviderRequest) => {
  const first = request.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};

/** The estimated tokens of a request: what the server's context budget counts. */
export function requestTokens(request: ProviderRequest): number {
  let n = estimateTextTokens(request.systemPrompt) + estimateTextTokens(JSON.stringify(request.tools));
  for (const m of request.messages) n += estimateTokens(m);
  return n;
}

/** A summarizer answer with a summary and optional scratchpad ops. */
export function summaryStep(summary: string, scratchpad: unknown[] = []): ScriptedStep {
  return { text: JSON.stringify({ summary, scratchpad }), usage: { inputTokens: 500, outputTokens: 50 } };
}

/**
 * Seeds a thread with `units` exchanges of four rows each: the user's question, a tool call, its
 * result, the answer (markers q-007, call c-007, result r-007, answer a-007).
 */
export async function seedThread(
  server: TestServer,
  units: number,
): Promise<{ threadId: string; rows: StoredMessage[] }> {
  await server.repos.users.ensure(USER);
  const thread = await server.repos.threads.create(USER, "long thread");
  for (let k = 0; k < units; k++) {
    const n = String(k).padStart(3, "0");
    await append(server, thread.id, { role: "user", content: `question q-${n}` });
    await append(server, thread.id, {
      role: "assistant",
      content: `looking up ${n}`,
      toolCalls: [{ id: `c-${n}`, name: "lookup", args: { n: k } }],
    });
    await append(server, thread.id, { role: "tool", content: `result r-${n}`, toolCallId: `c-${n}` });
    await append(server, thread.id, { role: "assistant", content: `answer a-${n}` });
  }
  return { threadId: thread.id, rows: await server.repos.messages.list(USER, thread.id) };
}

/** Stores one complete row of the thread. */
export async function append(
  server: TestServer,
  threadId: string,
  row: {
    role: "user" | "assistant" | "tool";
    content: string;
    toolCalls?: { id: string; name: string; args: unknown }[];
    toolCallId?: string;
  },
): Promise<StoredMessage> {
  return server.repos.messages.append(USER, threadId, { status: "complete", ...row });
}

/** The rolling summary that covers the thread's current branch (summaries are kept per branch point). */
export async function branchSummary(server: TestServer, threadId: string) {
  const branch = await server.repos.messages.branch(USER, threadId);
  return server.repos.summaries.get(USER, threadId, branch?.ids ?? []);
}
