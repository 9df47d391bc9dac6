import type { Repositories } from "../contract/repositories.js";
import { SharedApiTokensRepo } from "../shared/api-tokens-repo.js";
import { SharedAssetsRepo } from "../shared/assets-repo.js";
import { SharedMemoriesRepo } from "../shared/memories-repo.js";
import { SharedPlansRepo } from "../shared/plans-repo.js";
import { SharedUsersRepo } from "../shared/users-repo.js";
import { SharedWorkflowsRepo } from "../shared/workflows-repo.js";
import { PgLlmCallsRepo } from "./llm-calls-repo.js";
import { PgMessagesRepo } from "./messages-repo.js";
import type { PgDb } from "./open-postgres.js";
import { postgresDialect } from "./postgres-dialect.js";
import { PgQueuedMessagesRepo } from "./queued-messages-repo.js";
import { PgScratchpadRepo } from "./scratchpad-repo.js";
import { PgSummariesRepo } from "./summaries-repo.js";
import { PgThreadsRepo } from "./threads-repo.js";
import { PgToolGrantsRepo } from "./tool-grants-repo.js";
import { PgTurnsRepo } from "./turns-repo.js";

/** The repositories over one Postgres drizzle handle (its pool shared by all of them). */
export function createPgRepositories(db: PgDb): Repositories {
  const dialect = postgresDialect(db);
  return {
    users: new SharedUsersRepo(dialect),
    apiTokens: new SharedApiTokensRepo(dialect),
    threads: new PgThreadsRepo(db),
    messages: new PgMessagesRepo(db),
    queuedMessages: new PgQueuedMessagesRepo(db),
    turns: new PgTurnsRepo(db),
    llmCalls: new PgLlmCallsRepo(db),
    workflows: new SharedWorkflowsRepo(dialect),
    assets: new SharedAssetsRepo(dialect),
    memories: new SharedMemoriesRepo(dialect),
    plans: new SharedPlansRepo(dialect),
    scratchpad: new PgScratchpadRepo(db),
    summaries: new PgSummariesRepo(db),
    toolGrants: new PgToolGrantsRepo(db),
  };
}
