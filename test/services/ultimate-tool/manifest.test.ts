// The manifest: the example validates, the shipped JSON Schema is exactly what the zod schema
// generates, and bad manifests are refused naming the field and what was expected.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ManifestSchema, loadManifest, manifestJsonSchema } from '../../../services/ultimate-tool/project/manifest.js';
import { runCleanBuild } from '../../../services/ultimate-tool/builds/build.js';
import { repoRoot } from '../../helpers/bin.js';
import { exampleProject } from './harness.js';

const example = JSON.parse(readFileSync(join(exampleProject, 'ultimate-tool.json'), 'utf8'));

describe('ultimate-tool.json', () => {
  it('the example project validates and normalizes addresses', async () => {
    const m = await loadManifest(exampleProject);
    assert.equal(m.tests.length, 10);
    const pass = m.tests.find((t) => t.name === 'sum-passes')!;
    assert.deepEqual(pass.expect.memory, [{ address: 0xc000, bytes: '37' }]);
    assert.equal(m.tests.find((t) => t.name === 'brk-crash')!.crash_globals[0]!.address, 0xfb);
  });

  it('the shipped manifest.schema.json is current', () => {
    const shipped = JSON.parse(readFileSync(join(repoRoot, 'services/ultimate-tool/manifest.schema.json'), 'utf8'));
    assert.deepEqual(shipped, JSON.parse(JSON.stringify(manifestJsonSchema())));
  });

  it('bad manifests are refused with the path and the expectation', () => {
    const bad = (edit: (m: any) => void) => {
      const m = structuredClone(example);
      edit(m);
      const r = ManifestSchema.safeParse(m);
      assert.equal(r.success, false);
      return r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
    };
    assert.match(
      bad((m) => {
        m.tests[0].artifact = 'nope';
      }),
      /tests\.0\.artifact: no artifact named "nope"/,
    );
    assert.match(
      bad((m) => {
        m.artifacts[0].path = '../outside.prg';
      }),
      /artifacts\.0\.path: expected a path relative to the project root without "\.\."/,
    );
    assert.match(
      bad((m) => {
        m.tests[0].expect.memory[0].address = '$12345';
      }),
      /address/,
    );
    assert.match(
      bad((m) => {
        m.tests.find((t: { name: string }) => t.name === 'greeting-on-screen').expect = {};
      }),
      /screen_match/,
    );
    assert.match(
      bad((m) => {
        m.surprise = 1;
      }),
      /surprise/,
    );
    assert.match(
      bad((m) => {
        m.artifacts[0].symbols[0].format = 'cc65-dbg';
      }),
      /format/,
    );
  });
});

describe('clean build', { timeout: 60_000 }, () => {
  it('a build that exceeds its time limit is killed and reported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ultimate-build-limit-'));
    try {
      writeFileSync(join(dir, 'ultimate-tool.json'), '{}');
      const m = structuredClone(example);
      m.build = { command: ['sh', '-c', 'sleep 30'], timeout_ms: 1000 };
      const r = await runCleanBuild(dir, ManifestSchema.parse(m));
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.timedOut, true);
      assert.match(!r.ok ? r.reason : '', /did not finish within 1000 ms/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stale outputs in the project are not copied; the build makes them fresh', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ultimate-build-stale-'));
    try {
      const { cpSync, mkdirSync } = await import('node:fs');
      cpSync(exampleProject, dir, { recursive: true, filter: (s) => !s.includes('/build') });
      mkdirSync(join(dir, 'build'));
      writeFileSync(join(dir, 'build', 'pass.prg'), 'stale');
      const m = await loadManifest(dir);
      m.build!.command = ['sh', '-c', 'test ! -e build/pass.prg && make --no-print-directory'];
      const r = await runCleanBuild(dir, m);
      assert.equal(r.ok, true, r.ok ? '' : r.reason);
      assert.notEqual(r.ok && r.artifacts.get('pass')!.prg.bytes.toString(), 'stale');
      assert.equal(readFileSync(join(dir, 'build', 'pass.prg'), 'utf8'), 'stale', 'the project itself is untouched');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
