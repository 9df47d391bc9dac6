import { type WebSocket, WebSocketServer } from "ws";

/** A scripted WebSocket server: `onCommand` answers each command a client sends with raw text frames. */
export type FakeServer = {
  url: string;
  connections: number;
  received: { command: string; data: unknown; request_id?: string }[];
  close(): Promise<void>;
};

export async function startFakeServer(
  onCommand: (
    command: { command: string; data: Record<string, unknown>; request_id?: string },
    send: (frame: object | string) => void,
    socket: WebSocket,
  ) => void,
): Promise<FakeServer> {
  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    path: "/ws",
    handleProtocols: (offered) =>
      offered.has("agentwire.v1+nested") ? "agentwire.v1+nested" : "agentwire.v1",
  });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const address = wss.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const fake: FakeServer = {
    url: `ws://127.0.0.1:${address.port}/ws`,
    connections: 0,
    received: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
  wss.on("connection", (socket) => {
    fake.connections++;
    socket.on("message", (data) => {
      const command = JSON.parse(String(data));
      fake.received.push(command);
      onCommand(
        command,
        (frame) => socket.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
        socket,
      );
    });
  });
  return fake;
}
