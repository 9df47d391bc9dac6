import type { CommandHandler } from "../ws/command-router.js";

/** `ping` → `pong`, echoing the request_id. */
export const handlePing: CommandHandler<"ping"> = (frame, ctx) => {
  ctx.send({ type: "pong", ...(frame.request_id !== undefined && { request_id: frame.request_id }) });
};
