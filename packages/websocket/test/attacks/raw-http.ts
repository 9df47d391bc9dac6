import { request } from "node:http";
import { connect } from "node:net";

/** One HTTP request to the test server with headers a real client cannot forge (Host); status and body. */
export function rawRequest(
  httpUrl: string,
  path: string,
  headers: Record<string, string>,
  method = "GET",
): Promise<{ status: number; body: string }> {
  const url = new URL(httpUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * A WebSocket upgrade request written byte for byte on a TCP socket (the path exactly as given, no
 * normalisation by a client library); the status of the server's answer and its body, if any.
 */
export function rawUpgrade(
  httpUrl: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const url = new URL(httpUrl);
  const all: Record<string, string> = {
    host: url.host,
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": Buffer.from("0123456789abcdef").toString("base64"),
    ...headers,
  };
  const head = `GET ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(head));
    let text = "";
    const settle = () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const split = text.indexOf("\r\n\r\n");
      resolve({ status, body: split === -1 || status === 101 ? "" : text.slice(split + 4) });
      socket.destroy();
    };
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      if (split === -1) return;
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, split))?.[1] ?? 0);
      if (text.startsWith("HTTP/1.1 101") || text.length >= split + 4 + length) settle();
    });
    socket.on("end", settle);
    socket.on("error", reject);
  });
}
