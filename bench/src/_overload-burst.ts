// The burst of `pnpm bench overload`, in its own process (forked with IPC) so that its thousands of
// sockets do not delay the parent's clients, whose arrival times are the measurement. It connects
// `turns` sockets and says ready; `{op: "go"}` sends one chat_message per socket spread over
// `burstMs`, and is answered once every turn is done (or at `timeoutMs`) with their summary.
import { countdown, openClients, summarize, type TurnsSummary, within } from "./_overload-client.js";

export type BurstOptions = {
  wsUrl: string;
  turns: number;
  chunks: number;
  burstMs: number;
  retryMs: number;
  connectParallel: number;
  timeoutMs: number;
};
export type BurstResult = { completed: boolean; summary: TurnsSummary };

const options = JSON.parse(process.argv[2] ?? "{}") as BurstOptions;
const finished = countdown(options.turns);
const clients = await openClients(options.wsUrl, options.turns, options.connectParallel, () => ({
  content: `burst bench:chunks=${options.chunks}`,
  retryMs: options.retryMs,
  keepArrivals: false,
  onDone: finished.tick,
}));

process.on("message", async (m: { id: number; op: "go" | "stop" }) => {
  if (m.op === "stop") {
    for (const c of clients) c.ws.terminate();
    process.send?.({ id: m.id }, () => process.exit(0));
    return;
  }
  clients.forEach((c, i) => {
    setTimeout(() => c.start(), (i / options.turns) * options.burstMs);
  });
  const completed = await within(finished.done, options.timeoutMs);
  process.send?.({
    id: m.id,
    completed,
    summary: summarize(clients, options.chunks),
  } satisfies BurstResult & {
    id: number;
  });
});
// The parent died (or was killed): nobody will ask this process to stop.
process.once("disconnect", () => process.exit(0));
process.send?.({ ready: true });
