import type { z } from "zod";

/** A refused body's first issues as one line, each with its field path (`body` for the whole). */
export function bodyIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join(".") : "body"}: ${i.message}`)
    .join("; ");
}
