#!/usr/bin/env node
// ultimate-tool: the Ultimate engine's command line (subcommands in bin/ultimate-tool-dispatch.ts).
import { runUltimateTool } from './ultimate-tool-dispatch.js';

runUltimateTool(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`ultimate-tool: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
