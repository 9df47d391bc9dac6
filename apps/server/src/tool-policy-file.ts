import { readFileSync } from "node:fs";
import { parseToolPolicyFile, type ToolPolicies, type ToolPolicyFile } from "@agentwire-chat/websocket";
import type { Logger } from "pino";

/** TOOL_POLICY_FILE as read: where it is and what it held when last read. */
export type LoadedToolPolicyFile = { path: string; file: ToolPolicyFile };

/** Reads and validates TOOL_POLICY_FILE; the message says what is wrong, naming the user or group and field. */
export function readToolPolicyFile(
  path: string,
): { ok: true; value: ToolPolicyFile } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    const reason = error instanceof SyntaxError ? `not JSON (${error.message})` : "cannot be read";
    return { ok: false, message: `${path} ${reason}` };
  }
  return parseToolPolicyFile(json);
}

/**
 * SIGHUP's work: reads the file again and gives the policies its new content; a file that cannot be
 * read or is invalid is logged and the policy in force stays. True when the new file took effect.
 */
export function reloadToolPolicy(path: string, policies: ToolPolicies, logger: Logger): boolean {
  const read = readToolPolicyFile(path);
  if (!read.ok) {
    logger.error(
      { path, reason: read.message },
      "TOOL_POLICY_FILE reload refused; the previous policy stays",
    );
    return false;
  }
  policies.replace(read.value);
  logger.info({ path }, "TOOL_POLICY_FILE reloaded");
  return true;
}

/** Runs `reload` on each SIGHUP (only installed with TOOL_POLICY_FILE: otherwise SIGHUP keeps its default). */
export function reloadOnSighup(reload: () => void, signals: Pick<NodeJS.Process, "on"> = process): void {
  signals.on("SIGHUP", () => reload());
}
