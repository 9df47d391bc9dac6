// No zod here: browser bundles and the CLI's start-up import this module alone
// (`@agentwire-chat/protocol/subprotocols`).

/** The protocol version every client offers; the server selects it. */
export const PROTOCOL_V1 = "agentwire.v1";

/**
 * v1 for a client that renders nested subtask text: offered first, the server then sends `chunk`s at
 * every depth (a socket without it gets only depth-0 text).
 */
export const PROTOCOL_V1_NESTED = "agentwire.v1+nested";

/** A browser's token rides as the subprotocol `agentwire.bearer.<token>` (never echoed back). */
export const BEARER_PROTOCOL_PREFIX = "agentwire.bearer.";
