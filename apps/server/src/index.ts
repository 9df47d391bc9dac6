export * from "./config.js";
export * from "./config-groups.js";
export * from "./config-reference.js";
export * from "./create-services.js";
export * from "./env-outside-schema.js";
export * from "./install-signal-handlers.js";
export * from "./start-server.js";
