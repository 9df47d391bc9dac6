/** The protocol version every client offers; the server selects it. */
export const PROTOCOL_V1 = "agentwire.v1";
/**
 * v1 for a client that renders nested subtask text: offered first, the server then sends `chunk`s
 * at every depth (a socket without it gets only depth-0 text). A server that does not know it
 * selects `agentwire.v1` and sends everything as before.
 */
export const PROTOCOL_V1_NESTED = "agentwire.v1+nested";
const BEARER_PREFIX = "agentwire.bearer.";

/**
 * The WebSocket subprotocols the page offers, in order of preference. A browser cannot set an
 * Authorization header on a socket, so a token rides as `agentwire.bearer.<token>` (the server
 * never echoes it back).
 */
export function subprotocols(token: string | undefined): string[] {
  const offered = [PROTOCOL_V1_NESTED, PROTOCOL_V1];
  return token ? [...offered, `${BEARER_PREFIX}${token}`] : offered;
}
