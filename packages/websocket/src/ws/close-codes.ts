/** WebSocket close codes the server uses (RFC 6455 and the IANA registry). */
export const CloseCode = {
  normal: 1000,
  /** Too many rate-limited frames in a row (per socket), or refused turn starts (per user). */
  policyViolation: 1008,
  /** A frame above maxPayload. */
  messageTooBig: 1009,
  internalError: 1011,
  /** Graceful shutdown: reconnect and resume. */
  serviceRestart: 1012,
  /** The client reads too slowly; reconnect and `resume_chat`. */
  tryAgainLater: 1013,
} as const;
