import { AgentwireError } from "../../errors/agentwire-error.js";

/** The error a command answers with until the work that implements it lands. */
export function unavailable(command: string): AgentwireError {
  return new AgentwireError("unavailable", `${command} is not available on this server yet`);
}
