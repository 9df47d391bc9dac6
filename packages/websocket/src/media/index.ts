export * from "./asset-store.js";
export * from "./run-media-turn.js";
