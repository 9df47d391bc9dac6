/**
 * One fuzz case: a frame to send and the answers docs/protocol.md allows for it, with the helpers that
 * build JSON frames (`{command, data, request_id}` in any shape) and their expectations.
 */
import { type ErrorCode, MAX_JSON_DEPTH } from "@agentwire-chat/protocol";
import fc from "fast-check";
import { encode, jsonDepth, objectOf } from "./fuzz-json.js";
import { hugeString, longString, text } from "./fuzz-values.js";

/** One answer frame's kind: `pong`, an `error` code, or "none" (the command answers nothing on success). */
export type Outcome = "pong" | "none" | ErrorCode;

/** The request_id the answer must carry: this one, none, or unchecked (loosely generated frames). */
export type Echo = { id: string } | "none" | "unchecked";

export interface FuzzCase {
  /** Which generator made it, for the report. */
  kind: string;
  /** A text frame (string) or a binary frame (bytes). */
  frame: string | Uint8Array;
  /** The answers allowed; exactly one frame arrives unless "none" is among them and nothing does. */
  accept: readonly Outcome[];
  echo: Echo;
}

/** A short, printable description of a case (its frame shortened), for failure reports. */
export function describeCase(c: Pick<FuzzCase, "kind" | "frame" | "accept">): string {
  const frame =
    typeof c.frame === "string"
      ? JSON.stringify(c.frame.length > 400 ? `${c.frame.slice(0, 400)}…` : c.frame)
      : `binary ${Buffer.from(c.frame.subarray(0, 64)).toString("hex")}${c.frame.length > 64 ? "…" : ""}`;
  return `${c.kind} (${c.frame.length} ${typeof c.frame === "string" ? "chars" : "bytes"}, accept ${c.accept.join("|")}): ${frame}`;
}

/** A case that fast-check reports by its description (frames can be megabytes). */
export function fuzzCase(
  kind: string,
  frame: string | Uint8Array,
  accept: readonly Outcome[],
  echo: Echo,
): FuzzCase {
  const c = { kind, frame, accept, echo };
  return Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) });
}

/** A JSON frame; JSON nested deeper than MAX_JSON_DEPTH is refused as bad_request whatever else it holds. */
export function jsonCase(kind: string, body: unknown, accept: readonly Outcome[], echo: Echo): FuzzCase {
  const frame = encode(body);
  return fuzzCase(kind, frame, jsonDepth(frame) > MAX_JSON_DEPTH ? ["bad_request"] : accept, echo);
}

/** Marks an envelope member left out of the frame. */
export const ABSENT = Symbol("absent");
export const ENVELOPE_KEYS = ["command", "data", "request_id"];

/** `{command, data, request_id}` with any of them left out (ABSENT / undefined) and one extra key. */
export function envelope(
  command: unknown,
  data: unknown,
  requestId?: unknown,
  extra?: readonly [string, unknown],
): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  if (command !== ABSENT) entries.push(["command", command]);
  if (data !== ABSENT) entries.push(["data", data]);
  if (requestId !== undefined) entries.push(["request_id", requestId]);
  if (extra) entries.push([extra[0], extra[1]]);
  return objectOf(entries);
}

/** A request_id or none: short and hostile, around the 200-unit cut, or huge. */
export const requestId = fc.option(
  fc.oneof(
    { weight: 28, arbitrary: text(0, 30) },
    { weight: 2, arbitrary: longString(190, 260) },
    { weight: 1, arbitrary: hugeString(4_001, 20_000) },
  ),
  { nil: undefined },
);
/** The server echoes a string request_id cut to 200 units. */
export const echoOf = (rid: string | undefined): Echo =>
  rid === undefined ? "none" : { id: rid.slice(0, 200) };
