export * from "./gen-ai-attributes.js";
export * from "./turn-trace.js";
export * from "./turn-tracer.js";
