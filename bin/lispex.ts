#!/usr/bin/env node
/**
 * `lispex`: run or check a Lispex program, or serve the Lispex MCP tools.
 *   lispex run <file> | lispex check <file> | lispex mcp serve [product options] | --help | --version
 */
import { runLispexCli } from '../adapters/lispex/cli.js';

runLispexCli(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: Error) => {
    process.stderr.write(`lispex: internal error: ${error.message}\n`);
    process.exitCode = 70;
  },
);
