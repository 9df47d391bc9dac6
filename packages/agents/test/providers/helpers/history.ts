import type { ModelMessage, ToolSpec } from "../../../src/index.js";

/** A tool as the loop would pass it. */
export const WEATHER_TOOL: ToolSpec = {
  name: "get_weather",
  description: "Weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

/**
 * A history exercising the mapping: an image, a signed thinking block, two parallel calls whose
 * results arrive out of order, then a follow-up question.
 */
export const HISTORY: ModelMessage[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "Weather in Paris and Rome? Also, what is in this picture?" },
      { type: "image", data: "iVBORw0KGgo=", mime_type: "image/png" },
    ],
  },
  {
    role: "assistant",
    text: "Checking both.",
    thinking: [
      { text: "Two cities, two calls.", signature: "sig-EvMCCkYICxgC/+=" },
      { text: "", redactedData: "redacted-blob==" },
    ],
    toolCalls: [
      { id: "call_paris", name: "get_weather", args: { city: "Paris" } },
      { id: "call_rome", name: "get_weather", args: { city: "Rome" } },
    ],
  },
  { role: "tool", toolCallId: "call_rome", name: "get_weather", content: "rome: 24C" },
  { role: "tool", toolCallId: "call_paris", name: "get_weather", content: "paris: timeout", isError: true },
  { role: "user", content: "And tomorrow?" },
];
