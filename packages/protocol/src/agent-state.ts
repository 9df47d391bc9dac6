import { z } from "zod";
import { AgentStateName } from "./server-frames.js";
import { TurnStatus } from "./turn-status.js";

/** An `agent_state` state in turn words: the wire's `waiting_on_user` is `waiting_user`. */
export const AgentState = z.enum([
  ...AgentStateName.exclude(["waiting_on_user"]).options,
  TurnStatus.enum.waiting_user,
]);
export type AgentState = z.infer<typeof AgentState>;
