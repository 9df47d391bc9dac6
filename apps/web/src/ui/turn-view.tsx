import type { TurnView } from "../state/thread-view.js";
import { ApprovalBox } from "./approval-box.js";
import { ChildrenView } from "./children-view.js";
import { QuestionBox } from "./question-box.js";
import { TurnFooter } from "./turn-footer.js";

/** One user message and the agent's answer to it. */
export function TurnBlock({ turn }: { turn: TurnView }) {
  return (
    <article class="turn" data-turn={turn.key}>
      {turn.user && (
        <div class="bubble user">
          <span class="visually-hidden">You: </span>
          {turn.user.text}
        </div>
      )}
      <div class="bubble assistant">
        <ChildrenView children={turn.root} turn={turn} />
        {turn.questions.map((q) => (
          <QuestionBox key={q.toolCallId} question={q} />
        ))}
        {turn.approvals.map((a) => (
          <ApprovalBox key={a.approvalId} approval={a} />
        ))}
        <TurnFooter turn={turn} />
      </div>
    </article>
  );
}
