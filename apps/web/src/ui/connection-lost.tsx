import type { ConnectionState } from "@agentwire-chat/client";
import { useEffect, useState } from "preact/hooks";
import { useController } from "./controller-context.js";

/** Whole seconds until `at`, never below zero. */
function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** What the page does next while offline, in words: the countdown to the next attempt, or the attempt itself. */
export function nextStep(link: ConnectionState, now: number): string {
  if (link.status === "offline") return `Reconnecting in ${secondsUntil(link.retryAt, now)} s.`;
  if (link.status === "closed") return "The page will not reconnect: reload it.";
  return "Reconnecting…";
}

/**
 * Shown in place of the agent's status while the socket is down: the turn is not "Writing…" as far
 * as this page can tell. Says that the page reconnects by itself and the turn goes on once the
 * server is back (the page cannot tell a server that is down from a network that is), and why Stop
 * waits; gone as soon as the socket is back.
 */
export function ConnectionLost({ link, running }: { link: ConnectionState; running: boolean }) {
  const controller = useController();
  const [now, setNow] = useState(Date.now());
  const counting = link.status === "offline";
  useEffect(() => {
    if (!counting) return;
    // The countdown ticks each second; the attempt itself is the client's timer, not this one.
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [counting]);
  return (
    <output class="connection-lost" data-link={link.status}>
      <p>
        <strong>Connection lost.</strong> {nextStep(link, Math.max(now, Date.now()))}
        {running &&
          " The page reconnects by itself; once the server is back, the turn goes on here and Stop works again."}
      </p>
      {counting && (
        <button type="button" onClick={() => controller.retryNow()}>
          Retry now
        </button>
      )}
    </output>
  );
}
