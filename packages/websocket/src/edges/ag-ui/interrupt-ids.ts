/**
 * An AG-UI interrupt id names what the turn waits on, so the next run's `resume` entry says which
 * native command answers it: `question:<tool_call_id>` (answer) or `approval:<approval_id>`
 * (tool_approval_response).
 */
export type InterruptTarget =
  | { kind: "question"; toolCallId: string }
  | { kind: "approval"; approvalId: string };

const QUESTION = "question:";
const APPROVAL = "approval:";

/** The interrupt id of an `ask_user` question. */
export function questionInterruptId(toolCallId: string): string {
  return QUESTION + toolCallId;
}

/** The interrupt id of a tool approval request. */
export function approvalInterruptId(approvalId: string): string {
  return APPROVAL + approvalId;
}

/** What an interrupt id names; undefined for an id this server never gave. */
export function parseInterruptId(id: string): InterruptTarget | undefined {
  if (id.startsWith(QUESTION) && id.length > QUESTION.length)
    return { kind: "question", toolCallId: id.slice(QUESTION.length) };
  if (id.startsWith(APPROVAL) && id.length > APPROVAL.length)
    return { kind: "approval", approvalId: id.slice(APPROVAL.length) };
  return undefined;
}
