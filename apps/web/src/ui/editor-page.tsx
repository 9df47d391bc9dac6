import type { AppState } from "../app-state.js";
import { noProvider, viewKey } from "../app-state.js";
import { ChatView } from "./chat-view.js";
import { useController } from "./controller-context.js";
import { GraphPanel } from "./graph-panel.js";

/**
 * The editor context demo: messages carry `chat_context {kind:"editor", workflow_id}`, the page
 * announces ui_show_graph and ui_notify with client_tools_manifest and answers their tool_calls.
 */
export function EditorPage({ state }: { state: AppState }) {
  const controller = useController();
  const view = state.views[viewKey(state.route)];
  return (
    <div class="editor">
      <section class="editor-side" aria-label="Workflow">
        <label>
          Workflow id{" "}
          <input
            value={state.workflowId}
            onChange={(e) => controller.setWorkflowId(e.currentTarget.value.trim() || "demo-workflow")}
          />
        </label>
        <GraphPanel graph={state.graph} />
      </section>
      <ChatView
        view={view}
        link={state.link}
        noProvider={noProvider(state)}
        scratchpadOpen={state.scratchpadOpen}
        memoryOpen={state.memoryOpen}
        memory={state.memory}
        empty="Editor context: the agent can use build_workflow and this page's UI tools (ui_show_graph, ui_notify)."
      />
    </div>
  );
}
