import type { ChatServices } from "../chat/chat-services.js";
import type { MediaServices } from "../media/media-services.js";
import type { UIToolProxy } from "../tools/ui-tool-proxy.js";
import type { WorkflowServices } from "../workflows/workflow-services.js";

/**
 * The process's services, built once at start-up (apps/server) and passed to `createServer`: the
 * command table binds each handler to the services it uses, the server gives its HTTP routes theirs.
 * A service left out turns its commands and routes off (`unavailable`).
 */
export interface AgentwireServices {
  /** Chat turns (the chat route) and the turn lifecycle every route runs on; absent: no chat command is served. */
  chat?: ChatServices;
  /** The workflow route (saved workflows) and the workflows HTTP API; needs `chat`. */
  workflows?: WorkflowServices;
  /** The media route (media generation) and `GET /api/assets/:id`; needs `chat`. */
  media?: MediaServices;
  /** Client UI tools (editor context); absent: client_tools_manifest and tool_result answer `unavailable`. */
  uiTools?: UIToolProxy;
}
