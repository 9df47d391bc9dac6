import type { ScratchpadEdit, ScratchpadItem } from "@agentwire-chat/protocol";

/** The item with the user's edit applied and stamped `now`. Pure: both database dialects share it. */
export function editScratchpadItem(
  item: ScratchpadItem,
  edit: ScratchpadEdit,
  now: number = Date.now(),
): ScratchpadItem {
  return {
    ...item,
    ...(edit.kind !== undefined && { kind: edit.kind }),
    ...(edit.title !== undefined && { title: edit.title }),
    ...(edit.details !== undefined && { details: edit.details }),
    ...(edit.status !== undefined && { status: edit.status }),
    updated_at: new Date(now).toISOString(),
  };
}
