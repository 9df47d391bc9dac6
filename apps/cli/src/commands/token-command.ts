import { parseArgs } from "node:util";
import { openStorage } from "@agentwire-chat/storage";
import { generateApiToken, hashApiToken } from "@agentwire-chat/websocket";
import type { CliIo, ExitCode } from "../cli-io.js";

const USAGE = `usage:
  agentwire token create --user NAME   create a token for NAME (printed once)
  agentwire token list [--user NAME]   list tokens (ids, users, dates; never the tokens)
  agentwire token revoke ID            revoke a token by id
The database is DATABASE_URL (postgres://…) when set, else DATABASE_PATH (default ./data/agentwire.db).
`;

const USER_NAME = /^[A-Za-z0-9_.@-]{1,64}$/;

/** `agentwire token create|list|revoke`, against the server's database (DATABASE_URL, else DATABASE_PATH). */
export async function runTokenCommand(args: string[], io: CliIo): Promise<ExitCode> {
  const [action, ...rest] = args;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rest);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (action !== "create" && action !== "list" && action !== "revoke") {
    io.stderr(USAGE);
    return 2;
  }
  if (action === "create" && (values.user === undefined || !USER_NAME.test(values.user))) {
    io.stderr(`token create needs --user NAME (letters, digits, _ . @ -)\n${USAGE}`);
    return 2;
  }
  if (action === "revoke" && positionals.length !== 1) {
    io.stderr(`token revoke needs one token id\n${USAGE}`);
    return 2;
  }
  const storage = await openStorage({
    databaseUrl: io.env.DATABASE_URL || undefined,
    databasePath: io.env.DATABASE_PATH || "./data/agentwire.db",
  });
  try {
    const { repos } = storage;
    if (action === "create") {
      const user = values.user!;
      const token = generateApiToken();
      await repos.users.ensure(user);
      const id = await repos.apiTokens.create(user, hashApiToken(token));
      io.stderr(`created token ${id} for ${user}; it is shown once, store it now:\n`);
      io.stdout(`${token}\n`);
      return 0;
    }
    if (action === "list") {
      const rows = await repos.apiTokens.list(values.user);
      io.stdout("id\tuser\tcreated\tlast_used\trevoked\n");
      for (const row of rows) {
        const cells = [row.id, row.userId, iso(row.createdAt), iso(row.lastUsedAt), iso(row.revokedAt)];
        io.stdout(`${cells.join("\t")}\n`);
      }
      return 0;
    }
    if (!(await repos.apiTokens.revoke(positionals[0]!))) {
      io.stderr(`no active token with id ${positionals[0]}\n`);
      return 1;
    }
    io.stderr(`revoked ${positionals[0]}\n`);
    return 0;
  } finally {
    await storage.close();
  }
}

function parse(args: string[]) {
  return parseArgs({ args, options: { user: { type: "string" } }, allowPositionals: true, strict: true });
}

function iso(ms: number | null): string {
  return ms === null ? "-" : new Date(ms).toISOString();
}
