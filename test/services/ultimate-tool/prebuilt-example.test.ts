// examples/c64-prebuilt (issue 31.4): a project as it comes — `build: null`, PRGs committed with
// `prebuilt: true`, loading at $C000 and started with `start.sys` — run through the service on the
// virtual Ultimate. Its two programs decide for themselves ($00 pass, $FF fail); the run records
// say nothing was built and which PRG ran.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../../helpers/bin.js';
import { type Harness, startHarness } from './harness.js';

const example = join(repoRoot, 'examples', 'c64-prebuilt');

describe('examples/c64-prebuilt on the virtual Ultimate through the service', { timeout: 120_000 }, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ project: example });
  });
  after(async () => {
    await h?.close();
  });

  const runOnUltimate = async (test: string) => {
    const r = await h.post('/v13/jobs', {
      test,
      targets: ['ultimate'],
      probe_id: await h.probe(),
      confirmed_reset_count: 1,
      confirmed_reu_write_count: 0,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const job = await h.waitJob(r.body.job.job_id);
    assert.equal(job.state, 'finished', JSON.stringify(job.error));
    return (await h.get(`/v13/runs/${job.run_ids[0]}`)).body.run;
  };

  it('the $C000 program started with start.sys passes by its own $00; nothing was built', async () => {
    const run = await runOnUltimate('passes-at-c000');
    assert.equal(run.status, 'passed', run.status_reason);
    assert.deepEqual(
      run.observations.debug_register_writes.map((w: { value: number }) => w.value),
      [0],
    );
    assert.equal(run.candidate.build.prebuilt_only, true);
    assert.equal(run.candidate.build.clean_copy, false);
    const prg = readFileSync(join(example, 'prg', 'pass-c000.prg'));
    const sha = createHash('sha256').update(prg).digest('hex');
    assert.ok(JSON.stringify(run).includes(sha), 'the run names the committed PRG by its SHA-256');
  });

  it('the same program writing $FF fails by its own value', async () => {
    const run = await runOnUltimate('fails-at-c000');
    assert.equal(run.status, 'failed', run.status_reason);
    assert.match(run.status_reason, /\$FF, a fail value of the verdict/);
  });
});
