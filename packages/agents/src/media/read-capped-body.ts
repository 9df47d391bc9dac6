/** The body's bytes, or a note that it grew past the cap (reading stops there). */
export type CappedBody = { ok: true; bytes: Buffer } | { ok: false; tooLarge: true };

/** Reads a fetch Response body, stopping (and cancelling the stream) once it exceeds `maxBytes`. */
export async function readCappedBody(response: Response, maxBytes: number): Promise<CappedBody> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    return { ok: false, tooLarge: true };
  }
  if (!response.body) return { ok: true, bytes: Buffer.alloc(0) };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return { ok: false, tooLarge: true };
    }
    chunks.push(value);
  }
  return { ok: true, bytes: Buffer.concat(chunks) };
}
