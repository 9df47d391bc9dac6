import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createProviderRegistry } from "@agentwire-chat/agents";
import { ScriptedProvider, type ScriptedStep } from "@agentwire-chat/agents/testing";
import { loadConfig, type RunningServer, startServer } from "@agentwire-chat/server";
import { createChatServices, createLogger } from "@agentwire-chat/websocket";
import { type ContinueScenario, continueChat } from "./continue-scenarios.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
/** The crash test server's script: its second model call streams "Half an answer", then hangs. */
export const crashChild = fileURLToPath(new URL("./crash-child.ts", import.meta.url));

/** The crash server as a real process (to kill with -9), and the http URL it listens on. */
export type CrashServer = { proc: ChildProcess; url: Promise<string> };

/** Starts the crash server as a real process over the SQLite file `dbPath`. */
export function spawnCrashServer(dbPath: string): CrashServer {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@agentwire-chat/source", crashChild],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", DATABASE_PATH: dbPath },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  proc.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const entry = JSON.parse(line) as { url?: string };
      if (entry.url) resolve(entry.url);
    });
    proc.once("exit", (code) => reject(new Error(`server exited with ${code} before listening:\n${stderr}`)));
  });
  return { proc, url };
}

/** Kills the process with SIGKILL and resolves once it is gone. */
export async function killHard(proc: ChildProcess): Promise<NodeJS.Signals | null> {
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    proc.once("exit", (_code, signal) => resolve(signal)),
  );
  proc.kill("SIGKILL");
  return exited;
}

/**
 * The server started again (in this process) over the same database, its model scripted by `steps`.
 * With TURN_RECOVERY=interrupt, as the other kill tests that check a cut turn's end: the turn killed
 * mid-answer ends `interrupted` instead of continuing (crash-continue.test.ts covers continuing).
 */
export function restartServer(dbPath: string, steps: ScriptedStep[]): Promise<RunningServer> {
  const providers = createProviderRegistry(
    {},
    {
      extraProviders: [new ScriptedProvider(steps)],
      extraDefaultModels: { scripted: "scripted-1" },
    },
  );
  return startServer(
    loadConfig({ DATABASE_PATH: dbPath, PORT: "0", LOG_LEVEL: "silent", TURN_RECOVERY: "interrupt" }),
    {
      services: { chat: createChatServices({ providers, defaults: { provider: "scripted" } }) },
      logger: createLogger({ level: "silent" }),
    },
  );
}

/** The crash-continue server's script: a scenario's turn, cut by a kill, goes on after a restart. */
export const continueChild = fileURLToPath(new URL("./continue-child.ts", import.meta.url));

/** Starts a crash-continue scenario's server as a real process over `dir` (its database and side effects). */
export function spawnContinueServer(dir: string, scenario: ContinueScenario): CrashServer {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=@agentwire-chat/source", continueChild],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_PATH: join(dir, "agentwire.db"),
        SIDE_EFFECT_DIR: dir,
        CONTINUE_SCENARIO: scenario,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const entry = JSON.parse(line) as { url?: string };
      if (entry.url) resolve(entry.url);
    });
    proc.once("exit", (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
  return { proc, url };
}

/** The scenario's server started again in this process over `dir`: the turn the kill cut continues. */
export function restartContinuing(dir: string, scenario: ContinueScenario): Promise<RunningServer> {
  return startServer(
    loadConfig({ DATABASE_PATH: join(dir, "agentwire.db"), PORT: "0", LOG_LEVEL: "silent" }),
    {
      services: { chat: continueChat(scenario, dir, false).chat },
      logger: createLogger({ level: "silent" }),
    },
  );
}
