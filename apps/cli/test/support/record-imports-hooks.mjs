// Module hooks (run on the loader thread): record each resolved URL.
import { appendFileSync } from "node:fs";

let file;

/** Receives the file to append to. */
export function initialize(data) {
  file = data.file;
}

/** Resolves as usual, then records the URL. */
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (file) appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
