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

const whatIsMissing = () => [
  ...(existsSync(chromium) ? [] : ["chromium"]),
  ...(hasPostgres() ? [] : ["postgresql"]),
  ...(hasCommand("redis-server") ? [] : ["redis-server"]),
];
const missing = whatIsMissing();

if (missing.length > 0) {
  if (process.env.AGENTWIRE_SKIP_SERVICES === "1") {
    // Only the database servers' tests skip; the browser tests have no skip and fail without chromium.
    const servers = missing.filter((name) => name !== "chromium");
    if (servers.length > 0) {
      console.warn(
        `AGENTWIRE_SKIP_SERVICES=1: not installing ${servers.join(", ")}; their tests will be skipped`,
      );
    }
    if (missing.includes("chromium")) {
      console.warn(
        `AGENTWIRE_SKIP_SERVICES=1: not installing chromium; the browser tests will FAIL without ${chromium} (set CHROMIUM_PATH to another Chromium)`,
      );
    }
    process.exit(0);
  }
  const root = process.getuid?.() === 0;
  const sudo = root ? [] : ["sudo", "-n"];
  if (!root && !hasCommand("sudo")) fail(`not root and no sudo to install them`);
  console.log(
    `test services missing: ${missing.join(", ")}; installing Debian's packages with apt-get (a minute or two)`,
  );
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
  // e.g. CHROMIUM_PATH naming another place than the package installs to.
  const still = whatIsMissing();
  if (still.length > 0) fail(`still missing after apt-get: ${still.join(", ")} (CHROMIUM_PATH=${chromium})`);
  console.log(`installed ${missing.join(", ")}`);
}

function fail(why) {
  console.error(
    `the tests need ${missing.join(", ")} (Debian packages), and they could not be installed: ${why}.\n` +
      "Install them (apt-get install chromium postgresql redis-server), or set AGENTWIRE_SKIP_SERVICES=1 to skip the Postgres and Redis tests loudly (the browser tests need chromium regardless).",
  );
  process.exit(1);
}
