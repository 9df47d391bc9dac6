import { AgentwireError } from "@agentwire/protocol";
import type { CommandHandler, CommandHandlers } from "../ws/command-router.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { UIToolProxy } from "./ui-tool-proxy.js";

declare module "../ws/agentwire-services.js" {
  interface AgentwireServices {
    /** Client UI tools (editor context); absent: client_tools_manifest and tool_result answer `unavailable`. */
    uiTools?: UIToolProxy;
  }
}

function requireUiTools(ctx: ConnectionContext, command: string): UIToolProxy {
  const proxy = ctx.services.uiTools;
  if (!proxy)
    throw new AgentwireError("unavailable", `${command}: client tools are not enabled on this server`);
  return proxy;
}

/**
 * `client_tools_manifest`: replaces this connection's client tools, all or nothing. A schema that does not
 * compile, a repeated name or a server tool's name refuses the whole manifest with `bad_request` (the
 * previous manifest stays). No frame on success.
 */
export const handleClientToolsManifest: CommandHandler<"client_tools_manifest"> = (frame, ctx) => {
  const proxy = requireUiTools(ctx, "client_tools_manifest");
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
export const handleToolResult: CommandHandler<"tool_result"> = async (frame, ctx) => {
  const proxy = requireUiTools(ctx, "tool_result");
  if (!(await proxy.answer(ctx.connectionId, ctx.userId, frame.data))) {
    throw new AgentwireError("not_found", "no tool call with that id waits on this connection");
  }
};

/** The client-tool entries of the command table; pass to `createServer({ handlers })` with `services.uiTools`. */
export const toolCommandHandlers = {
  client_tools_manifest: handleClientToolsManifest,
  tool_result: handleToolResult,
} satisfies Partial<CommandHandlers>;
