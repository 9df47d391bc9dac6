import { z } from "zod";

/** One key of the user's long-term memory (what memory_write stored), as `GET /api/memory` lists it. */
export const MemoryEntry = z.object({ key: z.string(), value: z.string(), updated_at: z.string() });
export type MemoryEntry = z.infer<typeof MemoryEntry>;
