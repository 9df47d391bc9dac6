// React hooks over @agentwire-chat/client: they adapt a client's turns to components, nothing more.
export { AgentwireProvider, useAgentwire } from "./agentwire-context.js";
export { type Branches, branchesOf } from "./branches.js";
export { type ChatSendOptions, ChatSession, type ChatState, type ChatStatus } from "./chat-session.js";
export { joinRows } from "./join-rows.js";
export { type UseChat, type UseChatOptions, useChat } from "./use-chat.js";
