// `node --import` this to append every module URL the process resolves to $RECORD_IMPORTS (one a line).
import { register } from "node:module";

register(new URL("./record-imports-hooks.mjs", import.meta.url), {
  data: { file: process.env.RECORD_IMPORTS },
});
