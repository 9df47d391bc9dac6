export * from "./folder-cycles.js";
export * from "./scripted-provider.js";
