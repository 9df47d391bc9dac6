import type { Repositories } from "../contract/repositories.js";
import { SqliteApiTokensRepo } from "./api-tokens-repo.js";
import { SqliteAssetsRepo } from "./assets-repo.js";
import { SqliteLlmCallsRepo } from "./llm-calls-repo.js";
import { SqliteMemoriesRepo } from "./memories-repo.js";
import { SqliteMessagesRepo } from "./messages-repo.js";
import type { Db } from "./open-database.js";
import { SqlitePlansRepo } from "./plans-repo.js";
import { SqliteScratchpadRepo } from "./scratchpad-repo.js";
import { SqliteSummariesRepo } from "./summaries-repo.js";
import { SqliteThreadsRepo } from "./threads-repo.js";
import { SqliteToolGrantsRepo } from "./tool-grants-repo.js";
import { SqliteTurnsRepo } from "./turns-repo.js";
import { SqliteUsersRepo } from "./users-repo.js";
import { SqliteWorkflowsRepo } from "./workflows-repo.js";

/** The repositories over one SQLite drizzle handle (statements prepared once, run synchronously). */
export function createSqliteRepositories(db: Db): Repositories {
  return {
    users: new SqliteUsersRepo(db),
    apiTokens: new SqliteApiTokensRepo(db),
    threads: new SqliteThreadsRepo(db),
    messages: new SqliteMessagesRepo(db),
    turns: new SqliteTurnsRepo(db),
    llmCalls: new SqliteLlmCallsRepo(db),
    workflows: new SqliteWorkflowsRepo(db),
    assets: new SqliteAssetsRepo(db),
    memories: new SqliteMemoriesRepo(db),
    plans: new SqlitePlansRepo(db),
    scratchpad: new SqliteScratchpadRepo(db),
    summaries: new SqliteSummariesRepo(db),
    toolGrants: new SqliteToolGrantsRepo(db),
  };
}
