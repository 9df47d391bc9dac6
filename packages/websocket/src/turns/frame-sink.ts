import type { StampedFrame } from "@agentwire/protocol";

/** Somewhere frames of a turn go: a client connection watching the thread. */
export interface FrameSink {
  readonly id: string;
  readonly userId: string;
  send(frame: StampedFrame): void;
}
