import { ApiTokensRepo } from "./api-tokens-repo.js";
import { AssetsRepo } from "./assets-repo.js";
import { LlmCallsRepo } from "./llm-calls-repo.js";
import { MemoriesRepo } from "./memories-repo.js";
import { MessagesRepo } from "./messages-repo.js";
import type { Db } from "./open-database.js";
import { ThreadsRepo } from "./threads-repo.js";
import { TurnsRepo } from "./turns-repo.js";
import { UsersRepo } from "./users-repo.js";
import { WorkflowsRepo } from "./workflows-repo.js";

/** The data-access layer: every query the server makes goes through one of these. */
export interface Repositories {
  users: UsersRepo;
  apiTokens: ApiTokensRepo;
  threads: ThreadsRepo;
  messages: MessagesRepo;
  turns: TurnsRepo;
  llmCalls: LlmCallsRepo;
  workflows: WorkflowsRepo;
  assets: AssetsRepo;
  memories: MemoriesRepo;
}

/** Builds the repositories over one drizzle handle. */
export function createRepositories(db: Db): Repositories {
  return {
    users: new UsersRepo(db),
    apiTokens: new ApiTokensRepo(db),
    threads: new ThreadsRepo(db),
    messages: new MessagesRepo(db),
    turns: new TurnsRepo(db),
    llmCalls: new LlmCallsRepo(db),
    workflows: new WorkflowsRepo(db),
    assets: new AssetsRepo(db),
    memories: new MemoriesRepo(db),
  };
}
