import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { ChatController } from "../chat-controller.js";

export const ControllerContext = createContext<ChatController | null>(null);

/** The controller that turns UI actions into commands. */
export function useController(): ChatController {
  const controller = useContext(ControllerContext);
  if (!controller) throw new Error("useController outside <ControllerContext.Provider>");
  return controller;
}
