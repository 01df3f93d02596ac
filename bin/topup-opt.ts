#!/usr/bin/env node
// topup-opt: the topup MCP server with the native agent — each phrase compiled to native code and
// dynlinked, `load` takes .cmxs (and .cmx/.cmxa). Same options as topup.
import { runTopupCli } from '../adapters/topup/cli.js';

runTopupCli(process.argv.slice(2), { command: 'topup-opt' }).catch((err: Error) => {
  process.stderr.write(`topup-opt: ${err.message}\n`);
  process.exit(1);
});
