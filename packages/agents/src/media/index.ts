export * from "./generate-media.js";
export * from "./media-generator.js";
export { imageMimeType, SPEECH_MIME } from "./media-mime.js";
export * from "./media-options.js";
export * from "./openai-media-generator.js";
