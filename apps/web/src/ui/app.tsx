import { noProvider, viewKey } from "../app-state.js";
import type { ChatController } from "../chat-controller.js";
import { ChatView } from "./chat-view.js";
import { ControllerContext } from "./controller-context.js";
import { EditorPage } from "./editor-page.js";
import { ModelPicker } from "./model-picker.js";
import { Notices } from "./notices.js";
import { ThreadList } from "./thread-list.js";
import { TokenForm } from "./token-form.js";
import { useStore } from "./use-store.js";

const connectionText = {
  connecting: "Connecting…",
  open: "Connected",
  reconnecting: "Reconnecting…",
  closed: "Disconnected",
};

/** The connection state: a dot and a word; on a phone the word is for screen readers only. */
function Connection({ status }: { status: keyof typeof connectionText }) {
  return (
    <output class={`conn conn-${status}`}>
      <span class="conn-dot" aria-hidden="true" />
      <span class="conn-text">{connectionText[status]}</span>
    </output>
  );
}

export function App({ controller }: { controller: ChatController }) {
  const state = useStore(controller.store);
  const { route } = state;
  return (
    <ControllerContext.Provider value={controller}>
      <a class="skip" href="#composer-input">
        Skip to message box
      </a>
      <header class="top">
        <h1>agentwire</h1>
        <ModelPicker providers={state.providers ?? []} provider={state.provider} model={state.model} />
        <Connection status={state.connection} />
      </header>
      <div class="layout">
        <ThreadList threads={state.threads} current={route.threadId} />
        <main>
          {state.authRequired ? (
            <TokenForm />
          ) : route.page === "editor" ? (
            <EditorPage state={state} />
          ) : (
            <ChatView
              view={state.views[viewKey(route)]}
              link={state.link}
              noProvider={noProvider(state)}
              scratchpadOpen={state.scratchpadOpen}
              memoryOpen={state.memoryOpen}
              memory={state.memory}
              empty="Start a conversation. The agent decides which tools to use."
            />
          )}
        </main>
      </div>
      <Notices notices={state.notices} />
    </ControllerContext.Provider>
  );
}
