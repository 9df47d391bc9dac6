import { httpBase } from "@agentwire-chat/client";
import type { ThreadListing, ThreadSummary } from "@agentwire-chat/protocol";
import { threadListingFromWire } from "@agentwire-chat/protocol/turn-status-on-wire";
import type { CliIo, ExitCode } from "../cli-io.js";
import { nothingAnswers, WANTS_TOKEN } from "../server-messages.js";
import { SeenThreads } from "../threads/seen-threads.js";
import { threadLines } from "../threads/thread-lines.js";

const THREADS_USAGE = `usage: agentwire threads [options]
Your threads, newest first: live state (running, waiting, idle), id and title; a waiting thread's
question under it. • marks new activity: since you last had the thread open in agentwire chat
(a question waiting since, always), or for a thread never opened there, since the last listing.
options:
  --url URL         the server (default ws://127.0.0.1:8787/ws; env AGENTWIRE_URL)
  --token T         API token (env AGENTWIRE_TOKEN)
  --help            this text`;

/** `agentwire threads`: the user's threads with their live state, new activity marked. */
export async function runThreadsCommand(args: string[], io: CliIo): Promise<ExitCode> {
  let url = io.env.AGENTWIRE_URL || "ws://127.0.0.1:8787/ws";
  let token = io.env.AGENTWIRE_TOKEN;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") {
      io.stdout(`${THREADS_USAGE}\n`);
      return 0;
    }
    const value = args[i + 1];
    if ((arg === "--url" || arg === "--token") && value) {
      if (arg === "--url") url = value;
      else token = value;
      i++;
      continue;
    }
    io.stderr(`unexpected ${arg}\n${THREADS_USAGE}\n`);
    return 2;
  }
  let base: string;
  try {
    base = httpBase(url);
  } catch {
    io.stderr("agentwire threads: --url must be a ws://, wss://, http:// or https:// address\n");
    return 2;
  }
  const listed = await listThreads(base, token);
  if (typeof listed === "string") {
    io.stderr(`agentwire threads: ${listed}\n`);
    return 1;
  }
  const seen = new SeenThreads(io.env, base);
  const lastListed = seen.listedAt();
  const lines = threadLines(listed, (t) => {
    const at = seen.seenAt(t.id);
    if (t.state === "waiting_user") return at === undefined || t.updated_at > at;
    const since = at ?? lastListed;
    return since !== undefined && t.updated_at > since;
  });
  io.stdout(lines.length > 0 ? `${lines.join("\n")}\n` : "no threads yet: agentwire chat starts one\n");
  const newest = listed
    .map((t) => t.updated_at)
    .sort()
    .at(-1);
  if (newest) seen.note({}, newest);
  return 0;
}

/** `GET /api/threads`, or what to tell the user when it failed. */
async function listThreads(base: string, token: string | undefined): Promise<ThreadListing[] | string> {
  let response: Response;
  try {
    response = await fetch(`${base}/api/threads`, {
      ...(token && { headers: { authorization: `Bearer ${token}` } }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code === "ECONNREFUSED" ? nothingAnswers(new URL(base).host) : String(error);
  }
  if (response.status === 401) return WANTS_TOKEN;
  if (!response.ok) return `server refused: HTTP ${response.status}`;
  return ((await response.json()) as { threads: ThreadSummary[] }).threads.map(threadListingFromWire);
}
