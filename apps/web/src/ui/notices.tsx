import type { Notice } from "../app-state.js";
import { useController } from "./controller-context.js";

/** Connection problems and ui_notify messages. */
export function Notices({ notices }: { notices: Notice[] }) {
  const controller = useController();
  return (
    <div class="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} class={`toast ${n.level}`} role={n.level === "error" ? "alert" : "status"}>
          <span>{n.text}</span>
          <button type="button" aria-label="Dismiss" onClick={() => controller.dismiss(n.id)}>
            ✕
          </button>
        </div>
      ))}
    </div>
  );
}
