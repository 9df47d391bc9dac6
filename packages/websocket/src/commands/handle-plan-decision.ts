import type { ChatMessageData } from "@agentwire-chat/protocol";
import { AgentwireError } from "@agentwire-chat/protocol";
import { repoPlanStore } from "../chat/plan-tools.js";
import { runChatAgent } from "../chat/run-chat-agent.js";
import { ownThread } from "../turns/watch-turn.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

const APPROVED = "Approved the plan.";
const REVISE = "Please revise the plan.";

/**
 * `plan_decision`: the user's answer to a draft plan. approve → a new turn on the thread runs the
 * stored plan (nested under a create_plan node) and the model answers with its result; revise → a new
 * turn whose user message is the feedback, so the model can plan again. Owner only; one decision per plan.
 */
export const handlePlanDecision: ChatCommandHandler<"plan_decision"> = async (frame, conn, chat) => {
  const { repos, userId } = conn;
  const { plan_id: planId, decision, feedback } = frame.data;
  const thread = await ownThread(conn, frame.data.thread_id);
  const row = await repos.plans.get(userId, planId);
  if (!row || row.threadId !== thread.id) throw new AgentwireError("not_found", "plan not found");
  const latest = await repos.turns.latest(userId, thread.id);
  const busy =
    chat.turns.get(thread.id)?.active || latest?.status === "running" || latest?.status === "waiting_user";
  if (busy) throw new AgentwireError("busy", "a turn is already running on this thread");
  const next = decision === "approve" ? "approved" : "revised";
  // Conditional on the stored status: of two decisions racing, one wins and the other is refused here.
  if (
    row.status !== "pending_review" ||
    !(await repos.plans.transition(userId, planId, "pending_review", next))
  ) {
    throw new AgentwireError("bad_request", `data.plan_id: the plan is not waiting for a decision`);
  }
  const data: ChatMessageData = {
    thread_id: thread.id,
    content: decision === "approve" ? APPROVED : feedback?.trim() || REVISE,
    ...(latest?.provider && { provider: latest.provider }),
    ...(latest?.model && { model: latest.model }),
    // The steps run with the tools of the scope the plan was drafted in.
    chat_context: row.chatContext,
  };
  const approved =
    decision === "approve"
      ? { plan: row.plan, store: repoPlanStore(repos, userId, thread.id, row.chatContext) }
      : undefined;
  try {
    await runChatAgent(data, conn, chat, frame.request_id, approved && { approvedPlan: approved });
  } catch (error) {
    // Nothing ran: the draft waits for a decision again.
    await repos.plans.transition(userId, planId, next, "pending_review").catch(() => undefined);
    throw error;
  }
};
