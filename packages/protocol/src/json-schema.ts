import { z } from "zod";
import { ClientFrame } from "./client-commands.js";
import { ServerFrame } from "./server-frames.js";

/** The JSON Schema of the whole wire contract (client frames and server frames). */
export function contractJsonSchema(): Record<string, unknown> {
  const contract = z.object({ client: ClientFrame, server: ServerFrame }).meta({
    title: "agentwire wire contract v1",
    description: "client: every frame a client may send; server: every frame the server may send.",
  });
  return z.toJSONSchema(contract, { unrepresentable: "any", io: "input" }) as Record<string, unknown>;
}
