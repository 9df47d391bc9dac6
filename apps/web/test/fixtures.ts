import type { ExecutionTreeSnapshot, ServerFrame, StoredMessage, TurnUsage } from "@agentwire-chat/protocol";
import { recordedFrames } from "./recorded-frames.js";

/** Frames of scripted turns, stamped with a thread id and consecutive seqs like the server's registry. */
export function stamp(threadId: string, firstSeq: number, frames: ServerFrame[]): ServerFrame[] {
  return frames.map((f, i) => ({ ...f, thread_id: threadId, seq: firstSeq + i }) as ServerFrame);
}

const at = "2026-11-21T10:00:00.000Z";

export function row(partial: Partial<StoredMessage> & Pick<StoredMessage, "id" | "role">): StoredMessage {
  return { thread_id: "th_1", content: "", status: "complete", created_at: at, ...partial };
}

export const usage: TurnUsage = {
  input_tokens: 812,
  output_tokens: 31,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0.0023,
  cost_known: true,
  llm_calls: 2,
  tool_calls: 1,
  subtasks: 0,
};

const root = { parent_id: null, depth: 0 };

export function chunk(content: string, parent: string | null = null, depth = 0): ServerFrame {
  return { type: "chunk", content, parent_id: parent, depth };
}
export function done(): ServerFrame {
  return { type: "chunk", content: "", done: true, ...root };
}
export function toolStart(id: string, name: string, args: unknown, parent: string | null = null, depth = 0) {
  return {
    type: "tool_call_update",
    tool_call_id: id,
    name,
    status: "start",
    args,
    parent_id: parent,
    depth,
  } as const;
}
export function toolEnd(
  id: string,
  name: string,
  result: unknown,
  parent: string | null = null,
  depth = 0,
  extra: { is_error?: boolean; duration_ms?: number } = {},
) {
  return {
    type: "tool_call_update",
    tool_call_id: id,
    name,
    status: "end",
    result,
    parent_id: parent,
    depth,
    duration_ms: 5,
    ...extra,
  } as const;
}

/**
 * The docs/protocol.md example as the server recorded it (the `tool-call` fixture): a new thread, one
 * read_file call, a final answer; 15 frames.
 */
export function plainToolTurn(): ServerFrame[] {
  return recordedFrames("tool-call");
}

export const nestedTree: ExecutionTreeSnapshot = {
  version: 1,
  nodes: [
    {
      id: "s1",
      parent_id: null,
      name: "run_subtask",
      title: "Prices A",
      args_preview: '{"title":"Prices A"}',
      result_preview: "A: 3",
      duration_ms: 20,
    },
    {
      id: "s2",
      parent_id: null,
      name: "run_subtask",
      title: "Prices B",
      args_preview: '{"title":"Prices B"}',
      result_preview: "B: 4",
      duration_ms: 25,
    },
    {
      id: "a1",
      parent_id: "s1",
      name: "web_fetch",
      args_preview: '{"url":"https://a.example"}',
      result_preview: "3",
      duration_ms: 4,
    },
    {
      id: "b1",
      parent_id: "s2",
      name: "web_fetch",
      args_preview: '{"url":"https://b.example"}',
      result_preview: "boom",
      is_error: true,
      duration_ms: 6,
    },
  ],
};

/** Two parallel run_subtask calls whose events interleave, then a final answer. */
export function nestedTurn(firstSeq = 1): ServerFrame[] {
  return stamp("th_1", firstSeq, [
    { type: "message", message: row({ id: "m_u", role: "user", content: "Compare A and B" }) },
    chunk("Splitting the work."),
    toolStart("s1", "run_subtask", { title: "Prices A", prompt: "find A" }),
    {
      type: "tool_call_update",
      tool_call_id: "s2",
      name: "run_subtask",
      status: "start",
      title: "Prices B",
      args: { prompt: "find B" },
      ...root,
    },
    chunk("Looking up A", "s1", 1),
    chunk("Looking up B", "s2", 1),
    toolStart("a1", "web_fetch", { url: "https://a.example" }, "s1", 1),
    toolStart("b1", "web_fetch", { url: "https://b.example" }, "s2", 1),
    chunk(" now.", "s1", 1),
    toolEnd("b1", "web_fetch", "boom", "s2", 1, { is_error: true, duration_ms: 6 }),
    toolEnd("a1", "web_fetch", "3", "s1", 1, { duration_ms: 4 }),
    toolEnd("s1", "run_subtask", "A: 3", null, 0, { duration_ms: 20 }),
    toolEnd("s2", "run_subtask", "B: 4", null, 0, { duration_ms: 25 }),
    {
      type: "message",
      message: row({
        id: "m_a1",
        role: "assistant",
        content: "Splitting the work.",
        tool_calls: [
          { id: "s1", name: "run_subtask", args: { title: "Prices A" } },
          { id: "s2", name: "run_subtask", args: { title: "Prices B" } },
        ],
      }),
    },
    chunk("A is cheaper."),
    {
      type: "message",
      message: row({
        id: "m_a2",
        role: "assistant",
        content: "A is cheaper.",
        execution_tree: nestedTree,
        usage,
      }),
    },
    { type: "usage", ...usage },
    done(),
  ]);
}

