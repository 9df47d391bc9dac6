import { z } from "zod";

/** Every error a client can receive has one of these stable codes. */
export const ErrorCode = z.enum([
  "bad_json",
  "bad_request",
  "unknown_command",
  "not_found",
  "busy",
  "rate_limited",
  "payload_too_large",
  "provider_error",
  "iteration_limit",
  "unavailable",
  "overloaded",
  "spend_limit",
  "internal",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;
