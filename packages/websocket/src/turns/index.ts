export * from "./frame-sink.js";
export * from "./running-turn.js";
export * from "./turn-registry.js";
