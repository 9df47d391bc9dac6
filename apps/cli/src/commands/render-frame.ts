import { preview, type ServerFrame } from "@agentwire/protocol";

/** What the renderer keeps between frames: nested-call counts per root-level call, and each call's root. */
export type RenderState = { atLineStart: boolean; nested: Map<string, number>; rootOf: Map<string, string> };

export const initialRenderState = (): RenderState => ({
  atLineStart: true,
  nested: new Map(),
  rootOf: new Map(),
});

// A terminal line has room for little beside the tool name.
const PREVIEW_CHARS = 60;

/**
 * Turns one frame into terminal text. Root text streams as is; tool calls show indented by depth;
 * anything below depth 0 is collapsed into a count on its enclosing subtask's line.
 */
export function renderFrame(frame: ServerFrame, state: RenderState): string {
  const line = (text: string) => {
    const out = `${state.atLineStart ? "" : "\n"}${text}\n`;
    state.atLineStart = true;
    return out;
  };
  switch (frame.type) {
    case "chunk":
      if (frame.depth > 0 || frame.thinking || !frame.content) return "";
      state.atLineStart = frame.content.endsWith("\n");
      return frame.content;
    case "tool_call_update": {
      if (frame.depth > 0) {
        if (frame.status === "start" && frame.parent_id) {
          // Nested calls count toward the root-level subtask that holds them: the only line shown.
          const root = state.rootOf.get(frame.parent_id) ?? frame.parent_id;
          state.rootOf.set(frame.tool_call_id, root);
          state.nested.set(root, (state.nested.get(root) ?? 0) + 1);
        }
        return "";
      }
      if (frame.status === "start") {
        if (frame.name === "run_subtask") state.nested.set(frame.tool_call_id, 0);
        const label =
          frame.name === "run_subtask"
            ? (frame.title ?? preview(frame.args, PREVIEW_CHARS))
            : preview(frame.args, PREVIEW_CHARS);
        return line(`  ▸ ${frame.name} ${label}`);
      }
      const nested = state.nested.get(frame.tool_call_id);
      const extra = nested ? `, ${nested} nested call${nested === 1 ? "" : "s"}` : "";
      const time = frame.duration_ms !== undefined ? ` (${Math.round(frame.duration_ms)} ms${extra})` : "";
      return line(
        frame.is_error
          ? `  ✗ ${frame.name}${time}: ${preview(frame.result, PREVIEW_CHARS)}`
          : `  ✓ ${frame.name}${time}`,
      );
    }
    case "budget_exceeded":
      return line(`! budget exceeded: ${frame.reason} (limit ${frame.limit}, reached ${frame.observed})`);
    case "error":
      return line(`! ${frame.code}: ${frame.message}`);
    case "generation_stopped":
      return line("■ stopped");
    case "usage":
      return line(
        `· ${frame.input_tokens} in / ${frame.output_tokens} out tokens, ${frame.llm_calls} model calls, ` +
          `${frame.tool_calls} tool calls${frame.cost_known ? `, $${frame.cost_usd.toFixed(4)}` : ""}`,
      );
    case "thread":
      return line(`· thread ${frame.thread_id}`);
    default:
      return "";
  }
}
