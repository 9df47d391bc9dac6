import type { ClientCommandName, ClientFrameOf } from "@agentwire-chat/protocol";
import { AgentwireError } from "@agentwire-chat/protocol";
import type { UIToolProxy } from "../tools/ui-tool-proxy.js";
import type { CommandHandler, CommandHandlers } from "../ws/command-router.js";
import type { ConnectionContext } from "../ws/connection-context.js";

/** Handles one client-tool command with the proxy it is given (the command table binds it). */
export type ToolCommandHandler<C extends ClientCommandName> = (
  frame: ClientFrameOf<C>,
  ctx: ConnectionContext,
  proxy: UIToolProxy,
) => void | Promise<void>;

/**
 * `client_tools_manifest`: replaces this connection's client tools, all or nothing. A schema that does not
 * compile, a repeated name or a server tool's name refuses the whole manifest with `bad_request` (the
 * previous manifest stays). No frame on success.
 */
export const handleClientToolsManifest: ToolCommandHandler<"client_tools_manifest"> = (frame, ctx, proxy) => {
  const result = proxy.announce(
    { connectionId: ctx.connectionId, userId: ctx.userId, send: (f) => ctx.send(f), signal: ctx.signal },
    frame.data.tools,
  );
  if (!result.ok) throw new AgentwireError("bad_request", `client_tools_manifest: ${result.reason}`);
  ctx.logger.debug({ tools: result.value }, "client tools announced");
};

/**
 * `tool_result`: answers a `tool_call` sent to this very connection, once; or, within the proxy's
 * reconnect grace, a call of the same user whose socket closed (on this instance, or routed to the
 * instance running its turn). Any other id (unknown, sent to another open socket, already answered,
 * timed out) is `not_found`; an answer that resolved a call gets no frame, wherever the call waited.
 */
export const handleToolResult: ToolCommandHandler<"tool_result"> = async (frame, ctx, proxy) => {
  if (!(await proxy.answer(ctx.connectionId, ctx.userId, frame.data))) {
    throw new AgentwireError("not_found", "no tool call with that id waits on this connection");
  }
};

/** The client-tool entries of the command table, bound to the server's UI tool proxy. */
export function toolCommandHandlers(proxy: UIToolProxy): CommandHandlers {
  const bind =
    <C extends ClientCommandName>(handler: ToolCommandHandler<C>): CommandHandler<C> =>
    (frame, ctx) =>
      handler(frame, ctx, proxy);
  return {
    client_tools_manifest: bind(handleClientToolsManifest),
    tool_result: bind(handleToolResult),
  };
}
