#!/usr/bin/env node
// `agentwire` entry: everything lives in runCli so tests can call it without a process.
import { processIo } from "./cli-io.js";
import { runCli } from "./run-cli.js";

process.exitCode = await runCli(process.argv.slice(2), processIo);
