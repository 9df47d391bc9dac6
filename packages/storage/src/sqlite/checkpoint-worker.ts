import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

/** How often the worker copies the WAL back into the database file. */
const INTERVAL_MS = 500;

// CommonJS on purpose: an `eval` worker runs no loader, so it must not need TypeScript or ESM hooks.
const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
const run = () => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
};
const timer = setInterval(run, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  run();
  db.close();
  process.exit(0);
});
`;

/**
 * Takes WAL checkpoints off the event loop: the serving connection stops checkpointing by itself
 * (`wal_autocheckpoint = 0`) and a worker thread with its own connection runs a passive checkpoint
 * every half second. SQLite's automatic checkpoint copied the WAL into the file and synced it inside
 * whichever commit crossed 1,000 pages: a stall of tens of milliseconds for the turn that hit it.
 * A file database only; returns the stop function (the main connection's close checkpoints the rest).
 */
export function checkpointInWorker(
  sqlite: Database.Database,
  onError: (message: string) => void,
): () => Promise<void> {
  if (sqlite.memory || sqlite.name === "") return async () => {};
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { driver, path: sqlite.name, intervalMs: INTERVAL_MS },
  });
  worker.unref();
  worker.on("message", (m: { error?: string }) => {
    if (m.error) onError(m.error);
  });
  worker.on("error", (error) => onError(error.message));
  let stopped: Promise<void> | undefined;
  let exited = false;
  worker.once("exit", () => {
    exited = true;
    // A worker that died unasked leaves the WAL to the serving connection again, as SQLite would.
    if (!stopped && sqlite.open) sqlite.pragma("wal_autocheckpoint = 1000");
  });
  sqlite.pragma("wal_autocheckpoint = 0");
  return () => {
    stopped ??= new Promise<void>((resolve) => {
      if (exited) return resolve();
      worker.once("exit", () => resolve());
      // Referenced again: a process with nothing else to do must wait for the last checkpoint.
      worker.ref();
      worker.postMessage("stop");
    });
    return stopped;
  };
}
