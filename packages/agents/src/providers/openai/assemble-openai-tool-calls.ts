import { toolCallFromRawArgs } from "../parse-tool-args.js";
import type { ToolCallEvent } from "../provider-event.js";
import type { OpenAIToolCallDelta } from "./openai-chunk.js";

type PendingCall = { index: number | undefined; id: string | undefined; name: string; args: string };

/**
 * Assembles streamed tool-call deltas into complete calls. Real OpenAI sends id and name once and
 * keys fragments by `index`; compatible servers omit the index, repeat or omit ids, reuse index 0
 * for parallel calls, repeat or blank the name, or send whole arguments at once — all handled here.
 */
export class OpenAIToolCallAssembler {
  private readonly calls: PendingCall[] = [];

  /** Adds one delta from `choices[0].delta.tool_calls`. */
  add(delta: OpenAIToolCallDelta): void {
    const id = delta.id || undefined;
    const name = delta.function?.name || undefined;
    const index = typeof delta.index === "number" ? delta.index : undefined;
    let call = this.findCall(index, id, name);
    if (!call) {
      call = { index, id, name: "", args: "" };
      this.calls.push(call);
    }
    if (id && !call.id) call.id = id;
    // A name repeated on every delta must not be concatenated; "" on continuations is noise.
    if (name && !call.name) call.name = name;
    call.args += delta.function?.arguments ?? "";
  }

  /** How many calls have been seen so far. */
  get size(): number {
    return this.calls.length;
  }

  /** The complete calls in order, with unique ids (generated when the server gave none or repeated one). */
  finish(makeId: () => string): ToolCallEvent[] {
    const used = new Set<string>();
    return this.calls.map((call) => {
      let id = call.id;
      if (!id || used.has(id)) id = makeId();
      used.add(id);
      return toolCallFromRawArgs(id, call.name, call.args);
    });
  }

  private findCall(index: number | undefined, id: string | undefined, name: string | undefined) {
    if (index !== undefined) {
      const atIndex = this.calls.findLast((c) => c.index === index);
      // A different id at a used index is a new call (Ollama sends index 0 for every parallel call),
      // unless the current call's arguments are still incomplete (then the id merely changed).
      if (atIndex && id && atIndex.id && atIndex.id !== id && isComplete(atIndex)) return undefined;
      return atIndex;
    }
    if (id) {
      const sameId = this.calls.find((c) => c.id === id);
      if (sameId) return sameId;
    }
    const last = this.calls.at(-1);
    if (!last) return undefined;
    if (id && last.id && isComplete(last)) return undefined;
    if (!id && name && last.name && isComplete(last)) return undefined;
    return last;
  }
}

function isComplete(call: PendingCall): boolean {
  if (call.args.trim() === "") return false;
  try {
    JSON.parse(call.args);
    return true;
  } catch {
    return false;
  }
}
