// Seeding for the ttft benchmark's long-thread part: threads of N stored messages (user question, tool
// call, tool result, answer), a rolling summary covering all but the verbatim tail, a few scratchpad items.
import type { Repositories } from "@agentwire-chat/storage";

export const BENCH_USER = "local";

/** A thread of `messages` rows (a multiple of 4 is exact); with a summary over all but the last `tail`. */
export async function seedLongThread(
  repos: Repositories,
  messages: number,
  summary: { tail: number } | undefined,
): Promise<string> {
  await repos.users.ensure(BENCH_USER);
  const thread = await repos.threads.create(BENCH_USER, `bench ${messages}`);
  const ids: string[] = [];
  const add = async (row: Parameters<Repositories["messages"]["append"]>[2]) => {
    ids.push((await repos.messages.append(BENCH_USER, thread.id, row)).id);
  };
  for (let k = 0; ids.length < messages; k++) {
    await add({
      role: "user",
      status: "complete",
      content: `question ${k}: ${"how does this work? ".repeat(10)}`,
    });
    if (ids.length >= messages) break;
    const call = { id: `call_${k}`, name: "web_fetch", args: { url: `https://example.com/${k}` } };
    await add({ role: "assistant", status: "complete", content: "", toolCalls: [call] });
    if (ids.length >= messages) break;
    await add({
      role: "tool",
      status: "complete",
      content: `result ${k} ${"lorem ipsum ".repeat(40)}`,
      toolCallId: call.id,
    });
    if (ids.length >= messages) break;
    await add({
      role: "assistant",
      status: "complete",
      content: `answer ${k}: ${"it works like this. ".repeat(15)}`,
    });
  }
  if (summary) {
    const covered = messages - summary.tail;
    await repos.summaries.put(BENCH_USER, thread.id, {
      summary: `The user asked ${covered / 4} questions about how things work; ${"facts and ids kept. ".repeat(100)}`,
      throughMessageId: ids[covered - 1] as string,
      messageCount: covered,
    });
    await repos.scratchpad.apply(BENCH_USER, thread.id, [
      { op: "add", kind: "task", title: "finish the comparison table" },
      { op: "add", kind: "note", title: "user prefers short answers", details: "said so in question 3" },
      { op: "add", kind: "question", title: "which region?" },
    ]);
  }
  return thread.id;
}
