import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configGroups } from "../src/config-groups.js";
import {
  configDocOf,
  configEntries,
  renderConfigMarkdown,
  renderConfigText,
} from "../src/config-reference.js";
import { outsideSchemaVariables } from "../src/env-outside-schema.js";
import { EnvSchema } from "../src/env-schema.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../../..");
const groupIds: string[] = configGroups.map((g) => g.id);

describe("the configuration reference", () => {
  it("documents every EnvSchema key with a known group and a description", () => {
    for (const [name, schema] of Object.entries(EnvSchema.shape)) {
      const meta = configDocOf(schema);
      expect(groupIds, name).toContain(meta.group);
      expect(meta.description, name).toMatch(/^\S.{10,}[.)]$/s);
    }
  });

  it("lists every variable, those read outside the schema included, in text and markdown", () => {
    const names = [...Object.keys(EnvSchema.shape), ...outsideSchemaVariables.map((v) => v.name)];
    expect(
      configEntries()
        .map((e) => e.name)
        .sort(),
    ).toEqual([...names].sort());
    const text = renderConfigText();
    const markdown = renderConfigMarkdown();
    for (const name of names) {
      expect(text).toContain(`  ${name}  (`);
      expect(markdown).toContain(`| \`${name}\` |`);
    }
  });

  it("reads types and defaults from the schema", () => {
    const byName = new Map(configEntries().map((e) => [e.name, e]));
    expect(byName.get("PORT")).toMatchObject({ type: "integer 0 to 65535", default: "8787" });
    expect(byName.get("LOG_LEVEL")?.type).toBe("one of: fatal, error, warn, info, debug, trace, silent");
    expect(byName.get("OPENAI_BASE_URL")).toMatchObject({ type: "URL (http, https)", default: "unset" });
    expect(byName.get("ALLOWED_ORIGINS")).toMatchObject({ type: "comma-separated list", default: "empty" });
    expect(byName.get("WORKFLOWS_ENABLED")).toMatchObject({
      type: "boolean (true/false or 1/0)",
      default: "true",
    });
    expect(byName.get("MAX_DEPTH")).toMatchObject({ type: "positive integer", default: "3", group: "turns" });
    expect(byName.get("CLIENT_TOOL_RECONNECT_GRACE_MS")?.default).toBe("computed");
  });

  it("docs/configuration.md is what the schema renders", () => {
    expect(readFileSync(join(root, "docs/configuration.md"), "utf8")).toBe(renderConfigMarkdown());
  });
});

describe("pnpm config:check (the script, as a process)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-config-doc-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const script = (...args: string[]) =>
    run(
      process.execPath,
      [
        "--import",
        "tsx",
        "--conditions=@agentwire-chat/source",
        "apps/server/scripts/write-config-doc.ts",
        ...args,
      ],
      { cwd: root },
    );

  it("fails on a stale file naming the fix, passes on a fresh one, and writes a fresh one", async () => {
    const stalePath = join(dir, "stale.md");
    const freshPath = join(dir, "fresh.md");
    const written = join(dir, "written.md");
    writeFileSync(stalePath, renderConfigMarkdown().replace("| `PORT` |", "| `PORTS` |"));
    writeFileSync(freshPath, renderConfigMarkdown());
    // Three processes at once: each spends most of its time loading the sources through tsx.
    const [stale, fresh] = await Promise.all([
      script("--check", "--file", stalePath).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      ),
      script("--check", "--file", freshPath),
      script("--file", written),
    ]);
    expect(stale?.code).toBe(1);
    expect(stale?.stderr).toContain("is stale");
    expect(stale?.stderr).toContain("pnpm config:doc");
    expect(fresh.stdout).toContain("is up to date");
    expect(readFileSync(written, "utf8")).toBe(renderConfigMarkdown());
  });
});

describe("the server's --help and `agentwire config`", () => {
  // Their entry points as processes, from source: `pnpm test` runs without a build (the README's line).
  const tsx = ["--import", "tsx", "--conditions=@agentwire-chat/source"];
  const serverMain = join(root, "apps/server/src/main.ts");
  const cliMain = join(root, "apps/cli/src/main.ts");

  it("print the same reference, exit 0, and read no config (a bad PORT does not matter)", async () => {
    // A bad value that would stop the server: --help must print before the config is read.
    const env = { PATH: process.env.PATH ?? "", PORT: "not-a-port" };
    const [long, short, cli] = await Promise.all([
      run(process.execPath, [...tsx, serverMain, "--help"], { cwd: root, env }),
      run(process.execPath, [...tsx, serverMain, "-h"], { cwd: root, env }),
      run(process.execPath, [...tsx, cliMain, "config"], { cwd: root, env }),
    ]);
    expect(long.stdout).toContain("agentwire server configuration");
    expect(long.stdout).toContain("  PORT  (integer 0 to 65535; default: 8787)");
    expect(short.stdout).toBe(long.stdout);
    expect(cli.stdout).toBe(long.stdout);
    expect(long.stderr + short.stderr + cli.stderr).toBe("");
  });
});
