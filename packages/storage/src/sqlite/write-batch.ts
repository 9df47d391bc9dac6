import type Database from "better-sqlite3";

const batches = new WeakMap<Database.Database, WriteBatch>();

/** Statements that manage transactions themselves and must never open one. */
const CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release|pragma|vacuum|attach|detach)\b/i;

/**
 * One transaction for every write the connection makes in one event-loop turn: the first write of a
 * turn begins it, the frame log's group commit (or, with no frames to write, a setImmediate) commits
 * it. A turn's rows (thread, turn, messages, ledger) used to be a transaction each, each a WAL write
 * of the pages it touched; now they share the tick's commit with every other turn's rows and frames.
 * A frame still reaches a socket only after the commit that holds it and every row written before it.
 * Transactions the code opens itself become savepoints inside the batch, so they still roll back alone.
 */
export class WriteBatch {
  private readonly beginStatement: Database.Statement;
  private readonly commitStatement: Database.Statement;
  private readonly rollbackStatement: Database.Statement;
  private scheduled = false;
  private readonly commitLater = () => {
    this.scheduled = false;
    // The frame log's commit, queued for this tick too, commits these rows with its frames: one WAL
    // commit instead of two (a turn's start rows used to commit alone, just before its first frames).
    if (this.committedByLog()) return;
    try {
      this.commit();
    } catch (error) {
      this.onError(error);
    }
  };

  /** True when the frame log has a commit queued, which will commit the open batch (its `settle`). */
  committedByLog: () => boolean = () => false;

  /** Told when a commit the batch ran by itself failed (the frame log reports its own). */
  onError: (error: unknown) => void = (error) => console.error("agentwire: a batch of writes failed", error);

  constructor(private readonly sqlite: Database.Database) {
    this.beginStatement = sqlite.prepare("BEGIN");
    this.commitStatement = sqlite.prepare("COMMIT");
    this.rollbackStatement = sqlite.prepare("ROLLBACK");
  }

  /** Opens the tick's transaction unless one is open. */
  join(): void {
    if (this.sqlite.inTransaction || !this.sqlite.open) return;
    this.beginStatement.run();
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.commitLater);
  }

  /** Commits what the tick wrote; on failure rolls it back and throws (none of it was acknowledged). */
  commit(): void {
    if (!this.sqlite.open || !this.sqlite.inTransaction) return;
    try {
      this.commitStatement.run();
    } catch (error) {
      if (this.sqlite.inTransaction) this.rollbackStatement.run();
      throw error;
    }
  }
}

/**
 * Makes every write on `sqlite` join the tick's batch (statements prepared and transactions made from
 * now on; `pragma` and the batch's own control statements excepted). Call once, before the
 * repositories prepare their statements.
 */
export function batchWrites(sqlite: Database.Database): WriteBatch {
  const existing = batches.get(sqlite);
  if (existing) return existing;
  const batch = new WriteBatch(sqlite);
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    if (statement.reader || CONTROL.test(source)) return statement;
    const run = statement.run.bind(statement);
    statement.run = (...params: unknown[]) => {
      batch.join();
      return run(...params);
    };
    return statement;
  }) as typeof sqlite.prepare;
  const transaction = sqlite.transaction.bind(sqlite);
  sqlite.transaction = ((fn: (...args: unknown[]) => unknown) => {
    const inner = transaction(fn);
    const joined = (...args: unknown[]) => {
      batch.join();
      return inner(...args);
    };
    // drizzle calls the `deferred`/`immediate` forms; inside the batch they are all savepoints.
    for (const form of ["default", "deferred", "immediate", "exclusive"] as const) {
      Object.defineProperty(joined, form, { value: joined });
    }
    return joined;
  }) as typeof sqlite.transaction;
  batches.set(sqlite, batch);
  return batch;
}

/** Commits the connection's open batch now (the frame log's group commit; close). */
export function commitBatch(sqlite: Database.Database): void {
  batches.get(sqlite)?.commit();
}
