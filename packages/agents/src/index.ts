export * from "./providers/model-message.js";
export * from "./providers/provider.js";
export * from "./providers/provider-event.js";
export * from "./providers/provider-request.js";
export * from "./tools/define-tool.js";
export * from "./tools/permission-class.js";
export * from "./tools/tool.js";
