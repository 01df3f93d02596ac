// Native programs of the manifest: the schema's rules (sources XOR prebuilt, paths inside the
// project), prebuilt .ue2 and .elf programs, a malformed update file and a symlink that leaves
// the project refused with a clear error — all without touching the device. And a C64 health check
// that fails keeps the intent suspended.
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NativeProgramSchema } from '../../../../../services/ultimate-tool/project/manifest.js';
import { faultsFor } from '../../../../../engines/ultimate/virtual/index.js';
import { buildExample } from '../../../../../examples/riscv/build.js';
import { type NativeHarness, startNativeHarness } from './harness.js';

describe('the manifest native_programs schema', () => {
  it('needs exactly one of sources and prebuilt, project-relative paths and harmless flags', () => {
    const ok = (v: unknown) => NativeProgramSchema.safeParse(v).success;
    assert.ok(ok({ name: 'a', sources: ['n/a.c'] }));
    assert.ok(ok({ name: 'a', prebuilt: 'n/a.ue2' }));
    assert.ok(!ok({ name: 'a' }));
    assert.ok(!ok({ name: 'a', sources: ['a.c'], prebuilt: 'a.elf' }));
    assert.ok(!ok({ name: 'a', prebuilt: '../outside.ue2' }));
    assert.ok(!ok({ name: 'a', prebuilt: '/etc/passwd.elf' }));
    assert.ok(!ok({ name: 'a', prebuilt: 'a.bin' }));
    assert.ok(!ok({ name: 'a', sources: ['a.c'], flags: ['-o/tmp/x'] }));
    assert.ok(!ok({ name: 'a', sources: ['a.c'], flags: ['-fplugin=x.so'] }));
    assert.ok(ok({ name: 'a', sources: ['a.c'], flags: ['-O2', '-DX=1', '-Wall', '-g'] }));
  });
});

describe('prebuilt native programs', { timeout: 120_000 }, () => {
  let h: NativeHarness;
  let touch: Awaited<ReturnType<typeof buildExample>>;
  before(async () => {
    touch = await buildExample('c64-touch');
    h = await startNativeHarness({
      mutateProject: (dir) => {
        writeFileSync(join(dir, 'native', 'touch.ue2'), touch.ue2);
        writeFileSync(join(dir, 'native', 'touch.elf'), touch.elf);
        writeFileSync(join(dir, 'native', 'broken.ue2'), Buffer.from('not an update file'));
        const m = JSON.parse(readFileSync(join(dir, 'ultimate-tool.json'), 'utf8'));
        m.native_programs.push(
          { name: 'touch-ue2', prebuilt: 'native/touch.ue2' },
          { name: 'touch-elf', prebuilt: 'native/touch.elf' },
          { name: 'broken', prebuilt: 'native/broken.ue2' },
        );
        writeFileSync(join(dir, 'ultimate-tool.json'), JSON.stringify(m));
      },
    });
  });
  after(async () => {
    await h?.close();
  });

  it('a prebuilt .ue2 is taken as is; a prebuilt .elf is packed to the same bytes', async () => {
    const a = await h.post('/v13/native/preparations', { program: 'touch-ue2' });
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.equal(a.body.preparation.build.source, 'prebuilt-ue2');
    assert.equal(a.body.preparation.ue2_size, touch.ue2.length);
    const b = await h.post('/v13/native/preparations', { program: 'touch-elf' });
    assert.equal(b.status, 201);
    assert.equal(b.body.preparation.build.source, 'prebuilt-elf');
    assert.equal(b.body.preparation.ue2_sha256, a.body.preparation.ue2_sha256);
    assert.match(b.body.preparation.elf_sha256, /^[0-9a-f]{64}$/);
  });

  it('a malformed update file is refused with the reason', async () => {
    const broken = await h.post('/v13/native/preparations', { program: 'broken' });
    assert.equal(broken.status, 409);
    assert.equal(broken.body.error.code, 'native_preparation_failed');
    assert.match(broken.body.error.message, /not a valid update file/);
    assert.deepEqual(h.counts(), { 'ftp-stor': 0, 'run-update': 0 });
  });

  it('a prebuilt program behind a symlink out of the project: the service refuses to start, naming it', async () => {
    // Project paths are confined with realpath when the manifest is loaded (project-paths.ts), so
    // the service never starts on such a manifest — no preparation, no device access.
    await assert.rejects(
      startNativeHarness({
        mutateProject: (dir, work) => {
          writeFileSync(join(work, 'outside.ue2'), touch.ue2);
          symlinkSync(join(work, 'outside.ue2'), join(dir, 'native', 'escape.ue2'));
          const m = JSON.parse(readFileSync(join(dir, 'ultimate-tool.json'), 'utf8'));
          m.native_programs.push({ name: 'escape', prebuilt: 'native/escape.ue2' });
          writeFileSync(join(dir, 'ultimate-tool.json'), JSON.stringify(m));
        },
      }),
      /native_programs\.\d+\.prebuilt: "native\/escape\.ue2" resolves to .*outside\.ue2, outside the project/,
    );
  });

  it('a failing C64 health check leaves the standing intent suspended with its gate pending', async () => {
    const intent = (await h.intent({ mode: 'standing', confirmed_standing_authorization: true })).body.intent;
    const s = await h.post('/v13/native/runs', { intent_id: intent.intent_id, device_host: h.host });
    const run = await h.waitRun(s.body.native_run.native_run_id);
    assert.equal(run.state, 'completed');
    await h.powerCycle();
    const before = h.counts();
    faultsFor(h.dev).failNext({ path: '/v1/runners:run_prg', status: 500 });
    const hc = await h.post('/v13/native/health-checks', { intent_id: intent.intent_id, run_id: run.native_run_id, device_host: h.host });
    assert.equal(hc.status, 201);
    const job = await h.waitJob(hc.body.job.job_id);
    assert.equal(job.state, 'failed');
    assert.equal(job.error.code, 'health_check_failed');
    const after = (await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent;
    assert.equal(after.state, 'suspended');
    assert.equal(after.health_gate, 'pending');
    // A second health check (the device is fine now) passes and re-activates it.
    const again = await h.post('/v13/native/health-checks', {
      intent_id: intent.intent_id,
      run_id: run.native_run_id,
      device_host: h.host,
    });
    assert.equal((await h.waitJob(again.body.job.job_id)).state, 'finished');
    assert.equal((await h.get(`/v13/native/intents/${intent.intent_id}`)).body.intent.state, 'active');
    assert.deepEqual(h.counts(), before);
  });
});
