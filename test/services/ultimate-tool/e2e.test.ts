// End to end on both targets: clean build of the example project with acme → job → runs on the
// vice target (ultimate-tool virtual-vice over the binary monitor) and the ultimate target (the
// virtual Ultimate 64) → run records → evidence (a real PNG decoded here, the screen text).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h.close();
});

async function runBoth(test: string): Promise<{ job: any; runs: any[] }> {
  const probe = await h.probe();
  const start = await h.post('/v13/jobs', {
    test,
    targets: ['vice', 'ultimate'],
    probe_id: probe,
    confirmed_reset_count: 1,
    confirmed_reu_write_count: 0,
  });
  assert.equal(start.status, 201, JSON.stringify(start.body));
  assert.equal(start.body.job.state, 'queued');
  const job = await h.waitJob(start.body.job.job_id);
  assert.equal(job.state, 'finished', JSON.stringify(job));
  const runs = [];
  for (const id of job.run_ids) {
    const r = await h.get(`/v13/runs/${id}`);
    assert.equal(r.status, 200);
    runs.push(r.body.run);
  }
  return { job, runs };
}

describe('example project on both targets', { timeout: 240_000 }, () => {
  it('a passing test passes on vice and ultimate, with screenshot, screen text and artifacts', async () => {
    const { job, runs } = await runBoth('sum-passes');
    assert.equal(job.run_ids.length, 2);
    assert.deepEqual(
      runs.map((r) => [r.target, r.status]),
      [
        ['vice', 'passed'],
        ['ultimate', 'passed'],
      ],
    );
    for (const run of runs) {
      assert.equal(run.run_record_schema_version, 9);
      assert.equal(run.emulation, true);
      assert.equal(run.candidate.build.status, 'succeeded');
      assert.deepEqual(run.observations.memory, [{ address: 0xc000, address_hex: '$C000', expected: '37', actual: '37', matched: true }]);
      const prg = run.supporting_artifacts.find((a: any) => a.role === 'prg');
      assert.equal(prg.sha256, run.candidate.artifact_sha256);
      assert.ok(run.supporting_artifacts.some((a: any) => a.role === 'labels' && a.format === 'acme-vicelabels'));
      const png = await h.get(`/v13/runs/${run.run_id}/evidence/screenshot.png`);
      assert.equal(png.status, 200);
      assert.equal(png.body.evidence.kind, 'image');
      const decoded = PNG.sync.read(Buffer.from(png.body.evidence.base64, 'base64'));
      assert.equal(decoded.width, 384);
      assert.equal(decoded.height, 264);
      const text = await h.get(`/v13/runs/${run.run_id}/evidence/screen.txt`);
      assert.equal(text.body.evidence.kind, 'text');
      assert.match(text.body.evidence.text, /VIRTUAL C64/);
      const bin = await h.get(`/v13/runs/${run.run_id}/evidence/pass.prg`);
      assert.equal(bin.body.evidence.kind, 'binary');
      assert.equal(bin.body.evidence.base64, undefined);
      assert.equal(bin.body.evidence.sha256, prg.sha256);
    }
    assert.equal(runs[0].candidate.artifact_sha256, runs[1].candidate.artifact_sha256, 'one candidate build per job');
    assert.equal(h.counts.resets >= 1, true);
  });

  it('the ca65/ld65 build runs too and snapshots ld65 label and map files', async () => {
    const { runs } = await runBoth('sum-passes-ca65');
    for (const run of runs) {
      assert.equal(run.status, 'passed', run.status_reason);
      const roles = run.supporting_artifacts.map((a: any) => [a.role, a.format, a.name]);
      assert.deepEqual(roles, [
        ['prg', 'c64-prg', 'sum-ca65.prg'],
        ['labels', 'ld65-labels', 'sum-ca65.lbl'],
        ['map', 'ld65-map', 'sum-ca65.map'],
      ]);
      const map = await h.get(`/v13/runs/${run.run_id}/evidence/sum-ca65.map`);
      assert.match(map.body.evidence.text, /Segment list/);
    }
  });

  it('a failing test fails with the reported code and the wrong value in memory', async () => {
    const { runs } = await runBoth('arithmetic-fails');
    for (const run of runs) {
      assert.equal(run.status, 'failed');
      assert.equal(run.observations.debug_register, 0x83);
      assert.match(run.status_reason, /\$83/);
    }
  });

  it('a screen_match test is judged by screen RAM, and the PNG shows the text pixels', async () => {
    const { runs } = await runBoth('greeting-on-screen');
    for (const run of runs) {
      assert.equal(run.status, 'passed', run.status_reason);
      assert.deepEqual(run.screen_match, { text: 'HELLO FROM THE C64 PROJECT', row: null, matched: true, found_at: { row: 0, column: 0 } });
      const png = PNG.sync.read(
        Buffer.from((await h.get(`/v13/runs/${run.run_id}/evidence/screenshot.png`)).body.evidence.base64, 'base64'),
      );
      // Row 0 of the text area holds glyph pixels in a colour other than the background.
      const px = (x: number, y: number) => png.data.readUInt32BE((y * png.width + x) * 4);
      const bg = px(32 + 39 * 8, 32 + 4);
      let lit = 0;
      for (let x = 32; x < 32 + 26 * 8; x++) for (let y = 32; y < 40; y++) if (px(x, y) !== bg) lit++;
      assert.ok(lit > 100, `expected glyph pixels on row 0, found ${lit}`);
    }
  });

  it('a crash is handed over: registers, exact BRK site from the labels, stack, zero page and globals evidence', async () => {
    const { runs } = await runBoth('brk-crash');
    for (const run of runs) {
      assert.equal(run.status, 'crashed');
      const cs = run.crash_state;
      assert.equal(cs.kind, 'brk');
      assert.deepEqual([cs.registers.a, cs.registers.x, cs.registers.y], [0x11, 0x22, 0x33]);
      const labels = (await h.get(`/v13/runs/${run.run_id}/evidence/crash.labels`)).body.evidence.text as string;
      const broken = Number.parseInt(/al C:([0-9a-f]{4}) \.broken/.exec(labels)![1]!, 16);
      assert.equal(cs.site.address, broken + 1, 'the BRK follows the PHA at "broken"');
      assert.equal(cs.site.exact, true);
      const names = run.evidence.map((e: any) => e.name);
      for (const n of ['crash-context.bin', 'crash-stack.bin', 'crash-zero-page.bin', 'crash-globals.json'])
        assert.ok(names.includes(n), n);
      const globals = JSON.parse((await h.get(`/v13/runs/${run.run_id}/evidence/crash-globals.json`)).body.evidence.text);
      assert.deepEqual(globals, [{ name: 'COUNTER', address: 0xfb, address_hex: '$00FB', bytes: '2a' }]);
      const zp = (await h.get(`/v13/runs/${run.run_id}/evidence/crash-zero-page.bin`)).body.evidence;
      assert.equal(zp.size, 256);
    }
  });

  it('timeline-probe passes after its progress markers; a hang times out on its budget', async () => {
    const tl = await runBoth('timeline-probe');
    for (const run of tl.runs) {
      assert.equal(run.status, 'passed');
      assert.ok(run.observations.progress_markers.length >= 1);
    }
    // The vice target stops on every $D7FF store, so it sees every marker in order.
    assert.deepEqual(
      tl.runs[0].observations.progress_markers,
      Array.from({ length: 16 }, (_, i) => i + 1),
    );
    const hang = await runBoth('hang-times-out');
    for (const run of hang.runs) {
      assert.equal(run.status, 'timed_out');
      assert.match(run.status_reason, /1500 ms budget/);
    }
  });

  it('list_runs pages newest first and filters by test and target', async () => {
    const all = await h.get('/v13/runs?limit=100');
    assert.ok(all.body.runs.length >= 10);
    const first = await h.get('/v13/runs?limit=3');
    assert.equal(first.body.runs.length, 3);
    assert.deepEqual(
      first.body.runs.map((r: any) => r.run_id),
      all.body.runs.slice(0, 3).map((r: any) => r.run_id),
    );
    const second = await h.get(`/v13/runs?limit=3&cursor=${first.body.next_cursor}`);
    assert.deepEqual(
      second.body.runs.map((r: any) => r.run_id),
      all.body.runs.slice(3, 6).map((r: any) => r.run_id),
    );
    const vice = await h.get('/v13/runs?target=vice&test=sum-passes');
    assert.equal(vice.body.runs.length, 1);
    assert.equal(vice.body.runs[0].target, 'vice');
    assert.equal(vice.body.next_cursor, null);
  });

  it('jobs on the one device never interleave: the second waits queued for the ultimate lease', async () => {
    const onDevice = async () =>
      h.post('/v13/jobs', {
        test: 'sum-passes',
        targets: ['ultimate'],
        probe_id: await h.probe(),
        confirmed_reset_count: 1,
        confirmed_reu_write_count: 0,
      });
    const a = await onDevice();
    const b = await onDevice();
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    const bNow = await h.get(`/v13/jobs/${b.body.job.job_id}`);
    assert.equal(bNow.body.job.state, 'queued');
    const active = await h.get('/v13/jobs/active');
    assert.equal(active.body.job?.job_id ?? a.body.job.job_id, a.body.job.job_id);
    const ja = await h.waitJob(a.body.job.job_id);
    const jb = await h.waitJob(b.body.job.job_id);
    assert.ok(jb.started_at >= ja.finished_at, `${jb.started_at} vs ${ja.finished_at}`);
    const ra = (await h.get(`/v13/runs/${ja.run_ids[0]}`)).body.run;
    const rb = (await h.get(`/v13/runs/${jb.run_ids[0]}`)).body.run;
    assert.ok(rb.started_at >= ra.finished_at);
    assert.equal((await h.get('/v13/jobs/active')).body.job, null);
  });

  it('vice jobs take no lease: the pool runs the second beside the first (issue 31.5)', async () => {
    const a = await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'] });
    const b = await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'] });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    // Nothing to wait for: both are running (building, then each run on an instance of the pool).
    for (const j of [a, b]) assert.equal((await h.get(`/v13/jobs/${j.body.job.job_id}`)).body.job.state, 'running');
    for (const j of [a, b]) assert.equal((await h.waitJob(j.body.job.job_id)).state, 'finished');
  });

  it('the build runs in a clean copy: a stale artifact in the project is not used', async () => {
    // (the harness copied the project without build/; the run's PRG matches acme's output of the source)
    const run = (await h.get('/v13/runs?test=sum-passes&limit=1')).body.runs[0];
    const full = (await h.get(`/v13/runs/${run.run_id}`)).body.run;
    assert.equal(full.candidate.build.clean_copy, true);
    assert.throws(() => readFileSync(join(h.project, 'build', 'pass.prg')), /ENOENT/, 'nothing was built inside the project itself');
  });
});
