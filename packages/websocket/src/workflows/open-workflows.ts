import type { SavedWorkflow, ServerFrame } from "@agentwire-chat/protocol";
import type { WorkflowRow } from "@agentwire-chat/storage";

/** A socket whose editor context may have a workflow open. */
export type EditorSocket = {
  readonly connectionId: string;
  readonly userId: string;
  /** Closed socket: it has nothing open any more. */
  readonly signal: AbortSignal;
  send(frame: ServerFrame): boolean;
};

/**
 * One saved workflow, for its user's editors. `replacing`: build_workflow saved into a new workflow
 * because the editor's `workflow_id` was not one of the user's yet; editors that had that id open
 * get this one and have it open from now on.
 */
export type WorkflowSaved = { userId: string; workflow: SavedWorkflow; replacing?: string };

/** Carries saves to the other instances (Redis pub/sub) and theirs back. */
export interface WorkflowUpdateRelay {
  publish(saved: WorkflowSaved): void;
  /** Starts receiving the other instances' saves. */
  listen(deliver: (saved: WorkflowSaved) => void): Promise<void>;
}

/**
 * The workflow each socket of this process has open in its editor context, by user: every save (here,
 * or on another instance through the relay) goes as `workflow_updated` to each socket of the user
 * that has that workflow open. A socket opens one by sending a `chat_message` whose context is
 * editor-based with a `workflow_id`; a message in any other context closes it.
 */
export class OpenWorkflows {
  private readonly byUser = new Map<string, Map<string, { socket: EditorSocket; workflowId: string }>>();
  private relay: WorkflowUpdateRelay | undefined;
  /** Sockets whose close already closes their editor context (one listener each, however often they reopen). */
  private readonly watched = new WeakSet<AbortSignal>();

  /** Sends this instance's saves to the others and delivers theirs here. */
  async relayVia(relay: WorkflowUpdateRelay): Promise<void> {
    this.relay = relay;
    await relay.listen((saved) => this.deliver(saved));
  }

  /** The socket's editor context now has `workflowId` open (undefined: nothing). */
  open(socket: EditorSocket, workflowId: string | undefined): void {
    if (socket.signal.aborted && workflowId !== undefined) return;
    let mine = this.byUser.get(socket.userId);
    if (workflowId === undefined) {
      mine?.delete(socket.connectionId);
      if (mine?.size === 0) this.byUser.delete(socket.userId);
      return;
    }
    if (!mine) {
      mine = new Map();
      this.byUser.set(socket.userId, mine);
    }
    if (!this.watched.has(socket.signal)) {
      this.watched.add(socket.signal);
      socket.signal.addEventListener("abort", () => this.open(socket, undefined), { once: true });
    }
    mine.set(socket.connectionId, { socket, workflowId });
  }

  /** A workflow of the user was saved: its open editors get it, here and on the other instances. */
  saved(userId: string, row: WorkflowRow, replacing?: string): void {
    const saved: WorkflowSaved = {
      userId,
      workflow: {
        id: row.id,
        name: row.name,
        graph: row.graph,
        updated_at: new Date(row.updatedAt).toISOString(),
      },
      ...(replacing !== undefined && replacing !== row.id && { replacing }),
    };
    this.deliver(saved);
    this.relay?.publish(saved);
  }

  /** How many sockets of this process have a workflow open (tests). */
  get size(): number {
    let n = 0;
    for (const mine of this.byUser.values()) n += mine.size;
    return n;
  }

  private deliver(saved: WorkflowSaved): void {
    const mine = this.byUser.get(saved.userId);
    if (!mine) return;
    const frame: ServerFrame = { type: "workflow_updated", workflow: saved.workflow };
    for (const entry of mine.values()) {
      if (entry.workflowId !== saved.workflow.id && entry.workflowId !== saved.replacing) continue;
      entry.workflowId = saved.workflow.id;
      entry.socket.send(frame);
    }
  }
}
