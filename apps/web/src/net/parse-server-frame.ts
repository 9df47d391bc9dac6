import { readFrame } from "@agentwire/client";
import type { ServerFrame } from "@agentwire/protocol";

/**
 * Reads one text frame from the server with the SDK's envelope check (no zod in the bundle); a
 * frame of an unknown type, or one that cannot be read, is ignored so a newer server does not break
 * the page.
 */
export function parseServerFrame(text: string): ServerFrame | undefined {
  const read = readFrame(text, Number.POSITIVE_INFINITY);
  return read.kind === "frame" ? read.frame : undefined;
}
