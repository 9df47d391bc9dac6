import type { AuthSettings } from "../auth/resolve-user.js";
import type { ServerLimits } from "./server-limits.js";

/** What the server itself is configured with (the app's wider config stays in apps/server). */
export interface ServerSettings {
  auth: AuthSettings;
  /** Browser origins allowed to open /ws; `*` allows all; an empty list refuses every browser page. */
  allowedOrigins: readonly string[];
  /**
   * Host names served besides loopback (`name` or `name:port`). With AUTH_MODE=none every other Host
   * is refused (DNS rebinding); with tokens, only when the list is not empty.
   */
  allowedHosts: readonly string[];
  limits: ServerLimits;
}
