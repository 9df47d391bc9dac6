import { connect, createServer, type Socket } from "node:net";

/** A TCP proxy in front of a server whose every connection `cut()` destroys, as a dropped network does. */
export type TcpProxy = {
  url: string;
  cut(): void;
  /** Drops the bytes one way from now until `cut()` (a network that swallows what it carries). */
  swallow(direction: "to-server" | "to-client"): void;
  /** While true, every connection is closed as it arrives: a server that is down (cut() the open ones). */
  refuse(refusing: boolean): void;
  /** Sends new connections to another server (a restarted one on a new port). */
  retarget(target: string): void;
  connections(): number;
  close(): Promise<void>;
};

/** Starts a proxy on 127.0.0.1 to `target` (`ws://host:port/...`); `url` is the same URL through it. */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  let to = new URL(target);
  const open = new Set<Socket>();
  let accepted = 0;
  let swallowing: "to-server" | "to-client" | undefined;
  let refusing = false;
  const server = createServer((inbound) => {
    accepted++;
    if (refusing) {
      inbound.destroy();
      return;
    }
    const outbound = connect(Number(to.port), to.hostname);
    for (const [a, b, direction] of [
      [inbound, outbound, "to-server"],
      [outbound, inbound, "to-client"],
    ] as const) {
      open.add(a);
      a.on("data", (chunk) => {
        if (swallowing !== direction) b.write(chunk);
      });
      a.on("error", () => b.destroy());
      a.on("close", () => {
        open.delete(a);
        b.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const url = new URL(target);
  url.port = String(address.port);
  return {
    url: url.toString(),
    cut: () => {
      swallowing = undefined;
      for (const socket of open) socket.destroy();
    },
    refuse: (on) => {
      refusing = on;
    },
    retarget: (next) => {
      to = new URL(next);
    },
    swallow: (direction) => {
      swallowing = direction;
    },
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
