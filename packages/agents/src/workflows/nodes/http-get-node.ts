import { bodyText, createGuardedGet, type GuardedGetOptions } from "../../tools/builtin/web/guarded-get.js";
import { type NodeType, nodeError, nodeOk } from "../node-type.js";

/** `http.get`: fetches a public URL through the same guarded client as web_fetch. */
export function createHttpGetNode(options: GuardedGetOptions = {}): NodeType {
  const get = createGuardedGet(options);
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
      const res = await get(inputs.url, signal);
      if (!res.ok) return nodeError(res.reason);
      const { status, contentType } = res.value;
      if (status < 200 || status > 299)
        return nodeError(`HTTP ${status} from ${new URL(res.value.url).host}`);
      return nodeOk({ body: bodyText(res.value), status, content_type: contentType });
    },
  };
}
