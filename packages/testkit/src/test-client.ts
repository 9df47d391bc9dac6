import { type Client, type ClientOptions, createClient } from "@agentwire-chat/client";
import WebSocket from "ws";

/** A client on Node's `ws`, reconnecting fast (tests wait on events, not on the backoff). */
export function testClient(url: string, options: Partial<ClientOptions> = {}): Client {
  return createClient({ url, WebSocket, reconnect: { initialDelayMs: 20, maxDelayMs: 100 }, ...options });
}
