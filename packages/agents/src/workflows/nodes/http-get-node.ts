import { type NodeType, nodeError, nodeOk } from "../node-type.js";
import { type GuardedGetOptions, guardedGet } from "./guarded-http-get.js";

/** `http.get`: fetches a public URL through the SSRF guard. */
export function createHttpGetNode(options: GuardedGetOptions = {}): NodeType {
  return {
    type: "http.get",
    description:
      "Fetches a public http(s) URL with GET and returns the response body as text. Private and loopback addresses are refused.",
    inputs: [{ name: "url", schema: { type: "string" }, description: "the URL to fetch" }],
    outputs: [
      { name: "body", schema: { type: "string" }, description: "the response body as text" },
      { name: "status", schema: { type: "integer" } },
      { name: "content_type", schema: { type: "string" } },
    ],
    process: async (inputs, _ctx, signal) => {
      if (typeof inputs.url !== "string") return nodeError('input "url" must be a string');
      const res = await guardedGet(inputs.url, signal, options);
      if (!res.ok) return nodeError(res.error);
      return nodeOk({ body: res.body, status: res.status, content_type: res.contentType });
    },
  };
}
