export * from "./config.js";
export * from "./create-services.js";
export * from "./install-signal-handlers.js";
export * from "./start-server.js";
