import type { ModelMessage } from "../providers/model-message.js";

const estimates = new WeakMap<ModelMessage, number>();

/** A cheap token estimate (≈4 characters a token plus framing), cached per message object. */
export function estimateTokens(message: ModelMessage): number {
  let n = estimates.get(message);
  if (n !== undefined) return n;
  n = countTokens(message);
  estimates.set(message, n);
  return n;
}

/**
 * The same estimate, not cached: a level counts each message once as it appends it, and a WeakMap
 * entry per message (its insert, and the ephemeron the GC then traces) was ~5 % of the loop's time.
 */
export function countTokens(message: ModelMessage): number {
  let chars = 0;
  switch (message.role) {
    case "user":
      chars =
        typeof message.content === "string" ? message.content.length : JSON.stringify(message.content).length;
      break;
    case "assistant":
      chars = message.text.length;
      for (const c of message.toolCalls ?? []) chars += c.name.length + JSON.stringify(c.args ?? null).length;
      for (const t of message.thinking ?? []) chars += t.text.length;
      break;
    case "tool":
      chars = message.content.length;
      break;
  }
  return Math.ceil(chars / 4) + 4;
}

/** Estimated tokens of a system prompt. */
export const estimateTextTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * Drops the oldest history until the estimate fits `maxTokens`. A tool call and its results go
 * together (a unit is a message plus the tool results that follow it); the latest user message and
 * everything after it are dropped last; the unit holding that user message and the newest unit never are.
 */
export function pruneHistory(
  messages: readonly ModelMessage[],
  maxTokens: number,
  reservedTokens = 0,
): ModelMessage[] {
  const units: { start: number; end: number; tokens: number }[] = [];
  let total = reservedTokens;
  let latestUser = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as ModelMessage;
    const tokens = estimateTokens(m);
    total += tokens;
    const last = units[units.length - 1];
    if (m.role === "tool" && last) {
      last.end = i + 1;
      last.tokens += tokens;
    } else {
      if (m.role === "user") latestUser = units.length;
      units.push({ start: i, end: i + 1, tokens });
    }
  }
  if (total <= maxTokens) return messages.slice();
  const dropped = new Set<number>();
  const newest = units.length - 1;
  const order = [...units.keys()].filter((u) => u !== latestUser && u !== newest);
  // Before the latest user message first, then the current turn's own older steps.
  order.sort((a, b) => Number(a > latestUser) - Number(b > latestUser) || a - b);
  for (const u of order) {
    if (total <= maxTokens) break;
    dropped.add(u);
    total -= (units[u] as { tokens: number }).tokens;
  }
  const kept: ModelMessage[] = [];
  units.forEach((unit, u) => {
    if (!dropped.has(u)) for (let i = unit.start; i < unit.end; i++) kept.push(messages[i] as ModelMessage);
  });
  return kept;
}
