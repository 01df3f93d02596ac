// The capture and analysis tools end to end, as a user runs them: the real service process
// (`ultimate-tool serve --virtual-device`, whose virtual Ultimate 64 streams the real bus cycles of
// the example's programs over UDP to the service on loopback, and `ultimate-tool virtual-vice` as
// the emulator), the real adapter process (`ultimate-tool-mcp`) and the official MCP SDK client;
// then the same capture through `ultimate-tool capture …`. Captures are short (1000 datagrams:
// ~180,000 clocks in "6510 & VIC", timeline-probe's first markers).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { distBin, startUltimateStack, type UltimateStack } from '../../../../helpers/ultimate-stack.js';

const MAX_DATAGRAMS = 1000;

const bin = distBin;
let stack: UltimateStack;

type Envelope = {
  schema_version: number;
  operation: string;
  data?: Record<string, any>;
  error?: { code: string; layer: string; message: string; http_status?: number; details?: Record<string, any> };
};

async function call(name: string, args: Record<string, unknown> = {}): Promise<Envelope> {
  const r = await stack.client.callTool({ name, arguments: args });
  const content = r.content as Array<Record<string, unknown>>;
  const envelope = (r.structuredContent ?? JSON.parse(String(content[0]?.text))) as Envelope;
  assert.equal(envelope.schema_version, 12);
  assert.equal(envelope.operation, name);
  return envelope;
}

