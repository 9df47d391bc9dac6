/**
 * Services that later code makes available to command handlers and routes (a provider registry, a turn
 * registry, ...). Each adds its field by declaration merging where it is defined, and apps/server passes
 * the instances to `createServer({ services })`:
 *
 *   declare module "@agentwire/websocket" { interface AgentwireServices { turns: TurnRegistry } }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging
export interface AgentwireServices {}
