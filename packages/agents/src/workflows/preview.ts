/** A short, single-line-ish preview of a node's value for `node_update.result_preview`. */
export function previewOf(value: unknown, maxChars = 200): string {
  let text: string;
  if (typeof value === "string") text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** The preview of a node's outputs: the value itself when there is only one. */
export function previewOutputs(outputs: Record<string, unknown>, maxChars = 200): string {
  const values = Object.values(outputs);
  return previewOf(values.length === 1 ? values[0] : outputs, maxChars);
}

/** Text form of an output value for the stored assistant message. */
export function outputText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
