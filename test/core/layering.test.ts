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

test('nothing in the package source writes to the console (logs go through the logger to stderr)', () => {
  const offenders: string[] = [];
  for (const folder of Object.keys(ALLOWED)) {
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
