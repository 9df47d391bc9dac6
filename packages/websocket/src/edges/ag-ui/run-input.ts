import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { AgentwireError, isPrintable } from "@agentwire-chat/protocol";
import { parseInterruptId } from "./interrupt-ids.js";

const DECISIONS = ["allow", "allow_for_thread", "deny"] as const;
type Decision = (typeof DECISIONS)[number];

/** What one AG-UI run asks of the native protocol: a new message, or the answer to the turn's interrupt. */
export type AgUiIntent =
  /**
   * `history`: the texts of the user messages before it, when the client's messages hold the
   * conversation from its start (the route places the message against the stored branch with them).
   */
  | { kind: "message"; content: string; history?: string[] }
  | { kind: "answer"; toolCallId: string; answer: string }
  | { kind: "approval"; approvalId: string; decision: Decision }
  /** The user dismissed the question: the waiting turn is stopped. */
  | { kind: "stop" };

/** A validated RunAgentInput, reduced to what agentwire uses of it. */
export interface AgUiRunRequest {
  threadId: string;
  runId: string;
  intent: AgUiIntent;
}

// A thread id is kept in a request id (`ag-ui:<threadId>`, at most 200 characters): see resolve-thread.ts.
const MAX_ID = 190;

/**
 * Validates a POST body with AG-UI's own RunAgentInput schema and reads the run's intent: with
 * `resume`, the answer to the one interrupt the turn waits on; without, the last message, which must
 * be the user's new text (earlier messages are the stored thread's, not the client's). Throws
 * `bad_request` naming the field.
 */
export function readRunInput(body: unknown): AgUiRunRequest {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "body";
    throw new AgentwireError("bad_request", `${where}: ${issue?.message ?? "not a RunAgentInput"}`);
  }
  const input = parsed.data;
  for (const [field, id] of [
    ["threadId", input.threadId],
    ["runId", input.runId],
  ] as const) {
    if (!isId(id)) throw new AgentwireError("bad_request", `${field}: 1-${MAX_ID} printable characters`);
  }
  const intent =
    input.resume !== undefined && input.resume.length > 0
      ? readResume(input.resume)
      : readMessage(input.messages);
  return { threadId: input.threadId, runId: input.runId, intent };
}

function readMessage(messages: ReadonlyArray<{ role: string; content?: unknown }>): AgUiIntent {
  const last = messages.at(-1);
  if (last?.role !== "user")
    throw new AgentwireError("bad_request", "messages: the last message must be the user's new message");
  const content = userText(last.content);
  if (content === undefined)
    throw new AgentwireError("bad_request", "messages: the user message has no content");
  return { kind: "message", content, ...historyOf(messages.slice(0, -1)) };
}

/** A user message's text: a string, or its text parts joined; undefined when it has none. */
function userText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content as Array<{ type: string; text?: string }>) {
    if (part.type !== "text" || typeof part.text !== "string")
      throw new AgentwireError(
        "bad_request",
        `messages: a ${part.type} part is not supported here; send text`,
      );
    texts.push(part.text);
  }
  return texts.join("\n");
}

/**
 * The earlier user messages' texts, when the client sent its conversation from the start (its first
 * message, after any system or developer message, is the user's); nothing for a client that sends
 * only the new message or a cut history.
 */
function historyOf(earlier: ReadonlyArray<{ role: string; content?: unknown }>): { history?: string[] } {
  const first = earlier.find((m) => m.role !== "system" && m.role !== "developer");
  if (first?.role !== "user") return {};
  const history: string[] = [];
  for (const message of earlier) {
    if (message.role !== "user") continue;
    // Earlier messages are only compared with the stored ones: one that is not text says nothing.
    let text: string | undefined;
    try {
      text = userText(message.content);
    } catch {
      return {};
    }
    if (text === undefined) return {};
    history.push(text);
  }
  return { history };
}

function readResume(
  entries: ReadonlyArray<{ interruptId: string; status: string; payload?: unknown }>,
): AgUiIntent {
  // The turn waits on one question or approval at a time, so a run answers exactly one.
  if (entries.length !== 1) throw new AgentwireError("bad_request", "resume: answer the one open interrupt");
  const entry = entries[0] as (typeof entries)[number];
  const target = parseInterruptId(entry.interruptId);
  if (!target) throw new AgentwireError("not_found", "resume.0.interruptId: no such interrupt");
  const cancelled = entry.status === "cancelled";
  if (target.kind === "approval") {
    const decision = cancelled ? "deny" : readDecision(entry.payload);
    return { kind: "approval", approvalId: target.approvalId, decision };
  }
  if (cancelled) return { kind: "stop" };
  const answer = readAnswer(entry.payload);
  return { kind: "answer", toolCallId: target.toolCallId, answer };
}

/** An approval's payload: `{decision}`, a decision word, or a boolean (true allows, false denies). */
function readDecision(payload: unknown): Decision {
  if (payload === true) return "allow";
  if (payload === false) return "deny";
  const word =
    typeof payload === "object" && payload !== null ? (payload as { decision?: unknown }).decision : payload;
  if (typeof word === "string" && (DECISIONS as readonly string[]).includes(word)) return word as Decision;
  throw new AgentwireError("bad_request", `resume.0.payload: a decision, one of ${DECISIONS.join(", ")}`);
}

/** A question's payload: the answer's text, or `{answer}`. */
function readAnswer(payload: unknown): string {
  const answer =
    typeof payload === "object" && payload !== null ? (payload as { answer?: unknown }).answer : payload;
  if (typeof answer !== "string")
    throw new AgentwireError("bad_request", "resume.0.payload: the answer as a string");
  return answer;
}

function isId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_ID && isPrintable(id);
}
