// The page under test: docs/ai-sdk.md's React example as written (built from the document by the
// test), mounted for one chat through `window.docExample`.

import { Chat } from "virtual:doc-example";
import { createElement as h } from "react";
import { createRoot } from "react-dom/client";

declare global {
  interface Window {
    docExample: { mount(chatId: string): void };
  }
}

window.docExample = {
  mount: (chatId) => createRoot(document.getElementById("root") as HTMLElement).render(h(Chat, { chatId })),
};
