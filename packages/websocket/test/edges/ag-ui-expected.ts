import { EventType } from "@ag-ui/core";

/** The events of a plain answer streamed in two deltas: the shape both the projection and the route give. */
export const PLAIN_ANSWER_EVENTS = [
  EventType.RUN_STARTED,
  EventType.STATE_SNAPSHOT,
  EventType.TEXT_MESSAGE_START,
  EventType.TEXT_MESSAGE_CONTENT,
  EventType.TEXT_MESSAGE_CONTENT,
  EventType.TEXT_MESSAGE_END,
  EventType.RUN_FINISHED,
];
