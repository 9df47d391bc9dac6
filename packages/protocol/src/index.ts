export * from "./client-commands.js";
export * from "./content.js";
export * from "./error-codes.js";
export * from "./execution-tree.js";
export { contractJsonSchema } from "./json-schema.js";
export * from "./message.js";
export * from "./parse-client-frame.js";
export * from "./server-frames.js";
export * from "./usage.js";
