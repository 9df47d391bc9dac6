import { BEARER_PROTOCOL_PREFIX, PROTOCOL_V1, PROTOCOL_V1_NESTED } from "@agentwire/protocol/subprotocols";

/**
 * The WebSocket subprotocols the page offers, in order of preference. A browser cannot set an
 * Authorization header on a socket, so a token rides as `agentwire.bearer.<token>` (the server
 * never echoes it back).
 */
export function subprotocols(token: string | undefined): string[] {
  const offered = [PROTOCOL_V1_NESTED, PROTOCOL_V1];
  return token ? [...offered, `${BEARER_PROTOCOL_PREFIX}${token}`] : offered;
}
