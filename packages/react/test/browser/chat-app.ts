// The page under test: one useChat component the test mounts, unmounts and drives through `window.chatApp`.
import { createClient } from "@agentwire-chat/client";
import { createElement as h, useEffect, version } from "react";
import { createRoot, type Root } from "react-dom/client";
import { AgentwireProvider, type UseChat, useChat } from "../../src/index.js";

const client = createClient({ url: location.origin, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
const container = document.getElementById("root") as HTMLElement;
let root: Root | undefined;
let chat: UseChat | undefined;
/** Every status the mounted component rendered, in order (reset by each mount). */
let statuses: string[] = [];
/** Resolves the pending mount() once the component has committed and its effects (the hook's attach) ran. */
let mounted: (() => void) | undefined;

function rootText(c: UseChat): string {
  return (c.liveTree?.root ?? [])
    .map((child) => (child.kind === "text" && !child.thinking ? child.text : ""))
    .join("");
}

function Chat({ threadId }: { threadId?: string }) {
  const c = useChat(threadId === undefined ? {} : { threadId });
  // The latest render's commands, for the test to call (set in an effect, a send right after mount could miss it).
  chat = c;
  if (statuses.at(-1) !== c.status) statuses.push(c.status);
  // Declared after useChat's own effect, so it runs after the session attached.
  useEffect(() => {
    mounted?.();
    mounted = undefined;
  }, []);
  return h(
    "section",
    {
      id: "chat",
      "data-status": c.status,
      "data-thread": c.threadId ?? "",
      "data-error": c.error?.code ?? "",
    },
    h(
      "ol",
      { id: "messages" },
      c.messages.map((m) =>
        h("li", { key: m.id, "data-role": m.role }, typeof m.content === "string" ? m.content : "[parts]"),
      ),
    ),
    h("p", { id: "live" }, rootText(c)),
    h(
      "ul",
      { id: "questions" },
      (c.liveTree?.questions ?? [])
        .filter((q) => !q.resolved)
        .map((q) => h("li", { key: q.toolCallId }, q.question)),
    ),
  );
}

declare global {
  interface Window {
    chatApp: {
      /** Resolves once the component is on the page, so a command right after it reaches the hook. */
      mount(threadId?: string): Promise<void>;
      unmount(): void;
      send(text: string, onBusy?: "reject" | "queue"): void;
      stop(): Promise<void>;
      answer(text: string): Promise<void>;
      statuses(): string[];
      react: string;
    };
  }
}

window.chatApp = {
  mount(threadId) {
    statuses = [];
    const created = createRoot(container);
    root = created;
    // React renders later (a scheduled task): a send before that found no component and did nothing.
    return new Promise<void>((resolve) => {
      mounted = resolve;
      created.render(h(AgentwireProvider, { client }, h(Chat, threadId === undefined ? {} : { threadId })));
    });
  },
  unmount() {
    root?.unmount();
    root = undefined;
    chat = undefined;
  },
  send: (text, onBusy) => void mountedChat().send(text, onBusy ? { onBusy } : {}),
  stop: async () => mountedChat().stop(),
  answer: async (text) => mountedChat().answer(text),
  statuses: () => statuses,
  react: version,
};

/** The mounted component's hook; a command with none mounted is the test's mistake, not a silent no-op. */
function mountedChat(): UseChat {
  if (!chat) throw new Error("chatApp: no component is mounted");
  return chat;
}
