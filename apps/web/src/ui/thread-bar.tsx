import type { ThreadView } from "../state/thread-view.js";
import { contextDetail, contextLine } from "./context-line.js";
import { useController } from "./controller-context.js";
import { SCRATCHPAD_PANEL_ID } from "./scratchpad-panel.js";

/** Above the conversation: how full the model's context is, and the scratchpad panel's toggle. */
export function ThreadBar({
  view,
  scratchpadOpen,
}: {
  view: ThreadView | undefined;
  scratchpadOpen: boolean;
}) {
  const controller = useController();
  const active = view?.scratchpad?.filter((i) => i.status === "active").length ?? 0;
  return (
    <div class="thread-bar">
      {view?.context ? (
        <span class="context-usage" title={contextDetail(view.context)}>
          {contextLine(view.context)}
        </span>
      ) : (
        <span />
      )}
      <button
        type="button"
        class="scratchpad-toggle"
        aria-expanded={scratchpadOpen}
        aria-controls={SCRATCHPAD_PANEL_ID}
        onClick={() => controller.toggleScratchpad()}
      >
        Scratchpad{active > 0 ? ` (${active})` : ""}
      </button>
    </div>
  );
}
