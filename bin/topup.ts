#!/usr/bin/env node
// topup: MCP server over a persistent OCaml toplevel (stdio, or --socket <path>).
import { runTopupCli } from '../adapters/topup/cli.js';
import { unroutedRouter } from '../adapters/topup/router.js';

runTopupCli(process.argv.slice(2), { router: unroutedRouter }).catch((err: Error) => {
  process.stderr.write(`topup: ${err.message}\n`);
  process.exit(1);
});
