// The page under test: the AI SDK's own useChat over WebSocketChatTransport at /ws/ai-sdk, driven through `window.aiChat`.
import { useChat } from "@ai-sdk/react";
import { type UIMessage, WebSocketChatTransport } from "ai";
import { createElement as h } from "react";
import { createRoot } from "react-dom/client";

const transport = new WebSocketChatTransport<UIMessage>({
  url: `${location.origin.replace(/^http/, "ws")}/ws/ai-sdk`,
  // The server keeps the thread's history: only the new message travels, and the one before it,
  // which says where it goes (after an edit, an earlier answer).
  prepareSendMessagesRequest: ({ messages }) => ({ messages: messages.slice(-2) }),
});
let chat: ReturnType<typeof useChat> | undefined;

function textOf(message: UIMessage): string {
  return message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function Chat({ id }: { id: string }) {
  const c = useChat({ id, transport, resume: true });
  chat = c;
  return h(
    "section",
    { id: "chat", "data-status": c.status },
    h(
      "ol",
      { id: "messages" },
      c.messages.map((m) => h("li", { key: m.id, "data-role": m.role, "data-id": m.id }, textOf(m))),
    ),
  );
}

declare global {
  interface Window {
    aiChat: {
      mount(id: string): void;
      send(text: string): void;
      stop(): void;
      regenerate(): void;
      /** An edit of the message at `index`: it and what follows are dropped, the new text is sent. */
      edit(index: number, text: string): void;
    };
  }
}

window.aiChat = {
  mount: (id) => createRoot(document.getElementById("root") as HTMLElement).render(h(Chat, { id })),
  send: (text) => void chat?.sendMessage({ text }),
  stop: () => void chat?.stop(),
  regenerate: () => void chat?.regenerate(),
  edit: (index, text) => {
    chat?.setMessages(chat.messages.slice(0, index));
    void chat?.sendMessage({ text });
  },
};
