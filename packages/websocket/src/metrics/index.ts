export * from "./agentwire-metrics.js";
export * from "./metrics-route.js";
