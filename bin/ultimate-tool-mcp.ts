#!/usr/bin/env node
// ultimate-tool-mcp: the Ultimate Tool MCP adapter on stdio (see adapters/ultimate/cli.ts).
import { runUltimateToolMcpCli } from '../adapters/ultimate/cli.js';

runUltimateToolMcpCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`ultimate-tool-mcp: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
