import type { Repositories } from "../contract/repositories.js";
import { PgApiTokensRepo } from "./api-tokens-repo.js";
import { PgAssetsRepo } from "./assets-repo.js";
import { PgLlmCallsRepo } from "./llm-calls-repo.js";
import { PgMemoriesRepo } from "./memories-repo.js";
import { PgMessagesRepo } from "./messages-repo.js";
import type { PgDb } from "./open-postgres.js";
import { PgPlansRepo } from "./plans-repo.js";
import { PgScratchpadRepo } from "./scratchpad-repo.js";
import { PgSummariesRepo } from "./summaries-repo.js";
import { PgThreadsRepo } from "./threads-repo.js";
import { PgToolGrantsRepo } from "./tool-grants-repo.js";
import { PgTurnsRepo } from "./turns-repo.js";
import { PgUsersRepo } from "./users-repo.js";
import { PgWorkflowsRepo } from "./workflows-repo.js";

/** The repositories over one Postgres drizzle handle (its pool shared by all of them). */
export function createPgRepositories(db: PgDb): Repositories {
  return {
    users: new PgUsersRepo(db),
    apiTokens: new PgApiTokensRepo(db),
    threads: new PgThreadsRepo(db),
    messages: new PgMessagesRepo(db),
    turns: new PgTurnsRepo(db),
    llmCalls: new PgLlmCallsRepo(db),
    workflows: new PgWorkflowsRepo(db),
    assets: new PgAssetsRepo(db),
    memories: new PgMemoriesRepo(db),
    plans: new PgPlansRepo(db),
    scratchpad: new PgScratchpadRepo(db),
    summaries: new PgSummariesRepo(db),
    toolGrants: new PgToolGrantsRepo(db),
  };
}
