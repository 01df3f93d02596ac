/**
 * Node 20 lacks `fs.globSync` (it arrived in Node 22), and @modelcontextprotocol/conformance
 * imports it by name, so on Node 20 the suite fails to load before doing anything. This module
 * registers a resolve hook that hands the suite's `fs` imports a module that is Node's own `fs`
 * plus a `globSync`. Nothing in node_modules is edited, and every other importer of `fs` still
 * gets Node's module. On Node ≥ 22 it does nothing.
 *
 * Use: node --import ./scripts/conformance/node20-glob.mjs node_modules/.bin/conformance …
 */
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') {
  register('./node20-glob-hooks.mjs', import.meta.url);
}
