import type { OnBusy } from "@agentwire-chat/protocol";

/** What a message sent while a turn runs on its thread does, and how many may wait (BUSY_POLICY, QUEUE_MAX_PER_THREAD). */
export type BusySettings = {
  /** For a chat_message that names no `on_busy`. */
  policy: OnBusy;
  /** Messages a thread's queue holds at most. */
  queueMax: number;
};

/** Today's clients keep getting `busy`: nothing waits unless asked to. */
export const defaultBusySettings: BusySettings = { policy: "reject", queueMax: 10 };
