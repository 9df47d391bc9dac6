// The page under test: one useChat component the test mounts, unmounts and drives through `window.chatApp`.
import { createClient } from "@agentwire/client";
import { createElement as h, version } from "react";
import { createRoot, type Root } from "react-dom/client";
import { AgentwireProvider, type UseChat, useChat } from "../../src/index.js";

const client = createClient({ url: location.origin, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
const container = document.getElementById("root") as HTMLElement;
let root: Root | undefined;
let chat: UseChat | undefined;
/** Every status the mounted component rendered, in order (reset by each mount). */
let statuses: string[] = [];

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
      mount(threadId?: string): void;
      unmount(): void;
      send(text: string): void;
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
    root = createRoot(container);
    root.render(h(AgentwireProvider, { client }, h(Chat, threadId === undefined ? {} : { threadId })));
  },
  unmount() {
    root?.unmount();
    root = undefined;
    chat = undefined;
  },
  send: (text) => void chat?.send(text),
  stop: async () => chat?.stop(),
  answer: async (text) => chat?.answer(text),
  statuses: () => statuses,
  react: version,
};
