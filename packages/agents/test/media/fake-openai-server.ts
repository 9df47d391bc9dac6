import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A recorded request to the fake server. */
export type Recorded = { method: string; url: string; body: Record<string, unknown> };
type Handler = (req: Recorded, res: ServerResponse) => void;

/** A local node:http server speaking just enough of the OpenAI images and speech APIs. */
export async function startFakeOpenAI(handler: Handler) {
  const requests: Recorded[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const rec = { method: req.method ?? "", url: req.url ?? "", body: text ? JSON.parse(text) : {} };
      requests.push(rec);
      handler(rec, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Sends a JSON body. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** The first bytes of a PNG file, enough for MIME sniffing. */
export const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
export const JPEG_BYTES = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 9, 9, 9]);
