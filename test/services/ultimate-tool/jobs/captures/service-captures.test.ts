// Debug-stream captures and run analyses through the service's HTTP API: a virtual Ultimate 64
// streams real bus cycles over UDP to the service on loopback; the example project is built for
// real (acme, ca65/ld65 --dbgfile). Short captures (a few thousand datagrams: timeline-probe whole) keep the suite quick.
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Harness, startHarness } from '../../harness.js';

// Enough for timeline-probe's whole run (its 16 markers; ~1,500 datagrams with the reset before
// it) and the capture's tail after the result (STREAM_TAIL_DATAGRAMS), still bounded: "6510 & VIC"
// datagrams hold 180 clocks each (two entries per clock), so ~2.2 s of bus time.
const MAX_DATAGRAMS = 12_000;
const MAX_DURATION_MS = 10_000;
let h: Harness;

before(async () => {
  h = await startHarness({ service: { captureLimits: { maxDatagrams: MAX_DATAGRAMS, maxDurationMs: MAX_DURATION_MS } } });
});
after(async () => {
  await h?.close();
});

const del = async (path: string) => {
  const r = await fetch(`${h.svc.url}${path}`, { method: 'DELETE' });
  return { status: r.status, body: (await r.json()) as any };
};

/** A capture start answers with the queued capture job; the run is the job's one run once it ended. */
async function capturedRun(start: { status: number; body: any }) {
  assert.equal(start.status, 201, JSON.stringify(start.body));
  assert.equal(start.body.job.kind, 'capture');
  const job = await h.waitJob(start.body.job.job_id);
  assert.equal(job.state, 'finished', JSON.stringify(job));
  assert.equal(job.capture.run_id, job.run_ids[0]);
  const r = await h.get(`/v13/runs/${job.run_ids[0]}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.run;
}

async function prepare(kind: 'debug-stream' | 'source-linked', extra: Record<string, unknown> = {}) {
  const probe_id = await h.probe();
  const r = await h.post(`/v13/captures/${kind}/preparations`, { probe_id, receiver_ipv4: '127.0.0.1', ...extra });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.preparation;
}

test('debug-stream capture: prepare touches nothing, start records a verified run with capture and index', {
  timeout: 60_000,
}, async () => {
  const resetsBefore = h.counts.resets;
  const prep = await prepare('debug-stream');
  assert.equal(prep.state, 'prepared');
  assert.equal(prep.device_touched, false);
  // The mode every run is judged in: two entries per clock, the clocks the VIC takes included.
  assert.equal(prep.stream_configuration.debug_stream_mode, '6510 & VIC');
  assert.match(prep.stream_configuration.destination, /^127\.0\.0\.1:\d+$/);
  assert.deepEqual(prep.limits, { max_datagrams: MAX_DATAGRAMS, max_duration_ms: MAX_DURATION_MS });
  assert.equal(h.dev.streamer?.active ?? false, false);

  // Counts other than one are refused BEFORE the preparation is consumed.
  const bad = await h.post(`/v13/captures/debug-stream/preparations/${prep.preparation_id}/start`, {
    confirmed_stream_start_count: 2,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.code, 'confirmed_count_mismatch');

  const run = await capturedRun(
    await h.post(`/v13/captures/debug-stream/preparations/${prep.preparation_id}/start`, {
      confirmed_stream_start_count: 1,
      confirmed_stream_stop_count: 1,
    }),
  );
  assert.equal(run.run_record_schema_version, 9);
  assert.equal(run.status, 'passed', run.status_reason);
  assert.equal(run.observations.debug_stream.truncation, 'max-datagrams');
  assert.equal(run.observations.debug_stream.datagrams, MAX_DATAGRAMS);
  const names = run.evidence.map((e: { name: string }) => e.name);
  assert.ok(names.includes('debug-stream-capture.bin') && names.includes('debug-stream-index.bin'));
  assert.equal(h.counts.resets, resetsBefore, 'a plain capture resets nothing');

  // Started once: a second start is refused.
  const again = await h.post(`/v13/captures/debug-stream/preparations/${prep.preparation_id}/start`, {
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'preparation_settled');

  const page = await h.get(`/v13/runs/${run.run_id}/timeline?limit=50`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  assert.equal(page.body.mode, 'bus_only');
  assert.equal(page.body.rows.length, 50);
  assert.equal(page.body.next_cursor, '0:50');
  const next = await h.get(`/v13/runs/${run.run_id}/timeline?limit=10&cursor=${page.body.next_cursor}`);
  assert.equal(next.body.rows[0].cursor, '0:50');

  // The diagnostic report re-hashes every registered file, the capture included (streamed).
  const clean = await h.get(`/v13/runs/${run.run_id}/diagnostic-report`);
  assert.equal(clean.status, 200, JSON.stringify(clean.body));
  assert.equal(clean.body.evidence_integrity.verified, true);
  assert.ok(clean.body.evidence_integrity.files.some((f: { name: string }) => f.name === 'debug-stream-capture.bin'));

  // Tampering with the capture is caught by the page that reads the altered block.
  const file = join(h.store, 'runs', run.run_id, 'debug-stream-capture.bin');
  appendFileSync(file, ''); // no change yet
  const { readFileSync, writeFileSync } = await import('node:fs');
  const bytes = readFileSync(file);
  bytes[200] = (bytes[200] ?? 0) ^ 0xff;
  writeFileSync(file, bytes);
  const tampered = await h.get(`/v13/runs/${run.run_id}/timeline`);
  assert.equal(tampered.status, 409);
  assert.equal(tampered.body.error.code, 'timeline_failed');
  assert.equal(tampered.body.error.details.reason, 'capture-checksum-mismatch');
  const report = await h.get(`/v13/runs/${run.run_id}/diagnostic-report`);
  assert.equal(report.status, 409);
  assert.equal(report.body.error.code, 'diagnostic_report_failed');
});

test('a cancelled preparation cannot start; the cancel needs no hardware', { timeout: 30_000 }, async () => {
  const prep = await prepare('debug-stream');
  const c = await del(`/v13/captures/debug-stream/preparations/${prep.preparation_id}`);
  assert.equal(c.status, 200, JSON.stringify(c.body));
  assert.equal(c.body.preparation.state, 'cancelled');
  const r = await h.post(`/v13/captures/debug-stream/preparations/${prep.preparation_id}/start`, {
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(r.status, 409);
  assert.equal(r.body.error.code, 'preparation_settled');
  assert.equal(r.body.error.details.state, 'cancelled');
});

test('source-linked capture of timeline-probe: rows resolve to the ca65 source, post-stop evidence registered', {
  timeout: 120_000,
}, async () => {
  const bad = await h.post('/v13/captures/source-linked/preparations', {
    probe_id: await h.probe(),
    receiver_ipv4: '127.0.0.1',
    test: 'sum-passes',
  });
  assert.equal(bad.status, 400);
  const prep = await prepare('source-linked', { test: 'timeline-probe' });
  assert.equal(prep.prerequisites.analysis.debug_info.parsed, true);
  assert.ok(prep.prerequisites.analysis.debug_info.lines > 0);
  const resets = h.counts.resets;
  const mismatch = await h.post(`/v13/captures/source-linked/preparations/${prep.preparation_id}/start`, {
    confirmed_reset_count: 0,
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(mismatch.body.error.code, 'confirmed_count_mismatch');
  const run = await capturedRun(
    await h.post(`/v13/captures/source-linked/preparations/${prep.preparation_id}/start`, {
      confirmed_reset_count: 1,
      confirmed_stream_start_count: 1,
      confirmed_stream_stop_count: 1,
    }),
  );
  assert.equal(run.status, 'passed', run.status_reason);
  assert.equal(h.counts.resets, resets + 1);
  assert.equal(run.observations.pass_marker.matched, true);
  assert.ok(['none', 'max-datagrams', 'max-duration'].includes(run.observations.debug_stream.truncation));
  // All 16 progress markers, as the capture holds them (REST polling beside the capture missed
  // markers written within one poll: 11 of 16, issue 35).
  assert.deepEqual(
    run.observations.progress_markers,
    Array.from({ length: 16 }, (_, i) => i + 1),
  );
  assert.ok(run.supporting_artifacts.some((s: { role: string }) => s.role === 'dbg'));
  // Writes of the progress markers to $D7FF, each resolved to the line of timeline.s that stored it.
  const page = await h.get(`/v13/runs/${run.run_id}/timeline?limit=64&access=write&address_from=$D7FF&address_to=$D7FF`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  assert.equal(page.body.mode, 'source_linked');
  const data = page.body.rows.filter((x: any) => x.kind === 'bus').map((x: any) => x.data);
  assert.ok(data.length >= 3, JSON.stringify(page.body).slice(0, 400));
  // The markers count up from 1, in order, as the program wrote them.
  assert.deepEqual(data.slice(0, 3), [1, 2, 3]);

  // One clock (issue 35.4): the timeline counts φ2 clocks from the program's first instruction, as
  // the judge does — every $D7FF write of the program (the 16 markers and the verdict) at the same
  // cycle in both. timeline-probe leaves the display on, so bad lines take clocks from the CPU.
  assert.equal(page.body.cycle_unit, 'clock');
  assert.equal(page.body.cycle_origin, 'program_start');
  assert.equal(run.observations.cycle_source, 'debug-stream', JSON.stringify(run.observations));
  assert.equal(run.observations.debug_register_writes_exact, true);
  const programWrites = page.body.rows.filter((x: any) => x.kind === 'bus' && x.before_program_start === false);
  assert.deepEqual(
    programWrites.map((x: any) => [x.data, x.cycle]),
    run.observations.debug_register_writes.map((w: any) => [w.value, w.cycle]),
  );
  assert.equal(programWrites.length, 17);
  // Between the first two markers the VIC took clocks (bad lines): fewer CPU bus accesses than
  // clocks, so a count of CPU bus cycles ("6510 Only") would put marker 2 earlier than the judge.
  const [w1, w2] = programWrites;
  let cpuAccesses = 0;
  let cursor: string | null = w1.cursor;
  let vicRows = 0;
  scan: while (cursor !== null) {
    const p = await h.get(`/v13/runs/${run.run_id}/timeline?limit=4096&cursor=${cursor}`);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    for (const x of p.body.rows) {
      if (x.cursor === w2.cursor) break scan;
      assert.equal(x.kind, 'bus', 'no datagram lost between the two markers');
      if (x.access === 'vic') vicRows++;
      else cpuAccesses++;
    }
    cursor = p.body.next_cursor;
  }
  const clocks = w2.cycle - w1.cycle;
  assert.ok(vicRows > clocks, `VIC half-cycle rows are listed (${vicRows})`);
  assert.ok(cpuAccesses < clocks, `the VIC took clocks between the markers: ${cpuAccesses} CPU accesses in ${clocks} clocks`);
  // The program's own bytes, read by the CPU: each resolves to the line and symbol that produced it.
  const code = await h.get(`/v13/runs/${run.run_id}/timeline?limit=4096&access=read&address_from=$081F&address_to=$0825`);
  assert.equal(code.status, 200, JSON.stringify(code.body));
  const fetches = code.body.rows.filter((x: any) => x.kind === 'bus');
  assert.ok(fetches.length > 0);
  for (const f of fetches) {
    assert.equal(f.source.file, 'src/ca65/timeline.s');
    assert.equal(f.source.symbol, 'progress');
    assert.ok([28, 29, 30, 31].includes(f.source.line), `line ${f.source.line}`);
  }
});

test('crash report names the function that crashed; diagnostic report and items; their failures', { timeout: 120_000 }, async () => {
  const job = await h.post('/v13/jobs', { test: 'brk-crash', targets: ['vice'] });
  assert.equal(job.status, 201, JSON.stringify(job.body));
  const done = await h.waitJob(job.body.job.job_id);
  const runId = done.run_ids[0];
  const crash = await h.get(`/v13/runs/${runId}/crash-report`);
  assert.equal(crash.status, 200, JSON.stringify(crash.body));
  assert.equal(crash.body.crash_analysis_schema_version, 2);
  assert.equal(crash.body.kind, 'brk');
  assert.equal(crash.body.site.resolution.result, 'resolved');
  assert.match(JSON.stringify(crash.body.site.resolution), /"broken"/);
  // The stack holds the return into test_main (the JSR broken): a candidate return address.
  assert.ok(crash.body.stack.candidate_return_addresses.some((c: any) => /"broken"/.test(JSON.stringify(c.called_resolution))));

  const report = await h.get(`/v13/runs/${runId}/diagnostic-report`);
  assert.equal(report.status, 200, JSON.stringify(report.body));
  assert.equal(report.body.diagnostic_report_schema_version, 1);
  assert.equal(report.body.evidence_integrity.verified, true);
  const items = await h.get(`/v13/runs/${runId}/diagnostic-items?section=assertions&limit=1`);
  assert.equal(items.status, 200, JSON.stringify(items.body));
  assert.equal(items.body.items.length, 1);
  assert.ok(items.body.next_cursor);
  const rest = await h.get(`/v13/runs/${runId}/diagnostic-items?section=assertions&limit=100&cursor=${items.body.next_cursor}`);
  assert.equal(rest.body.items.length, items.body.total - 1);
  const badSection = await h.get(`/v13/runs/${runId}/diagnostic-items?section=nope`);
  assert.equal(badSection.status, 409); // diagnostic_report_failed has one status (api/errors.ts)
  assert.equal(badSection.body.error.code, 'diagnostic_report_failed');

  const unknown = '0b7e3c1a-1111-4222-8333-444455556666';
  for (const path of ['timeline', 'diagnostic-report', 'diagnostic-items?section=budget', 'crash-report']) {
    const r = await h.get(`/v13/runs/${unknown}/${path}`);
    assert.equal(r.status, 404, path);
    assert.equal(r.body.error.code, 'not-found');
  }
  // A run without a capture has no timeline.
  const noCapture = await h.get(`/v13/runs/${runId}/timeline`);
  assert.equal(noCapture.body.error.code, 'timeline_failed');

  // Tampered crash context: crash_analysis_failed.
  const { readFileSync, writeFileSync } = await import('node:fs');
  const ctx = join(h.store, 'runs', runId, 'crash-context.bin');
  const b = readFileSync(ctx);
  b[3] = (b[3] ?? 0) ^ 0x01;
  writeFileSync(ctx, b);
  const tampered = await h.get(`/v13/runs/${runId}/crash-report`);
  assert.equal(tampered.status, 409);
  assert.equal(tampered.body.error.code, 'crash_analysis_failed');
});

test('prepare follows the probe rules of test jobs: strictness, single use, unknown probe, foreign receiver', {
  timeout: 30_000,
}, async () => {
  const ordinary = await h.probe();
  const strict = await h.post('/v13/captures/debug-stream/preparations', {
    probe_id: ordinary,
    receiver_ipv4: '127.0.0.1',
    strict_gate: true,
  });
  assert.equal(strict.status, 422);
  assert.equal(strict.body.error.code, 'probe_strictness_mismatch');
  // A refused request leaves the probe usable; a used probe is refused afterwards.
  const first = await h.post('/v13/captures/debug-stream/preparations', { probe_id: ordinary, receiver_ipv4: '127.0.0.1' });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  const second = await h.post('/v13/captures/debug-stream/preparations', { probe_id: ordinary, receiver_ipv4: '127.0.0.1' });
  assert.equal(second.body.error.code, 'probe_consumed');
  const unknown = await h.post('/v13/captures/debug-stream/preparations', { probe_id: 'no-such-probe', receiver_ipv4: '127.0.0.1' });
  assert.equal(unknown.body.error.code, 'probe_unknown');
  // 192.0.2.1 (TEST-NET-1) is never an address of this machine: the service could not receive there.
  const foreign = await h.post('/v13/captures/debug-stream/preparations', { probe_id: await h.probe(), receiver_ipv4: '192.0.2.1' });
  assert.equal(foreign.status, 400);
  assert.equal(foreign.body.error.code, 'receiver_unavailable');
  const strictProbe = await h.probe(true);
  const ok = await h.post('/v13/captures/debug-stream/preparations', {
    probe_id: strictProbe,
    receiver_ipv4: '127.0.0.1',
    strict_gate: true,
  });
  assert.equal(ok.status, 201);
  assert.equal(ok.body.preparation.strict_gate, true);
});
