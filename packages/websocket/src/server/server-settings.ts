import type { AuthSettings } from "../auth/resolve-user.js";
import type { ServerLimits } from "./server-limits.js";

/** What the server itself is configured with (the app's wider config stays in apps/server). */
export interface ServerSettings {
  auth: AuthSettings;
  /** Browser origins allowed to open /ws; `*` allows all; an empty list refuses every browser page. */
  allowedOrigins: readonly string[];
  limits: ServerLimits;
}