async function ok(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const envelope = await call(name, args);
  assert.ok(envelope.data, `${name} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.data;
}

async function fails(name: string, args: Record<string, unknown>, code: string, layer = 'service'): Promise<Envelope['error']> {
  const envelope = await call(name, args);
  assert.ok(envelope.error, `${name} should fail with ${code}: ${JSON.stringify(envelope.data)?.slice(0, 300)}`);
  assert.equal(envelope.error.code, code, envelope.error.message);
  assert.equal(envelope.error.layer, layer, envelope.error.message);
  return envelope.error;
}

/** Counts the service's HTTP requests (through its access to the store) — here: none reached it. */
async function probeId(): Promise<string> {
  return (await ok('probe_ultimate')).probe.probe_id as string;
}

before(async () => {
  stack = await startUltimateStack('ultimate-captures-e2e', [
    '--capture-max-datagrams',
    String(MAX_DATAGRAMS),
    '--capture-max-duration-ms',
    '5000',
  ]);
});

after(async () => {
  await stack?.close();
});

test('the nine tools are listed with closed inputs', async () => {
  const { tools } = await stack.client.listTools();
  const names = new Set(tools.map((t) => t.name));
  for (const n of [
    'get_run_timeline',
    'get_run_diagnostic_report',
    'get_run_diagnostic_items',
    'get_crash_report',
    'prepare_debug_stream_capture',
    'cancel_debug_stream_capture_preparation',
    'start_debug_stream_capture',
    'prepare_source_linked_capture',
    'start_source_linked_capture',
  ])
    assert.ok(names.has(n), n);
  for (const t of tools) assert.equal((t.inputSchema as { additionalProperties?: boolean }).additionalProperties, false, t.name);
});

let busRun = '';

test('debug-stream capture: prepare → review → start → a verified bus_only run, paged and then tampered', {
  timeout: 120_000,
}, async () => {
  await fails('prepare_debug_stream_capture', { probe_id: 'p', receiver_ipv4: '127.0.0.256' }, 'invalid_arguments', 'adapter');
  const { preparation } = await ok('prepare_debug_stream_capture', { probe_id: await probeId(), receiver_ipv4: '127.0.0.1' });
  assert.equal(preparation.kind, 'debug_stream');
  assert.equal(preparation.device_touched, false);
  assert.equal(preparation.identity.virtual, true);
  assert.equal(preparation.stream_configuration.debug_stream_mode, '6510 & VIC');
  assert.equal(preparation.stream_configuration.destination_address, '127.0.0.1');
  assert.deepEqual(preparation.limits, { max_datagrams: MAX_DATAGRAMS, max_duration_ms: 5000 });
  const id = preparation.preparation_id;

  // Wrong counts: refused by the service before the preparation is used, so it still starts afterwards.
  const mismatch = await fails(
    'start_debug_stream_capture',
    { preparation_id: id, confirmed_stream_start_count: 1, confirmed_stream_stop_count: 0 },
    'confirmed_count_mismatch',
  );
  assert.equal(mismatch?.http_status, 422);
  const { capture, run } = await ok('start_debug_stream_capture', {
    preparation_id: id,
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(capture.run_id, run.run_id);
  assert.equal(run.run_record_schema_version, 9);
  assert.equal(run.status, 'passed', run.status_reason);
  assert.equal(run.observations.debug_stream.datagrams, MAX_DATAGRAMS);
  assert.equal(run.observations.debug_stream.truncation, 'max-datagrams');
  busRun = run.run_id;

  const page = await ok('get_run_timeline', { run_id: busRun, limit: 100 });
  assert.equal(page.mode, 'bus_only');
  assert.equal(page.rows.length, 100);
  assert.equal(page.total_datagrams, MAX_DATAGRAMS);
  for (const r of page.rows) assert.ok(!('instruction' in r) && !('call' in r) && !('return' in r));
  const next = await ok('get_run_timeline', { run_id: busRun, limit: 5, cursor: page.next_cursor });
  assert.equal(next.rows[0].cursor, page.next_cursor);
  const writes = await ok('get_run_timeline', { run_id: busRun, access: 'write', address_from: '$0100', address_to: '$01FF', limit: 20 });
  for (const r of writes.rows.filter((x: any) => x.kind === 'bus')) {
    assert.equal(r.access, 'write');
    assert.ok(r.address >= 0x100 && r.address <= 0x1ff);
  }

  // Closed inputs are refused by the adapter; a valid-looking cursor past the end by the service.
  await fails('get_run_timeline', { run_id: busRun, cursor: 'abc' }, 'invalid_arguments', 'adapter');
  await fails('get_run_timeline', { run_id: busRun, limit: 4097 }, 'invalid_arguments', 'adapter');
  await fails('get_run_timeline', { run_id: busRun, access: 'fetch' }, 'invalid_arguments', 'adapter');
  await fails('get_run_timeline', { run_id: busRun, address_from: '$2000', address_to: '$1000' }, 'invalid_arguments', 'adapter');
  const past = await fails('get_run_timeline', { run_id: busRun, cursor: '999999:0' }, 'timeline_failed');
  assert.equal(past?.http_status, 409); // timeline_failed has one status (api/errors.ts)

  // The capture is registered evidence: size and SHA-256, never its bytes.
  const ev = await ok('read_evidence', { run_id: busRun, name: 'debug-stream-capture.bin' });
  assert.equal(ev.evidence.kind, 'binary');
  assert.equal(ev.evidence.text, undefined);
  assert.equal(ev.evidence.sha256, run.evidence.find((e: { name: string }) => e.name === 'debug-stream-capture.bin').sha256);

  const file = join(stack.store, 'runs', busRun, 'debug-stream-capture.bin');
  const bytes = readFileSync(file);
  bytes[100] = (bytes[100] ?? 0) ^ 0x55;
  writeFileSync(file, bytes);
  const tampered = await fails('get_run_timeline', { run_id: busRun }, 'timeline_failed');
  assert.equal(tampered?.http_status, 409);
  await fails('get_run_diagnostic_report', { run_id: busRun }, 'diagnostic_report_failed');
});

test('a cancelled preparation: no hardware access, and it can no longer start', { timeout: 30_000 }, async () => {
  const { preparation } = await ok('prepare_debug_stream_capture', { probe_id: await probeId(), receiver_ipv4: '127.0.0.1' });
  const cancelled = await ok('cancel_debug_stream_capture_preparation', { preparation_id: preparation.preparation_id });
  assert.equal(cancelled.preparation.state, 'cancelled');
  assert.equal(cancelled.preparation.device_touched, false);
  const err = await fails(
    'start_debug_stream_capture',
    { preparation_id: preparation.preparation_id, confirmed_stream_start_count: 1, confirmed_stream_stop_count: 1 },
    'preparation_settled',
  );
  assert.equal(err?.details?.state, 'cancelled');
  await fails('cancel_debug_stream_capture_preparation', { preparation_id: 'nope' }, 'invalid_arguments', 'adapter');
  await fails('cancel_debug_stream_capture_preparation', { preparation_id: '0b7e3c1a-1111-4222-8333-444455556666' }, 'not-found');
});

test('source-linked capture of timeline-probe: rows resolve to ca65 source, post-stop evidence registered', {
  timeout: 180_000,
}, async () => {
  await fails(
    'prepare_source_linked_capture',
    { probe_id: await probeId(), receiver_ipv4: '127.0.0.1', test: 'sum-passes' },
    'invalid-request',
  );
  const { preparation } = await ok('prepare_source_linked_capture', {
    probe_id: await probeId(),
    receiver_ipv4: '127.0.0.1',
    test: 'timeline-probe',
  });
  assert.equal(preparation.kind, 'source_linked');
  assert.equal(preparation.prerequisites.build.status, 'succeeded');
  assert.equal(preparation.prerequisites.analysis.debug_info.format, 'ld65-dbg');
  assert.deepEqual(preparation.confirmations_required, {
    confirmed_reset_count: 1,
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  const id = preparation.preparation_id;
  await fails(
    'start_source_linked_capture',
    { preparation_id: id, confirmed_reset_count: 2, confirmed_stream_start_count: 1, confirmed_stream_stop_count: 1 },
    'confirmed_count_mismatch',
  );
  const { run } = await ok('start_source_linked_capture', {
    preparation_id: id,
    confirmed_reset_count: 1,
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(run.status, 'passed', run.status_reason);
  assert.equal(run.test, 'timeline-probe');
  assert.equal(typeof run.observations.debug_stream.truncated, 'boolean');
  assert.equal(run.observations.pass_marker.matched, true);
  const marker = await ok('read_evidence', { run_id: run.run_id, name: 'pass-marker.json' });
  assert.equal(JSON.parse(marker.evidence.text).value, 0x80);
  const screen = await ok('read_evidence', { run_id: run.run_id, name: 'screen.txt' });
  assert.equal(typeof screen.evidence.text, 'string');

  // The CPU reading the bytes of `progress` ($081F..$0825): file, line and symbol of each.
  const code = await ok('get_run_timeline', {
    run_id: run.run_id,
    access: 'read',
    address_from: '$081F',
    address_to: '$0825',
    limit: 4096,
  });
  assert.equal(code.mode, 'source_linked');
  const bus = code.rows.filter((r: any) => r.kind === 'bus');
  assert.ok(bus.length > 0);
  for (const r of bus) assert.deepEqual([r.source.file, r.source.symbol], ['src/ca65/timeline.s', 'progress']);
  // The progress markers written to $D7FF, in order.
  const markers = await ok('get_run_timeline', {
    run_id: run.run_id,
    access: 'write',
    address_from: 0xd7ff,
    address_to: 0xd7ff,
    limit: 64,
  });
  const values = markers.rows.filter((r: any) => r.kind === 'bus').map((r: any) => r.data);
  assert.deepEqual(values.slice(0, 3), [1, 2, 3]);
  // One clock: each write's cycle in the timeline is the judge's (φ2 clocks from the program's
  // first instruction; the display is on, so bad lines are in between).
  assert.equal(markers.cycle_unit, 'clock');
  assert.equal(markers.cycle_origin, 'program_start');
  assert.equal(run.observations.cycle_source, 'debug-stream');
  assert.deepEqual(
    markers.rows.filter((r: any) => r.kind === 'bus' && r.before_program_start === false).map((r: any) => [r.data, r.cycle]),
    run.observations.debug_register_writes.map((w: any) => [w.value, w.cycle]),
  );
  // An exact context keeps the rows of one symbol.
  const inProgress = await ok('get_run_timeline', { run_id: run.run_id, access: 'read', context: 'progress', limit: 2000 });
  for (const r of inProgress.rows.filter((x: any) => x.kind === 'bus')) assert.equal(r.source.symbol, 'progress');
});

test('crash report names the crashed function; diagnostic report and items; their errors', { timeout: 180_000 }, async () => {
  const { job } = await ok('start_test_job', { test: 'brk-crash', targets: ['vice'] });
  let done: Record<string, any>;
  for (;;) {
    done = (await ok('get_job', { job_id: job.job_id })).job;
    if (done.state !== 'queued' && done.state !== 'running') break;
    await new Promise((r) => setTimeout(r, 100)); // polling, as the contract tells clients to
  }
  const runId = done.run_ids[0] as string;
  const crash = await ok('get_crash_report', { run_id: runId });
  assert.equal(crash.crash_analysis_schema_version, 2);
  assert.equal(crash.site.resolution.result, 'resolved');
  assert.match(JSON.stringify(crash.site.resolution), /"broken"/);

  const report = await ok('get_run_diagnostic_report', { run_id: runId });
  assert.equal(report.diagnostic_report_schema_version, 1);
  assert.equal(report.run_status, 'crashed');
  const first = await ok('get_run_diagnostic_items', { run_id: runId, section: 'assertions', limit: 1 });
  assert.equal(first.items.length, 1);
  const rest = await ok('get_run_diagnostic_items', { run_id: runId, section: 'assertions', cursor: first.next_cursor });
  assert.equal(rest.items.length, first.total - 1);
  await fails('get_run_diagnostic_items', { run_id: runId, section: 'registers' }, 'invalid_arguments', 'adapter');
  await fails('get_run_diagnostic_items', { run_id: runId, section: 'budget', limit: 101 }, 'invalid_arguments', 'adapter');
  await fails('get_run_diagnostic_items', { run_id: runId, section: 'budget', cursor: 'not a cursor!' }, 'invalid_arguments', 'adapter');
  // A well-formed cursor of another section is refused by the service.
  await fails('get_run_diagnostic_items', { run_id: runId, section: 'budget', cursor: first.next_cursor }, 'diagnostic_report_failed');

  const unknown = '0b7e3c1a-1111-4222-8333-444455556666';
  for (const [tool, args] of [
    ['get_run_timeline', {}],
    ['get_run_diagnostic_report', {}],
    ['get_run_diagnostic_items', { section: 'budget' }],
    ['get_crash_report', {}],
  ] as const) {
    const e = await fails(tool, { run_id: unknown, ...args }, 'not-found');
    assert.equal(e?.http_status, 404);
  }
  // A run that did not crash has no crash report.
  if (busRun) await fails('get_crash_report', { run_id: busRun }, 'crash_analysis_failed');

  const ctx = join(stack.store, 'runs', runId, 'crash-context.bin');
  const b = readFileSync(ctx);
  b[4] = (b[4] ?? 0) ^ 0x01;
  writeFileSync(ctx, b);
  await fails('get_crash_report', { run_id: runId }, 'crash_analysis_failed');
  await fails('get_run_diagnostic_report', { run_id: runId }, 'diagnostic_report_failed');
});

const run = promisify(execFile);
const cli = (...args: string[]) => run(process.execPath, [bin('ultimate-tool'), 'capture', ...args, '--service-url', stack.serviceUrl]);

test('ultimate-tool capture probe|prepare|cancel|start: the same operations over HTTP', { timeout: 120_000 }, async () => {
  const probe = JSON.parse((await cli('probe')).stdout).probe.probe_id as string;
  const prep = JSON.parse((await cli('prepare', '--probe-id', probe, '--receiver', '127.0.0.1')).stdout).preparation;
  assert.equal(prep.state, 'prepared');
  const bad = await cli('start', prep.preparation_id, '--confirmed-stream-start-count', '3', '--confirmed-stream-stop-count', '1').catch(
    (e: { code: number; stderr: string }) => e,
  );
  assert.equal((bad as { code: number }).code, 1);
  assert.match((bad as { stderr: string }).stderr, /confirmed_count_mismatch/);
  const started = JSON.parse(
    (await cli('start', prep.preparation_id, '--confirmed-stream-start-count', '1', '--confirmed-stream-stop-count', '1')).stdout,
  );
  assert.equal(started.run.status, 'passed');
  const probe2 = JSON.parse((await cli('probe')).stdout).probe.probe_id as string;
  const prep2 = JSON.parse((await cli('prepare', '--probe-id', probe2, '--receiver', '127.0.0.1')).stdout).preparation;
  const cancelled = JSON.parse((await cli('cancel', prep2.preparation_id)).stdout).preparation;
  assert.equal(cancelled.state, 'cancelled');
  const usage = await cli('start').catch((e: { code: number }) => e);
  assert.equal((usage as { code: number }).code, 64);
});
