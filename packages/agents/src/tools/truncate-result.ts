/** A tool result cut to the byte limit. */
export type TruncatedResult = { text: string; bytes: number; truncated: boolean };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The visible marker at the end of a cut result, so the model knows it saw only a part. */
export const truncationMarker = (totalBytes: number, keptBytes: number): string =>
  `\n…[truncated: ${totalBytes} bytes, showing the first ${keptBytes}]`;

/** Cuts `text` to at most `maxBytes` UTF-8 bytes (marker included), never inside a character. */
export function truncateResult(text: string, maxBytes: number): TruncatedResult {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short strings need no encoding.
  if (text.length * 3 <= maxBytes) return { text, bytes: byteLength(text), truncated: false };
  const encoded = encoder.encode(text);
  if (encoded.length <= maxBytes) return { text, bytes: encoded.length, truncated: false };
  let keep = Math.max(0, maxBytes - byteLength(truncationMarker(encoded.length, maxBytes)));
  // Back off to a character boundary: UTF-8 continuation bytes are 10xxxxxx.
  while (keep > 0 && ((encoded[keep] ?? 0) & 0xc0) === 0x80) keep -= 1;
  const cut = decoder.decode(encoded.subarray(0, keep)) + truncationMarker(encoded.length, keep);
  return { text: cut, bytes: byteLength(cut), truncated: true };
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
