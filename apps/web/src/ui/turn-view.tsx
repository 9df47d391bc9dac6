import type { TurnView } from "../state/thread-view.js";
import { ChildrenView } from "./children-view.js";
import { QuestionBox } from "./question-box.js";
import { TurnFooter } from "./turn-footer.js";

/** One user message and the agent's answer to it; questions and approvals sit where they came up. */
export function TurnBlock({ turn, last = false }: { turn: TurnView; last?: boolean }) {
  // A question normally shows in its ask_user card; one without a card still has to be answerable.
  const loose = turn.questions.filter((q) => !turn.cards[q.toolCallId]);
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
        {loose.map((q) => (
          <QuestionBox key={q.toolCallId} question={q} />
        ))}
        <TurnFooter turn={turn} last={last} />
      </div>
    </article>
  );
}
