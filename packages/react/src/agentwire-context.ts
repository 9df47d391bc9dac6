import type { Client } from "@agentwire-chat/client";
import { createContext, createElement, type ReactNode, useContext } from "react";

const AgentwireContext = createContext<Client | null>(null);

/** Makes `client` the one `useAgentwire()` and `useChat()` use below it; no global state. */
export function AgentwireProvider({ client, children }: { client: Client; children?: ReactNode }) {
  return createElement(AgentwireContext.Provider, { value: client }, children);
}

/** The client: `client` when given, else the nearest `AgentwireProvider`'s; throws when there is none. */
export function useAgentwire(client?: Client): Client {
  const provided = useContext(AgentwireContext);
  const found = client ?? provided;
  if (!found) throw new Error("useAgentwire: no client; wrap the tree in <AgentwireProvider client={…}>");
  return found;
}
