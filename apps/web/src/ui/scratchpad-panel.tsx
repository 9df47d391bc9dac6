import type { ScratchpadItem } from "@agentwire-chat/protocol";
import { groupScratchpad } from "../state/scratchpad.js";
import { useController } from "./controller-context.js";

export const SCRATCHPAD_PANEL_ID = "scratchpad-panel";

/**
 * The agent's scratchpad for this thread: what it keeps in mind (active) and what it resolved or
 * discarded (closed). The user may clear it. A side panel beside the chat; on a phone a drawer over it.
 */
export function ScratchpadPanel({ items }: { items: ScratchpadItem[] }) {
  const controller = useController();
  const { active, closed } = groupScratchpad(items);
  return (
    <aside
      id={SCRATCHPAD_PANEL_ID}
      class="scratchpad"
      aria-label="Scratchpad"
      onKeyDown={(e) => {
        if (e.key === "Escape") controller.toggleScratchpad(false);
      }}
    >
      <div class="scratchpad-head">
        <h2>Scratchpad</h2>
        <button
          type="button"
          aria-label="Close scratchpad"
          onClick={() => controller.toggleScratchpad(false)}
        >
          ✕
        </button>
      </div>
      {items.length === 0 ? (
        <p class="muted">The agent has noted nothing in this thread yet.</p>
      ) : (
        <>
          <ItemGroup name="Active" items={active} empty="Nothing open." />
          {closed.length > 0 && <ItemGroup name="Closed" items={closed} />}
          <button
            type="button"
            class="panel-action danger"
            onClick={() => {
              if (window.confirm("Clear this thread's scratchpad? The agent forgets every item."))
                void controller.clearScratchpad();
            }}
          >
            Clear scratchpad
          </button>
        </>
      )}
    </aside>
  );
}

function ItemGroup({ name, items, empty }: { name: string; items: ScratchpadItem[]; empty?: string }) {
  return (
    <section class={`sp-group sp-group-${name.toLowerCase()}`} aria-label={name}>
      <h3>
        {name} <span class="muted">({items.length})</span>
      </h3>
      {items.length === 0 && empty ? (
        <p class="muted">{empty}</p>
      ) : (
        <ul>
          {items.map((item) => (
            <li key={item.id} class="sp-item" data-item-id={item.id} data-status={item.status}>
              <div class="sp-line">
                <span class={`badge sp-kind sp-kind-${item.kind}`}>{item.kind}</span>
                <span class="sp-title">{item.title}</span>
                {item.status !== "active" && <span class="sp-status muted">{item.status}</span>}
              </div>
              {item.details && <p class="sp-details">{item.details}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
