// The folders are the architecture (docs/ARCHITECTURE.md): this test reads every import in the
// package's source and fails when a folder imports one it may not.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/bin.js';

const ALLOWED: Record<string, readonly string[]> = {
  common: [],
  transports: ['common'],
  src: ['common', 'transports'],
  engines: ['common'],
  services: ['common', 'engines'],
  adapters: ['common', 'src', 'transports', 'engines', 'services'],
  // The edges: one small entry per command, the measurements, the composed examples. None of the
  // package imports them (the dispatcher's `examples` entry is a command too).
  bin: ['common', 'src', 'transports', 'engines', 'services', 'adapters', 'examples'],
  bench: ['common', 'src', 'transports', 'engines', 'services', 'adapters', 'test'],
  examples: ['common', 'src', 'transports', 'engines', 'services', 'adapters'],
};

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'contracts') sources(path, out);
    } else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

test('every folder imports only the folders docs/ARCHITECTURE.md allows', () => {
  const violations: string[] = [];
  for (const [folder, allowed] of Object.entries(ALLOWED)) {
    for (const file of sources(join(repoRoot, folder))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? '';
        if (!spec.startsWith('.')) continue;
        const target = relative(repoRoot, resolve(dirname(file), spec)).split('/')[0] ?? '';
        if (target === folder || allowed.includes(target)) continue;
        violations.push(`${relative(repoRoot, file)} imports ${spec} (${folder}/ may import ${[folder, ...allowed].join(', ')})`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

// Inside the layers, at folder level: a service's api/ folder is its one wire declaration, the only
// part of it an adapter may import, and it imports nothing of the service itself.
test('adapters import only services/*/api/, and a service api/ imports only itself', () => {
  const violations: string[] = [];
  const check = (folder: string, allowed: (target: string, file: string) => boolean, rule: string) => {
    for (const file of sources(join(repoRoot, folder))) {
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? '';
        if (!spec.startsWith('.')) continue;
        const target = relative(repoRoot, resolve(dirname(file), spec));
        if (!allowed(target, relative(repoRoot, file))) violations.push(`${relative(repoRoot, file)} imports ${spec} (${rule})`);
      }
    }
  };
  check('adapters', (t) => !t.startsWith('services/') || /^services\/[^/]+\/api\//.test(t), 'adapters may import only services/*/api/');
  for (const service of readdirSync(join(repoRoot, 'services'))) {
    const api = `services/${service}/api`;
    if (!statSync(join(repoRoot, api), { throwIfNoEntry: false })?.isDirectory()) continue;
    check(api, (t) => t.startsWith(`${api}/`), `${api}/ may import only itself`);
  }
  assert.deepEqual(violations, []);
});

// Across an engine's border only its entries are used: another engine, a service and an example
// import an engine through an `index.ts` (engines/ultimate/index.ts, engines/ultimate/virtual/index.ts,
// …), never a module inside it, so an engine can rearrange its insides without breaking callers.
test('engines are entered only through an index: from another engine, a service or an example', () => {
  const violations: string[] = [];
  const engineOf = (path: string) => /^engines\/([^/]+)\//.exec(path)?.[1];
  for (const folder of ['engines', 'services', 'examples']) {
    for (const file of sources(join(repoRoot, folder))) {
      const from = relative(repoRoot, file);
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? '';
        if (!spec.startsWith('.')) continue;
        const target = relative(repoRoot, resolve(dirname(file), spec));
        const engine = engineOf(target);
        if (!engine || engine === engineOf(from)) continue;
        if (!/(^|\/)index\.(js|ts)$/.test(target))
          violations.push(`${from} imports ${spec} (enter engines/${engine}/ through an index.ts)`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test('nothing in the package source writes to the console (logs go through the logger to stderr)', () => {
  const offenders: string[] = [];
  // bin/, bench/ and examples/ are programs: they print their results.
  for (const folder of ['common', 'transports', 'src', 'engines', 'services', 'adapters']) {
    for (const file of sources(join(repoRoot, folder))) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/\bconsole\.(log|error|warn|info|debug)\(/.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*'))
          offenders.push(`${relative(repoRoot, file)}:${i + 1}`);
      });
    }
  }
  assert.deepEqual(offenders, []);
});
