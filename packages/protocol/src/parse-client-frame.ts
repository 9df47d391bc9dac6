import type { z } from "zod";
import { type ClientCommandName, type ClientFrame, clientCommandData } from "./client-commands.js";
import type { ErrorCode } from "./error-codes.js";
import { findTooDeep, MAX_JSON_DEPTH } from "./json-depth.js";

export type ParseError = { code: ErrorCode; message: string; request_id?: string };
export type ParseResult = { ok: true; frame: ClientFrame } | { ok: false; error: ParseError };

const envelopeKeys = new Set(["command", "data", "request_id"]);

/** Parses one text frame from a client into a typed command, or an error with the contract's code. */
export function parseClientFrame(text: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return fail("bad_json", "frame is not valid JSON");
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return fail("bad_request", "frame: expected a JSON object");
  }
  const obj = raw as Record<string, unknown>;
  const requestId = typeof obj.request_id === "string" ? obj.request_id.slice(0, 200) : undefined;
  if (obj.request_id !== undefined && typeof obj.request_id !== "string") {
    return fail("bad_request", "request_id: expected a string");
  }
  const tooDeep = findTooDeep(obj.data, "data", MAX_JSON_DEPTH - 1);
  if (tooDeep !== undefined) {
    return fail("bad_request", `${tooDeep}: nested deeper than ${MAX_JSON_DEPTH} levels`, requestId);
  }
  if (typeof obj.command !== "string") return fail("bad_request", "command: expected a string", requestId);
  if (!Object.hasOwn(clientCommandData, obj.command)) {
    return fail("unknown_command", `unknown command ${JSON.stringify(obj.command.slice(0, 64))}`, requestId);
  }
  for (const key of Object.keys(obj)) {
    if (!envelopeKeys.has(key)) return fail("bad_request", `${key}: unknown field`, requestId);
  }
  const command = obj.command as ClientCommandName;
  const parsed = clientCommandData[command].safeParse(obj.data ?? undefined);
  if (!parsed.success) return fail("bad_request", describeIssue(parsed.error, "data"), requestId);
  const frame = { command, data: parsed.data, ...(requestId !== undefined && { request_id: requestId }) };
  return { ok: true, frame: frame as ClientFrame };
}

function fail(code: ErrorCode, message: string, request_id?: string): ParseResult {
  return { ok: false, error: { code, message, ...(request_id !== undefined && { request_id }) } };
}

/** "data.content: expected string" style message naming the first offending field. */
export function describeIssue(error: z.ZodError, root: string): string {
  const issue = error.issues[0];
  if (!issue) return `${root}: invalid`;
  const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
  const path = [root, ...issue.path.map(String), ...(keys.length === 1 ? keys : [])].join(".");
  const message =
    issue.code === "unrecognized_keys"
      ? `unknown field${keys.length > 1 ? `s ${keys.join(", ")}` : ""}`
      : issue.message;
  return `${path}: ${message}`;
}
