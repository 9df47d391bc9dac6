import { z } from "zod";
import { defineTool, ok, toolError } from "../define-tool.js";
import type { Tool, ToolOutcome } from "../tool.js";
import type { MemoryStore } from "./memory-store.js";

/** Limits of the memory tools. */
export type MemoryLimits = { maxKeyLength: number; maxValueBytes: number; maxKeysPerUser: number };

export const defaultMemoryLimits: MemoryLimits = {
  maxKeyLength: 128,
  maxValueBytes: 16 * 1024,
  maxKeysPerUser: 500,
};

const KEY_CHARS = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

// Writes for one (store, user) run one at a time inside this process, so the key-count check
// and the write cannot interleave across two turns of the same user.
/** The memory tools' argument schemas by key length limit: built once per limit, not per turn. */
const argsByKeyLength = new Map<
  number,
  {
    list: z.ZodObject;
    read: z.ZodObject<{ key: z.ZodString }>;
    write: z.ZodObject<{ key: z.ZodString; value: z.ZodString }>;
  }
>();

function memoryArgs(maxKeyLength: number) {
  let args = argsByKeyLength.get(maxKeyLength);
  if (!args) {
    const key = z.string().max(4 * maxKeyLength);
    args = { list: z.object({}), read: z.object({ key }), write: z.object({ key, value: z.string() }) };
    argsByKeyLength.set(maxKeyLength, args);
  }
  return args;
}

const writeQueues = new WeakMap<MemoryStore, Map<string, Promise<unknown>>>();

function serialised<T>(store: MemoryStore, userId: string, job: () => Promise<T>): Promise<T> {
  let queues = writeQueues.get(store);
  if (!queues) {
    queues = new Map();
    writeQueues.set(store, queues);
  }
  const run = (queues.get(userId) ?? Promise.resolve()).then(job, job);
  const tail = run.catch(() => undefined);
  queues.set(userId, tail);
  void tail.then(() => {
    if (queues.get(userId) === tail) queues.delete(userId);
  });
  return run;
}

/**
 * memory_list, memory_read and memory_write bound to one user: the user id is fixed here,
 * never taken from arguments, so one user's tools cannot address another's keys.
 */
export function createMemoryTools(
  store: MemoryStore,
  userId: string,
  limits?: Partial<MemoryLimits>,
): Tool[] {
  if (userId.length === 0) throw new TypeError("createMemoryTools: empty user id");
  const lim = { ...defaultMemoryLimits, ...limits };
  const keyError = (key: string): string | null => {
    if (key.length === 0) return "key is empty";
    if (key.length > lim.maxKeyLength) return `key is longer than ${lim.maxKeyLength} characters`;
    if (!KEY_CHARS.test(key)) {
      return "key may only contain letters, digits, '_', '.', ':' and '-', and must start with a letter or digit";
    }
    return null;
  };
  const args = memoryArgs(lim.maxKeyLength);

  const memoryList = defineTool({
    name: "memory_list",
    description: "List the keys of your long-term memory (kept across conversations).",
    args: args.list,
    permissionClass: "knowledge",
    execute: () =>
      storeCall(async () => {
        const keys = await store.list(userId);
        return ok({ keys, count: keys.length, maxKeys: lim.maxKeysPerUser });
      }),
  });

  const memoryRead = defineTool({
    name: "memory_read",
    description: "Read one value of your long-term memory by key.",
    args: args.read,
    permissionClass: "knowledge",
    execute: ({ key }) =>
      storeCall(async () => {
        const bad = keyError(key);
        if (bad) return toolError(bad);
        const value = await store.get(userId, key);
        return value === undefined ? toolError(`no memory stored under key ${key}`) : ok({ key, value });
      }),
  });

  const memoryWrite = defineTool({
    name: "memory_write",
    description: `Store a value (at most ${lim.maxValueBytes} bytes) under a key in your long-term memory, replacing any previous value.`,
    args: args.write,
    permissionClass: "knowledge",
    parallelSafe: false,
    requiresExclusiveLock: "memory",
    execute: ({ key, value }) =>
      storeCall(async () => {
        const bad = keyError(key);
        if (bad) return toolError(bad);
        const bytes = Buffer.byteLength(value);
        if (bytes > lim.maxValueBytes) {
          return toolError(`value is ${bytes} bytes; memory_write accepts at most ${lim.maxValueBytes}`);
        }
        return serialised(store, userId, async () => {
          const exists = (await store.get(userId, key)) !== undefined;
          if (!exists && (await store.list(userId)).length >= lim.maxKeysPerUser) {
            return toolError(
              `memory is full (${lim.maxKeysPerUser} keys); overwrite an existing key instead`,
            );
          }
          await store.set(userId, key, value);
          return ok({ key, bytes, created: !exists });
        });
      }),
  });

  return [memoryList, memoryRead, memoryWrite];
}

/** Runs a store call; a failing store becomes an error result without its internals. */
async function storeCall(body: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  try {
    return await body();
  } catch {
    return toolError("the memory store is unavailable; try again later");
  }
}
