// `node bench/scripts/summarize-cpu-profile.mjs FILE.cpuprofile [--top N]`: self time by function and
// by area (sqlite, ws/net writes, generators and promises, JSON, GC, ...) of a V8 CPU profile
// (`node --cpu-prof`), as percentages of the sampled time. Used for bench/README.md's profiles.
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: summarize-cpu-profile.mjs FILE.cpuprofile [--top N]");
  process.exit(2);
}
const topIndex = process.argv.indexOf("--top");
const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 25;
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()]
  .filter(([id]) => byId.get(id).callFrame.functionName === "(idle)")
  .reduce((a, [, t]) => a + t, 0);
const busy = total - idle;

const areas = [
  ["sqlite", /better-sqlite3|drizzle-orm/],
  [
    "ws send / net write",
    /node_modules\/ws\/|writev|writeGeneric|net\.js|stream_base_commons|_stream_writable|writable\.js/,
  ],
  ["JSON", /stringify|JSON|parse/],
  ["garbage collection", /\(garbage collector\)/],
  ["agentwire websocket", /packages\/websocket\/src/],
  ["agentwire agents", /packages\/agents\/src/],
  ["pino", /pino/],
  ["fastify", /fastify/],
];
const fnTotals = new Map();
const areaTotals = new Map();
for (const [id, t] of self) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  if (functionName === "(idle)") continue;
  const where = url ? url.replace(/^.*\/(node_modules|packages|bench|apps)\//, "$1/") : "";
  const key = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
  fnTotals.set(key, (fnTotals.get(key) ?? 0) + t);
  const label = `${functionName} ${url}`;
  const area = areas.find(([, re]) => re.test(label))?.[0] ?? "other (V8 internals, promises, generators)";
  areaTotals.set(area, (areaTotals.get(area) ?? 0) + t);
}
const pct = (t) => `${((100 * t) / busy).toFixed(1)}%`.padStart(6);
console.log(
  `busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled\n\nby area (self time):`,
);
for (const [area, t] of [...areaTotals].sort((a, b) => b[1] - a[1])) console.log(`${pct(t)}  ${area}`);
console.log(`\ntop ${top} functions (self time):`);
for (const [key, t] of [...fnTotals].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${pct(t)}  ${key}`);
