// Run as a child process: opens the embedded default (a SQLite file) the way apps/server does and
// prints which database drivers the process loaded.
import { createRequire } from "node:module";
import { openStorage } from "@agentwire-chat/storage";

const path = process.argv[2];
if (!path) throw new Error("usage: open-embedded <sqlite file>");
const storage = await openStorage({ databasePath: path });
const ready = await storage.isReady();
await storage.close();
const loaded = Object.keys(createRequire(import.meta.url).cache);
const has = (name: string) => loaded.some((file) => file.includes(`/node_modules/${name}/`));
console.log(JSON.stringify({ ready, pg: has("pg"), betterSqlite3: has("better-sqlite3") }));
