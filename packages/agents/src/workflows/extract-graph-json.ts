/** The JSON a model answered with, or why none could be read. */
export type ExtractedJson = { ok: true; value: unknown } | { ok: false; error: string };

const FENCE = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/;

/** Reads a JSON object from a model's answer: a ```json fence if there is one, else the outermost braces. */
export function extractGraphJson(text: string): ExtractedJson {
  const fenced = FENCE.exec(text)?.[1];
  let candidate = fenced?.trim();
  if (candidate === undefined) {
    const start = text.indexOf("{");
    const end = text.lastIndexOf("}");
    if (start === -1 || end <= start) return { ok: false, error: "no JSON object found in the answer" };
    candidate = text.slice(start, end + 1);
  }
  try {
    return { ok: true, value: JSON.parse(candidate) };
  } catch (err) {
    return { ok: false, error: `invalid JSON: ${(err as Error).message}` };
  }
}
