// Runtime import cycles: a module that (through its value imports) imports itself again is
// evaluated half-done — a class read before its definition ran is undefined. This walks the
// package source's value imports (`import type` and `export type` are erased and do not count) and
// fails on every cycle, e.g. the one engines/ultimate/virtual/cli.ts and index.ts once formed (the
// entry re-exported the CLI, which imported the entry's class).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/bin.js';

const FOLDERS = ['common', 'transports', 'src', 'engines', 'services', 'adapters', 'bin'];

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'contracts') sources(path, out);
    } else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Static value imports and re-exports (dynamic import() runs later and forms no evaluation cycle). */
const STATIC = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s+['"]([^'"]+)['"]/gm;

function valueImports(file: string): string[] {
  const out: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(STATIC)) {
    const [, , typeOnly, clause = '', spec = ''] = m;
    if (typeOnly || !spec.startsWith('.')) continue;
    // `import { type A, type B } from` is erased too.
    const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1];
    if (names?.split(',').every((n) => n.trim() === '' || n.trim().startsWith('type '))) continue;
    const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
    if (existsSync(target)) out.push(target);
  }
  return out;
}

test('no runtime import cycle in the package source', () => {
  const graph = new Map<string, string[]>();
  for (const folder of FOLDERS) for (const f of sources(join(repoRoot, folder))) graph.set(f, valueImports(f));
  const cycles = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') {
        const cycle = stack.slice(stack.indexOf(g)).map((p) => relative(repoRoot, p));
        cycles.add([...cycle, cycle[0]].join(' → '));
      } else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  assert.deepEqual([...cycles], []);
});
