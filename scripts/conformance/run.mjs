#!/usr/bin/env node
// The official MCP conformance suite (@modelcontextprotocol/conformance, a devDependency) as a
// user runs it, on Node 20 too: its arguments are passed through, and node20-glob.mjs supplies
// the fs.globSync it needs (Node 22+) without touching node_modules.
//   node scripts/conformance/run.mjs server --url http://127.0.0.1:PORT/mcp
//   node scripts/conformance/run.mjs client --command "node --import tsx examples/everything-client/client.ts" --scenario sse-retry
//   npm run conformance -- list
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const suite = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
const res = spawnSync(process.execPath, ['--import', join(here, 'node20-glob.mjs'), suite, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(res.status ?? 1);
