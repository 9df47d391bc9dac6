import type { ErrorCode } from "@agentwire-chat/protocol";

/**
 * Codes of errors the SDK finds itself, beside the server's: the socket closed with the call
 * unanswered, a frame that is not JSON or has no type, one over `maxFrameBytes`, frames missing
 * from a nested turn that a resume could not fill, an HTTP 401.
 */
export type ClientOnlyCode = "closed" | "bad_frame" | "frame_too_large" | "seq_gap" | "unauthorized";
export type ClientErrorCode = ErrorCode | ClientOnlyCode;

/** Every error the SDK hands the app: a value with a stable `code`, never thrown from a socket event. */
export class ClientError extends Error {
  override readonly name = "ClientError";
  constructor(
    readonly code: ClientErrorCode,
    message: string,
  ) {
    super(message);
  }
}
