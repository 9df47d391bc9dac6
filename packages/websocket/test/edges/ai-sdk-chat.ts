import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  type UIMessage,
  WebSocketChatTransport,
  type WebSocketChatTransportResponse,
} from "ai";
import WebSocket from "ws";

/**
 * The AI SDK's own chat state machine without React (what `useChat` wraps): messages and status kept in
 * plain fields, so a Node test drives the real `Chat` logic (sendMessage, addToolOutput,
 * addToolApprovalResponse, stop, resumeStream) over the real transport.
 */
export class NodeChat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ChatInit<UIMessage>, "messages">) {
    super({ ...init, state: new PlainState() });
  }
}

class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/**
 * The transport at `/ws/ai-sdk` with `ws` as its WebSocket; a token goes in the bearer subprotocol.
 * `record` gets every server frame the transport receives, parsed, before the transport reads it.
 */
export function aiSdkTransport(
  httpUrl: string,
  token?: string,
  record?: (response: WebSocketChatTransportResponse) => void,
): WebSocketChatTransport<UIMessage> {
  class Recording extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      // A listener beside the transport's `onmessage`, which replaces only its own.
      this.addEventListener("message", (event) => record?.(JSON.parse(String(event.data))));
    }
  }
  return new WebSocketChatTransport<UIMessage>({
    url: `${httpUrl.replace(/^http/, "ws")}/ws/ai-sdk`,
    ...(token !== undefined && { protocols: ["agentwire.v1", `agentwire.bearer.${token}`] }),
    // ws has the browser API the transport uses (onopen, onmessage, send, close); its types say more.
    webSocket: (record ? Recording : WebSocket) as never,
  });
}

/** The text of a message's text parts. */
export function textOf(message: UIMessage | undefined): string {
  return (message?.parts ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
}
