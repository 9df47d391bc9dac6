// Modules the browser tests build from documents (build-app.ts `modules`): typed here as the test uses them.
declare module "virtual:doc-example" {
  /** docs/ai-sdk.md's React example. */
  export function Chat(props: { chatId: string }): import("react").ReactNode;
}
