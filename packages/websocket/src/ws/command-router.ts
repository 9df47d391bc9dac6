import {
  type ClientCommandName,
  type ClientFrameOf,
  type ErrorCode,
  parseClientFrame,
  toAgentwireError,
} from "@agentwire-chat/protocol";
import type { ConnectionContext } from "./connection-context.js";

/** Handles one parsed, typed client frame. Throw an AgentwireError to answer `error` with its code. */
export type CommandHandler<C extends ClientCommandName> = (
  frame: ClientFrameOf<C>,
  ctx: ConnectionContext,
) => void | Promise<void>;

/** The router's table, built from the services present: a command without a handler answers `unavailable`. */
export type CommandHandlers = { [C in ClientCommandName]?: CommandHandler<C> };

/** Dispatches raw text frames: parse → handler; every failure becomes an `error` frame with request_id. */
export class CommandRouter {
  constructor(private readonly handlers: CommandHandlers) {}

  /** Parses and handles one frame; never throws. */
  async dispatch(text: string, ctx: ConnectionContext): Promise<void> {
    const parsed = parseClientFrame(text);
    if (!parsed.ok) {
      ctx.logger.debug({ code: parsed.error.code }, "bad frame");
      sendError(ctx, parsed.error.code, parsed.error.message, parsed.error.request_id);
      return;
    }
    const frame = parsed.frame;
    const handler = this.handlers[frame.command] as CommandHandler<typeof frame.command> | undefined;
    if (!handler) {
      sendError(ctx, "unavailable", `${frame.command} is not enabled on this server`, frame.request_id);
      return;
    }
    try {
      await handler(frame as never, ctx);
    } catch (thrown) {
      const error = toAgentwireError(thrown);
      if (error.code === "internal")
        ctx.logger.error({ err: thrown, command: frame.command }, "handler failed");
      sendError(ctx, error.code, error.message, frame.request_id);
    }
  }
}

function sendError(ctx: ConnectionContext, code: ErrorCode, message: string, requestId?: string): void {
  ctx.send({ type: "error", code, message, ...(requestId !== undefined && { request_id: requestId }) });
}
