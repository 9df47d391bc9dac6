import type { ComponentChild } from "preact";
import type { Child, TurnView } from "../state/thread-view.js";
import { ApprovalBox } from "./approval-box.js";
import { Markdown } from "./markdown.js";
import { PlanCard } from "./plan-card.js";
import { ProgressLine } from "./progress-line.js";
import { QuestionCard } from "./question-box.js";
import { ToolCardView } from "./tool-card.js";

/** The text runs, tool cards, progress lines, plans, questions and approval prompts of one container, in the order they happened. */
export function ChildrenView({ children, turn }: { children: Child[]; turn: TurnView }) {
  return <>{children.map((child) => childView(child, turn))}</>;
}

function childView(child: Child, turn: TurnView): ComponentChild {
  switch (child.kind) {
    case "text":
      return child.thinking ? (
        <details key={child.key} class="thinking">
          <summary>Thinking</summary>
          <Markdown text={child.text} />
        </details>
      ) : (
        <Markdown key={child.key} text={child.text} />
      );
    case "cut":
      // The attempt a server restart cut: apart from the answer that followed, closed until asked for.
      return child.text === "" ? (
        <p key={child.key} class="cut-attempt" data-cut="interrupted">
          {capitalized(child.detail)}
        </p>
      ) : (
        <details key={child.key} class="cut-attempt" data-cut="interrupted">
          <summary>Interrupted: {child.detail}</summary>
          <Markdown text={child.text} />
        </details>
      );
    case "approval": {
      const approval = turn.approvals.find((a) => a.approvalId === child.id);
      return approval ? <ApprovalBox key={`approval:${child.id}`} approval={approval} /> : null;
    }
    case "card": {
      const card = turn.cards[child.id];
      if (!card) return null;
      if (card.name === "send_update") return <ProgressLine key={child.id} card={card} />;
      if (card.name === "create_plan" && card.plan)
        return <PlanCard key={child.id} card={card} turn={turn} plan={card.plan} />;
      return card.name === "ask_user" ? (
        <QuestionCard key={child.id} card={card} turn={turn} />
      ) : (
        <ToolCardView key={child.id} card={card} turn={turn} />
      );
    }
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
