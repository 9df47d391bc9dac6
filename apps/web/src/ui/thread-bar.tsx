import type { ThreadView } from "../state/thread-view.js";
import { contextDetail, contextLine } from "./context-line.js";
import { useController } from "./controller-context.js";
import { MEMORY_PANEL_ID } from "./memory-panel.js";
import { SCRATCHPAD_PANEL_ID } from "./scratchpad-panel.js";
import { threadCostLine } from "./thread-cost-line.js";

/** Above the conversation: how full the model's context is, what the thread cost, and the panels' toggles. */
export function ThreadBar({
  view,
  scratchpadOpen,
  memoryOpen,
}: {
  view: ThreadView | undefined;
  scratchpadOpen: boolean;
  memoryOpen: boolean;
}) {
  const controller = useController();
  const active = view?.scratchpad?.filter((i) => i.status === "active").length ?? 0;
  const cost = threadCostLine(view?.cost);
  return (
    <div class="thread-bar">
      <span class="thread-bar-lines">
        {view?.context && (
          <span class="context-usage" title={contextDetail(view.context)}>
            {contextLine(view.context)}
          </span>
        )}
        {cost && <span class="thread-cost">{cost}</span>}
      </span>
      <span class="thread-bar-toggles">
        <button
          type="button"
          class="panel-toggle memory-toggle"
          aria-expanded={memoryOpen}
          aria-controls={MEMORY_PANEL_ID}
          onClick={() => controller.toggleMemory()}
        >
          Memory
        </button>
        <button
          type="button"
          class="panel-toggle scratchpad-toggle"
          aria-expanded={scratchpadOpen}
          aria-controls={SCRATCHPAD_PANEL_ID}
          onClick={() => controller.toggleScratchpad()}
        >
          Scratchpad{active > 0 ? ` (${active})` : ""}
        </button>
      </span>
    </div>
  );
}
