import type { Plan } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";

/** The newest drafts the context names; older ones still run by id, and plan_decision still decides them. */
const MAX_DRAFTS = 3;
const MAX_STEPS_NAMED = 20;

/**
 * The system-prompt section that names the thread's drafts waiting for review (`pending_review`), so a
 * typed "go ahead" runs the draft (`create_plan {plan_id}`) instead of planning again. Empty when none.
 */
export async function pendingDraftsSection(
  repos: Repositories,
  userId: string,
  threadId: string,
): Promise<string> {
  // Only the drafts are read: the section runs at every turn's start of a thread.
  const rows = await repos.plans.listForThread(userId, threadId, "pending_review");
  const drafts = rows.slice(-MAX_DRAFTS).reverse();
  if (drafts.length === 0) return "";
  return [
    "",
    "",
    "## Plans waiting for the user's review",
    ...drafts.map((d) => describeDraft(d.id, d.plan)),
    'When the user approves one in their message (e.g. "go ahead", "run it"), run it with create_plan ' +
      "{plan_id} instead of planning again. When they ask for changes, call create_plan with a new objective.",
  ].join("\n");
}

function describeDraft(id: string, plan: Plan): string {
  const steps = plan.stages.flatMap((s) => s.steps.map((step) => step.title));
  const named = steps.slice(0, MAX_STEPS_NAMED).join("; ");
  const more = steps.length > MAX_STEPS_NAMED ? `; and ${steps.length - MAX_STEPS_NAMED} more` : "";
  return `- plan_id "${id}": ${plan.goal} (${plan.stages.length} stage(s); steps: ${named}${more})`;
}
