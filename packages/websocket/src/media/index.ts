export * from "./asset-store.js";
export type { MediaServices } from "./media-services.js";
export * from "./run-media-turn.js";
