import { SEND_UPDATE } from "../tools/send-update-tool.js";

const ASK_USER = "ask_user";

/**
 * The working rules every level shares (root and subtasks): when to ask and when to act, progress on
 * long work, and asking before destroying anything. Tools the level lacks go unmentioned, so the
 * model is never told to call what it cannot.
 */
export function agenticRules(toolNames: readonly string[] | undefined): string[] {
  const has = (name: string) => toolNames === undefined || toolNames.includes(name);
  const ask = has(ASK_USER) ? `ask with ${ASK_USER}` : "say what you need in your answer";
  return [
    "Act when the request is clear enough to do well; state any assumption you make. Ask only when a missing " +
      "detail would change the result and you cannot find it out yourself.",
    ...(has(SEND_UPDATE)
      ? [
          `On long work (many tool calls, subtasks or a plan), tell the user how it goes with ${SEND_UPDATE} ` +
            "between the parts; not for the final answer.",
        ]
      : []),
    `Before anything that deletes, overwrites or replaces what the user has (files, a workflow, stored data), ${ask} ` +
      "first, unless the user asked for exactly that.",
  ];
}
