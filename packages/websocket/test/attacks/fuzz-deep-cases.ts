/**
 * Fuzz cases that nest JSON deeply, or carry `__proto__` / `constructor` keys, in every position a
 * client controls, each with the answer that position gets.
 */
import fc from "fast-check";
import { echoOf, envelope, jsonCase, requestId } from "./fuzz-case.js";
import { RawJson, withKey } from "./fuzz-json.js";
import { deepValue, pollutingValue } from "./fuzz-values.js";

/** `levels` schemas nested through `properties` (each level two JSON levels deep). */
function nestedProperties(levels: number): RawJson {
  return new RawJson(
    `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`,
  );
}

const deepPositions = [
  "frame",
  "command",
  "request_id",
  "envelope key",
  "ping data",
  "chat content",
  "chat tools",
  "media option",
  "tool result",
  "answer",
  "schema value",
  "schema properties",
  "unknown command data",
] as const;
/** Deep nesting in every position a client controls. */
export const deepCase = fc
  .tuple(
    deepValue,
    fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 500, max: 5_000 })),
    fc.constantFrom(...deepPositions),
    requestId,
  )
  .map(([deep, levels, where, rid]) => {
    const kind = `deep ${where}`;
    const echo = echoOf(rid);
    const manifest = (schema: unknown) =>
      envelope(
        "client_tools_manifest",
        { tools: [{ name: "ui_deep", description: "", input_schema: schema }] },
        rid,
      );
    switch (where) {
      case "frame":
        return jsonCase(kind, deep, ["bad_request"], "none");
      case "command":
        return jsonCase(kind, envelope(deep, {}, rid), ["bad_request"], echo);
      case "request_id":
        return jsonCase(kind, envelope("ping", {}, deep), ["bad_request"], "none");
      case "envelope key":
        return jsonCase(kind, envelope("ping", {}, rid, ["extra", deep]), ["bad_request"], echo);
      case "ping data":
        return jsonCase(kind, envelope("ping", deep, rid), ["bad_request"], echo);
      case "chat content":
        return jsonCase(kind, envelope("chat_message", { content: deep }, rid), ["bad_request"], echo);
      case "chat tools":
        return jsonCase(
          kind,
          envelope("chat_message", { content: "x", thread_id: "no-such-thread", tools: deep }, rid),
          ["not_found"],
          echo,
        );
      case "media option":
        return jsonCase(
          kind,
          envelope("chat_message", { content: "x", media_generation: { mode: "image", size: deep } }, rid),
          ["unavailable"],
          echo,
        );
      case "tool result":
        return jsonCase(
          kind,
          envelope("tool_result", { tool_call_id: "x", ok: true, result: deep }, rid),
          ["not_found"],
          echo,
        );
      case "answer":
        return jsonCase(
          kind,
          envelope("answer", { thread_id: "t", tool_call_id: "c", answer: deep }, rid),
          ["bad_request"],
          echo,
        );
      case "schema value":
        return jsonCase(kind, manifest({ type: "object", x_deep: deep }), ["none", "bad_request"], echo);
      case "schema properties":
        return jsonCase(kind, manifest(nestedProperties(levels)), ["none", "bad_request"], echo);
      default:
        return jsonCase(kind, envelope("fly", deep, rid), ["unknown_command"], echo);
    }
  });

/** `__proto__` / `constructor` payloads where the schema lets free-form JSON through. */
export const pollution = fc
  .tuple(
    pollutingValue,
    fc.constantFrom("tool result", "media", "chat tools", "schema", "schema properties"),
    requestId,
  )
  .map(([value, where, rid]) => {
    const echo = echoOf(rid);
    const kind = `prototype keys in ${where}`;
    const spec = (input_schema: unknown) => ({ tools: [{ name: "ui_p", description: "", input_schema }] });
    switch (where) {
      case "tool result":
        return jsonCase(
          kind,
          envelope("tool_result", { tool_call_id: "x", ok: false, result: value }, rid),
          ["not_found"],
          echo,
        );
      case "media":
        return jsonCase(
          kind,
          envelope(
            "chat_message",
            { content: "x", media_generation: withKey(value as Record<string, unknown>, "mode", "speech") },
            rid,
          ),
          ["unavailable"],
          echo,
        );
      case "chat tools":
        return jsonCase(
          kind,
          envelope("chat_message", { content: "x", thread_id: "t", tools: value }, rid),
          ["not_found"],
          echo,
        );
      case "schema":
        return jsonCase(
          kind,
          envelope(
            "client_tools_manifest",
            spec(withKey(value as Record<string, unknown>, "type", "object")),
            rid,
          ),
          ["none", "bad_request"],
          echo,
        );
      default:
        return jsonCase(
          kind,
          envelope("client_tools_manifest", spec({ type: "object", properties: value }), rid),
          ["none", "bad_request"],
          echo,
        );
    }
  });
