export { contentText } from "@agentwire/protocol";
