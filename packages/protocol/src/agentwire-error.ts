import type { ErrorCode } from "@agentwire-chat/protocol";

const httpStatusByCode: Record<ErrorCode, number> = {
  bad_json: 400,
  bad_request: 400,
  unknown_command: 400,
  not_found: 404,
  busy: 409,
  rate_limited: 429,
  payload_too_large: 413,
  provider_error: 502,
  iteration_limit: 500,
  unavailable: 503,
  overloaded: 503,
  // Payment Required: the operator's spend limit, not the request's rate.
  spend_limit: 402,
  internal: 500,
};

/** The one error base class: every error that reaches a client carries a stable contract code. */
export class AgentwireError extends Error {
  override readonly name: string = "AgentwireError";
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }

  /** The HTTP status that goes with this error's code. */
  get httpStatus(): number {
    return httpStatusByCode[this.code];
  }
}

/** A thread, message or token the caller may not see; identical for "missing" and "someone else's". */
export class NotFoundError extends AgentwireError {
  override readonly name = "NotFoundError";
  constructor(what: string) {
    super("not_found", `${what} not found`);
  }
}

/** Wraps anything thrown into an AgentwireError; unknown errors become `internal` with a generic message. */
export function toAgentwireError(error: unknown): AgentwireError {
  if (error instanceof AgentwireError) return error;
  return new AgentwireError("internal", "internal error", { cause: error });
}
