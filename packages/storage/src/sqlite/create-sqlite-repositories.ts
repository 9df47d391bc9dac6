import type { Repositories } from "../contract/repositories.js";
import { SharedApiTokensRepo } from "../shared/api-tokens-repo.js";
import { SharedAssetsRepo } from "../shared/assets-repo.js";
import { SharedMemoriesRepo } from "../shared/memories-repo.js";
import { SharedPlansRepo } from "../shared/plans-repo.js";
import { SharedUsersRepo } from "../shared/users-repo.js";
import { SharedWorkflowsRepo } from "../shared/workflows-repo.js";
import { SqliteLlmCallsRepo } from "./llm-calls-repo.js";
import { SqliteMessagesRepo } from "./messages-repo.js";
import type { Db } from "./open-database.js";
import { SqliteQueuedMessagesRepo } from "./queued-messages-repo.js";
import { SqliteScratchpadRepo } from "./scratchpad-repo.js";
import { sqliteDialect } from "./sqlite-dialect.js";
import { SqliteSummariesRepo } from "./summaries-repo.js";
import { SqliteThreadsRepo } from "./threads-repo.js";
import { SqliteToolGrantsRepo } from "./tool-grants-repo.js";
import { SqliteTurnsRepo } from "./turns-repo.js";

/** The repositories over one SQLite drizzle handle (statements prepared once, run synchronously). */
export function createSqliteRepositories(db: Db): Repositories {
  const dialect = sqliteDialect(db);
  return {
    users: new SharedUsersRepo(dialect),
    apiTokens: new SharedApiTokensRepo(dialect),
    threads: new SqliteThreadsRepo(db),
    messages: new SqliteMessagesRepo(db),
    queuedMessages: new SqliteQueuedMessagesRepo(db),
    turns: new SqliteTurnsRepo(db),
    llmCalls: new SqliteLlmCallsRepo(db),
    workflows: new SharedWorkflowsRepo(dialect),
    assets: new SharedAssetsRepo(dialect),
    memories: new SharedMemoriesRepo(dialect),
    plans: new SharedPlansRepo(dialect),
    scratchpad: new SqliteScratchpadRepo(db),
    summaries: new SqliteSummariesRepo(db),
    toolGrants: new SqliteToolGrantsRepo(db),
  };
}
