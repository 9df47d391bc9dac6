// Before `pnpm test`: the tests drive Debian's Chromium and start Debian's Postgres and Redis servers
// themselves (never a downloaded browser, never a running daemon). On a machine without them, this
// installs the packages with apt-get (as root, or through sudo) and says so; when it cannot, it
// stops with what is missing, so a test run never passes by skipping them.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasPostgres = () =>
  existsSync("/usr/lib/postgresql") &&
  readdirSync("/usr/lib/postgresql").some(
    (v) =>
      existsSync(`/usr/lib/postgresql/${v}/bin/initdb`) && existsSync(`/usr/lib/postgresql/${v}/bin/pg_ctl`),
  );
const hasCommand = (name) => spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;

const missing = [];
if (!existsSync(chromium)) missing.push("chromium");
if (!hasPostgres()) missing.push("postgresql");
if (!hasCommand("redis-server")) missing.push("redis-server");

if (missing.length > 0) {
  if (process.env.AGENTWIRE_SKIP_SERVICES === "1") {
    console.warn(
      `AGENTWIRE_SKIP_SERVICES=1: not installing ${missing.join(", ")}; their tests will be skipped`,
    );
    process.exit(0);
  }
  const root = process.getuid?.() === 0;
  const sudo = root ? [] : ["sudo", "-n"];
  if (!root && !hasCommand("sudo")) fail(`not root and no sudo to install them`);
  console.log(`test services missing: ${missing.join(", ")}; installing Debian's packages with apt-get`);
  const run = (args) => {
    const [cmd, ...rest] = [...sudo, ...args];
    execFileSync(cmd, rest, {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  };
  try {
    run(["apt-get", "update", "-qq"]);
    run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", ...missing]);
  } catch (error) {
    fail(`apt-get failed (${error.message})`);
  }
  console.log(`installed ${missing.join(", ")}`);
}

function fail(why) {
  console.error(
    `the tests need ${missing.join(", ")} (Debian packages), and they could not be installed: ${why}.\n` +
      "Install them (apt-get install chromium postgresql redis-server), or set AGENTWIRE_SKIP_SERVICES=1 to skip those tests loudly.",
  );
  process.exit(1);
}
