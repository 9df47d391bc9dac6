import type { ApprovalDecision, ApprovalView } from "../state/thread-view.js";
import { useController } from "./controller-context.js";

const labels: Record<ApprovalDecision, string> = {
  allow: "Allow",
  allow_for_thread: "Allow for this thread",
  deny: "Deny",
};

/** A gated tool waiting for the user's decision. */
export function ApprovalBox({ approval }: { approval: ApprovalView }) {
  const controller = useController();
  return (
    <fieldset class={`approval${approval.resolved ? " resolved" : ""}`}>
      <legend>
        The agent wants to run <strong>{approval.toolName}</strong>{" "}
        <span class="badge">{approval.permissionClass}</span>
      </legend>
      {approval.argsPreview && <code class="approval-args">{approval.argsPreview}</code>}
      {approval.resolved ? (
        <p class="muted">{approval.decision ? `You chose: ${labels[approval.decision]}` : "Decided"}</p>
      ) : (
        <div class="row">
          {(Object.keys(labels) as ApprovalDecision[]).map((decision) => (
            <button
              key={decision}
              type="button"
              class={decision === "deny" ? "danger" : undefined}
              onClick={() => controller.decide(approval.approvalId, decision)}
            >
              {labels[decision]}
            </button>
          ))}
        </div>
      )}
    </fieldset>
  );
}
