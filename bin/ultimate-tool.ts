#!/usr/bin/env node
// ultimate-tool: the Ultimate engine's command line (see engines/ultimate/cli.ts).
import { runUltimateToolCli } from '../engines/ultimate/cli.js';

runUltimateToolCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`ultimate-tool: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
