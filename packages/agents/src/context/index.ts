export * from "./assemble-context.js";
export * from "./context-budget.js";
export * from "./context-settings.js";
export * from "./join-side-work.js";
export * from "./parse-summarizer-output.js";
export * from "./pick-verbatim.js";
export * from "./summarize-history.js";
export * from "./summarizer-prompt.js";
