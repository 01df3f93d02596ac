#!/usr/bin/env node
// topup: MCP server over a persistent OCaml toplevel (stdio, or --socket <path>).
import { runTopupCli } from '../adapters/topup/cli.js';

runTopupCli(process.argv.slice(2)).catch((err: Error) => {
  process.stderr.write(`topup: ${err.message}\n`);
  process.exit(1);
});