/** The stored rows of nestedTurn, as `GET /api/threads/th_1/messages` returns them. */
export function nestedRows(): StoredMessage[] {
  return [
    row({ id: "m_u", role: "user", content: "Compare A and B" }),
    row({
      id: "m_a1",
      role: "assistant",
      content: "Splitting the work.",
      tool_calls: [
        { id: "s1", name: "run_subtask", args: { title: "Prices A" } },
        { id: "s2", name: "run_subtask", args: { title: "Prices B" } },
      ],
    }),
    row({ id: "m_t1", role: "tool", tool_call_id: "s1", content: "A: 3" }),
    row({ id: "m_t2", role: "tool", tool_call_id: "s2", content: "B: 4" }),
    row({ id: "m_a2", role: "assistant", content: "A is cheaper.", execution_tree: nestedTree, usage }),
  ];
}

/**
 * MAX_TOTAL_SUBTASKS=1 and two subtasks, as the real server sends it: the second is refused before
 * it starts, the budget trips, and the first is cut short.
 */
export function budgetTurn(): ServerFrame[] {
  const refused = "stopped: the turn's budget is exhausted";
  const cut = 'subtask "Part A" stopped: the turn\'s budget is exhausted';
  // The scripted provider reports no tokens.
  const spent: TurnUsage = {
    ...usage,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    cost_known: false,
    llm_calls: 2,
    tool_calls: 2,
    subtasks: 1,
  };
  return stamp("th_b", 1, [
    { type: "message", message: row({ id: "u_b", role: "user", content: "Deep" }) },
    { type: "agent_state", state: "thinking" },
    chunk("Split."),
    {
      type: "message",
      message: row({
        id: "a_b0",
        role: "assistant",
        content: "Split.",
        tool_calls: [
          { id: "A", name: "run_subtask", args: { title: "Part A", instructions: "Do A" } },
          { id: "B", name: "run_subtask", args: { title: "Part B", instructions: "Do B" } },
        ],
      }),
    },
    { type: "agent_state", state: "executing" },
    toolStart("A", "run_subtask", { title: "Part A", instructions: "Do A" }),
    toolStart("B", "run_subtask", { title: "Part B", instructions: "Do B" }),
    chunk("Starting A.", "A", 1),
    toolEnd("B", "run_subtask", refused, null, 0, { is_error: true }),
    { type: "budget_exceeded", reason: "subtasks", limit: 1, observed: 2 },
    toolEnd("A", "run_subtask", cut, null, 0, { is_error: true }),
    {
      type: "message",
      message: row({ id: "t_a", role: "tool", tool_call_id: "A", content: cut, is_error: true }),
    },
    {
      type: "message",
      message: row({ id: "t_b", role: "tool", tool_call_id: "B", content: refused, is_error: true }),
    },
    {
      type: "message",
      message: row({
        id: "a_b",
        role: "assistant",
        // The turn's last assistant text: the model wrote nothing after the tool calls.
        content: "Split.",
        status: "budget_exceeded",
        usage: spent,
        execution_tree: {
          version: 1,
          nodes: [
            {
              id: "A",
              parent_id: null,
              name: "run_subtask",
              title: "Part A",
              result_preview: cut,
              is_error: true,
              duration_ms: 5,
              // Cut short by the budget: the server stores what it streamed.
              text: "Starting A.",
            },
            {
              id: "B",
              parent_id: null,
              name: "run_subtask",
              title: "Part B",
              result_preview: refused,
              is_error: true,
              duration_ms: 5,
            },
          ],
        },
      }),
    },
    { type: "usage", ...spent },
    { type: "agent_state", state: "idle" },
    done(),
  ]);
}

/** ask_user answered, as the real server sends it, and the rows it stores. */
export function askTurn(): { frames: ServerFrame[]; rows: StoredMessage[] } {
  const ask = { id: "q1", name: "ask_user", args: { question: "Which colour?" } };
  const tree: ExecutionTreeSnapshot = {
    version: 1,
    nodes: [
      {
        id: "q1",
        parent_id: null,
        name: "ask_user",
        args_preview: '{"question":"Which colour?"}',
        result_preview: "blue",
        duration_ms: 5,
      },
    ],
  };
  const rows = [
    row({ id: "u_q", role: "user", content: "Ask me" }),
    row({ id: "a_q1", role: "assistant", content: "", tool_calls: [ask] }),
    row({ id: "t_q", role: "tool", tool_call_id: "q1", content: "blue" }),
    row({ id: "a_q2", role: "assistant", content: "You chose blue.", execution_tree: tree, usage }),
  ];
  const frames = stamp("th_q", 1, [
    { type: "message", message: rows[0]! },
    { type: "agent_state", state: "thinking" },
    { type: "message", message: rows[1]! },
    { type: "agent_state", state: "executing" },
    toolStart("q1", "ask_user", ask.args),
    { type: "question", tool_call_id: "q1", question: "Which colour?" },
    { type: "agent_state", state: "waiting_on_user" },
    toolEnd("q1", "ask_user", "blue"),
    { type: "message", message: rows[2]! },
    { type: "agent_state", state: "thinking" },
    chunk("You chose blue."),
    { type: "message", message: rows[3]! },
    { type: "usage", ...usage },
    { type: "agent_state", state: "idle" },
    done(),
  ]);
  return { frames, rows };
}
