// Local validation: malformed input to every tool is an envelope error in layer "adapter" and no
// request reaches the service (counted at the service). Needs no canned answers, so it also runs
// against a real service: ULTIMATE_SERVICE_URL=http://127.0.0.1:PORT puts the counting stand-in in
// front of it as a forwarding proxy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connectAdapter } from './helpers/connect.js';
import { type FakeService, IDS, startFakeService } from './helpers/fake-service.js';

let service: FakeService;
let adapter: Awaited<ReturnType<typeof connectAdapter>>;

before(async () => {
  const upstream = process.env.ULTIMATE_SERVICE_URL;
  service = await startFakeService(upstream ? { upstream } : {});
  adapter = await connectAdapter(service.url);
});
after(async () => {
  await adapter.close();
  await service.close();
});

function requestsDuring<T>(run: () => Promise<T>): Promise<{ result: T; count: number }> {
  const before = service.requests.length;
  return run().then((result) => ({ result, count: service.requests.length - before }));
}

test('a valid call does reach the service (the counter counts)', { timeout: 30_000 }, async () => {
  const { count } = await requestsDuring(() => adapter.call('list_targets'));
  assert.equal(count, 1);
});

describe('local validation: malformed input never reaches the service', { timeout: 30_000 }, () => {
  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['get_project', { extra: 1 }, /extra/],
    ['list_targets', { target: 'vice' }, /target/],
    ['list_runs', { limit: 0 }, /limit/],
    ['list_runs', { limit: 101 }, /limit/],
    ['list_runs', { limit: 2.5 }, /limit/],
    ['list_runs', { target: 'c128' }, /target/],
    ['list_runs', { cursor: '' }, /cursor/],
    ['get_run', { run_id: 'not-a-uuid' }, /run_id must be a UUID/],
    ['get_run', { run_id: `${IDS.run}0` }, /run_id/],
    ['get_run', { run_id: '../etc/passwd' }, /run_id/],
    ['get_run', {}, /run_id/],
    ['get_run', { run_id: IDS.run, verbose: true }, /verbose/],
    ['get_job', { job_id: '../x' }, /job_id/],
    ['get_job', { job_id: 'active' }, /reserved/],
    ['get_job', { job_id: '' }, /job_id/],
    ['get_active_job', { job_id: IDS.job }, /job_id/],
    ['probe_ultimate', { strict_gate: 'yes' }, /strict_gate/],
    ['probe_ultimate', { reset: true }, /reset/],
    ['start_test_job', { targets: ['vice'] }, /test/],
    ['start_test_job', { test: 'passes', targets: [] }, /targets/],
    ['start_test_job', { test: 'passes', targets: ['vice', 'vice'] }, /must not repeat/],
    ['start_test_job', { test: 'passes', targets: ['amiga'] }, /targets/],
    ['start_test_job', { test: 'passes', targets: ['vice'], repeat: 0 }, /repeat/],
    ['start_test_job', { test: 'passes', targets: ['vice'], repeat: 1.5 }, /repeat/],
    ['start_test_job', { test: 'passes', targets: ['vice'], baseline_run_id: 'nope' }, /baseline_run_id/],
    ['start_test_job', { test: 'passes', targets: ['ultimate'], confirmed_reset_count: -1 }, /confirmed_reset_count/],
    ['start_test_job', { test: 'passes', targets: ['vice'], force: true }, /force/],
    ['read_evidence', { run_id: IDS.run, name: '../run.json' }, /not a path/],
    ['read_evidence', { run_id: IDS.run, name: '..' }, /not a path/],
    ['read_evidence', { run_id: IDS.run, name: 'a/b.txt' }, /not a path/],
    ['read_evidence', { run_id: IDS.run, name: '/etc/passwd' }, /not a path/],
    ['read_evidence', { run_id: 'x', name: 'screen.txt' }, /run_id/],
    ['compare_runs', { baseline_run_id: IDS.baseline }, /candidate_run_id/],
    ['compare_runs', { baseline_run_id: IDS.baseline, candidate_run_id: 'x' }, /candidate_run_id/],
    ['compare_runs', { baseline_run_id: IDS.baseline, candidate_run_id: IDS.run, context: '' }, /context/],
    ['resolve_address', { run_id: IDS.run, address: '$10000' }, /address/],
    ['resolve_address', { run_id: IDS.run, address: 65536 }, /out of range/],
    ['resolve_address', { run_id: IDS.run, address: -1 }, /out of range/],
    ['resolve_address', { run_id: IDS.run, address: 'C000' }, /not understood/],
    ['resolve_address', { run_id: IDS.run, address: '0x' }, /not understood/],
    ['resolve_address', { run_id: IDS.run, address: '12ab' }, /not understood/],
    ['resolve_address', { run_id: IDS.run, address: 'start' }, /not understood/],
  ];
  for (const [tool, args, message] of bad) {
    test(`${tool} ${JSON.stringify(args)}`, { timeout: 30_000 }, async () => {
      const { result, count } = await requestsDuring(() => adapter.call(tool, args));
      assert.equal(count, 0, 'no request reached the service');
      assert.equal(result.isError, true);
      assert.equal(result.envelope.schema_version, 12);
      assert.equal(result.envelope.operation, tool);
      assert.equal(result.envelope.data, undefined);
      assert.equal(result.envelope.error?.code, 'invalid_arguments');
      assert.equal(result.envelope.error?.layer, 'adapter');
      assert.equal(result.envelope.error?.http_status, undefined);
      assert.match(result.envelope.error!.message, message);
    });
  }
});

describe('control characters', { timeout: 30_000 }, () => {
  test('in an evidence name or a context they are refused locally', { timeout: 30_000 }, async () => {
    for (const [tool, args] of [
      ['read_evidence', { run_id: IDS.run, name: 'a\u0000b' }],
      ['compare_runs', { baseline_run_id: IDS.baseline, candidate_run_id: IDS.run, context: 'x\ny' }],
    ] as const) {
      const { result, count } = await requestsDuring(() => adapter.call(tool, args));
      assert.equal(count, 0);
      assert.equal(result.envelope.error?.layer, 'adapter');
    }
  });
});
