import type { MemoryEntry } from "@agentwire-chat/protocol";
import { useController } from "./controller-context.js";

export const MEMORY_PANEL_ID = "memory-panel";

/**
 * The user's long-term memory (what the agent saved with memory_write, across every thread): read it,
 * forget one key, or forget everything. In the scratchpad panel's place.
 */
export function MemoryPanel({ entries }: { entries: MemoryEntry[] | null }) {
  const controller = useController();
  return (
    <aside
      id={MEMORY_PANEL_ID}
      class="scratchpad memory"
      aria-label="Memory"
      onKeyDown={(e) => {
        if (e.key === "Escape") controller.toggleMemory(false);
      }}
    >
      <div class="scratchpad-head">
        <h2>Memory</h2>
        <button type="button" aria-label="Close memory" onClick={() => controller.toggleMemory(false)}>
          ✕
        </button>
      </div>
      {entries === null ? (
        <p class="muted">Loading…</p>
      ) : entries.length === 0 ? (
        <p class="muted">The agent remembers nothing about you.</p>
      ) : (
        <>
          <ul>
            {entries.map((entry) => (
              <li key={entry.key} class="sp-item memory-entry" data-key={entry.key}>
                <div class="sp-line">
                  <span class="sp-title memory-key">{entry.key}</span>
                  <button
                    type="button"
                    class="panel-action"
                    aria-label={`Forget ${entry.key}`}
                    onClick={() => void controller.forgetMemory(entry.key)}
                  >
                    Forget
                  </button>
                </div>
                <p class="sp-details">{entry.value}</p>
              </li>
            ))}
          </ul>
          <button
            type="button"
            class="panel-action danger"
            onClick={() => {
              if (window.confirm("Forget everything the agent remembers about you?"))
                void controller.forgetMemory();
            }}
          >
            Forget all
          </button>
        </>
      )}
    </aside>
  );
}
