// The smoke job's program is part of the package: its sources are embedded (smoke-sources.ts,
// generated from examples/riscv), so the smoke job no longer reads examples/riscv at run time —
// a package installed without examples/ can still run it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildExample } from '../../../../../examples/riscv/build.js';
import { RISCV_GCC } from '../../../../../engines/ultimate/riscv-apps/riscv-toolchain.js';
import { builtInSmokeUe2 } from '../../../../../services/ultimate-tool/jobs/native/smoke-job.js';
import { SMOKE_SOURCE_FILES } from '../../../../../services/ultimate-tool/jobs/native/smoke-sources-build.js';
import { SMOKE_SOURCES } from '../../../../../services/ultimate-tool/jobs/native/smoke-sources.js';
import { repoRoot } from '../../../../helpers/bin.js';
import { spawnSync } from 'node:child_process';

test('the embedded smoke sources are current (regenerate with smoke-sources-build.ts)', () => {
  assert.deepEqual(Object.keys(SMOKE_SOURCES).sort(), [...SMOKE_SOURCE_FILES].sort());
  for (const f of SMOKE_SOURCE_FILES)
    assert.equal(SMOKE_SOURCES[f], readFileSync(join(repoRoot, 'examples', 'riscv', f), 'utf8'), `${f} differs from examples/riscv`);
});

test('the smoke job reads nothing from examples/ or the package root at run time', () => {
  const src = readFileSync(join(repoRoot, 'services', 'ultimate-tool', 'jobs', 'native', 'smoke-job.ts'), 'utf8');
  const code = src
    .split('\n')
    .filter((l) => !l.trim().startsWith('//'))
    .join('\n');
  assert.doesNotMatch(code, /examples|packageRoot|readFile/);
});

test('the embedded program builds to the same update file as examples/riscv', { timeout: 120_000 }, async (t) => {
  if (spawnSync(RISCV_GCC, ['--version']).error) return t.skip(`${RISCV_GCC} is not installed`);
  const [embedded, example] = await Promise.all([builtInSmokeUe2(), buildExample('smoke')]);
  assert.deepEqual(Buffer.from(embedded), Buffer.from(example.ue2));
});
