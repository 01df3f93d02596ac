// The seven native tools' local validation: malformed input is an `adapter`-layer envelope error
// and no request reaches the service (counted at the ultimate-mcp suite's counting stand-in), and
// well-formed input reaches the native route it names.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectAdapter } from '../../../../adapters/ultimate/helpers/connect.js';
import { type FakeService, startFakeService } from '../../../../adapters/ultimate/helpers/fake-service.js';

const U = '123e4567-e89b-42d3-a456-426614174000';
let service: FakeService;
let adapter: Awaited<ReturnType<typeof connectAdapter>>;

before(async () => {
  service = await startFakeService({});
  adapter = await connectAdapter(service.url);
});
after(async () => {
  await adapter.close();
  await service.close();
});

describe('native tools: malformed input never reaches the service', { timeout: 30_000 }, () => {
  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['create_native_preparation', {}, /program/],
    ['create_native_preparation', { program: '../x' }, /program/],
    ['create_native_preparation', { program: 'utr2-echo', sources: ['a.c'] }, /sources/],
    ['create_native_intent', { preparation_id: 'x', probe_id: 'p', mode: 'one-shot' }, /preparation_id/],
    ['create_native_intent', { preparation_id: U, probe_id: 'p', mode: 'forever' }, /mode/],
    ['create_native_intent', { preparation_id: U, probe_id: 'p', mode: 'standing' }, /confirmed_standing_authorization/],
    [
      'create_native_intent',
      { preparation_id: U, probe_id: 'p', mode: 'standing', confirmed_standing_authorization: true, max_runs: 0 },
      /max_runs/,
    ],
    ['create_native_intent', { preparation_id: U, probe_id: 'p', mode: 'one-shot', max_runs: 3 }, /standing/],
    [
      'create_native_intent',
      { preparation_id: U, probe_id: 'p', mode: 'standing', confirmed_standing_authorization: true, expires_at: 'tomorrow' },
      /expires_at/,
    ],
    ['get_native_intent', { intent_id: 'nope' }, /intent_id/],
    ['revoke_native_intent', { intent_id: U, reason: 'x' }, /reason/],
    ['start_native_run', { intent_id: U }, /device_host/],
    ['start_native_run', { intent_id: U, device_host: 'a b' }, /device_host/],
    ['start_native_run', { intent_id: U, device_host: '127.0.0.1', file: '/Temp/x.ue2' }, /file/],
    ['start_native_health_check', { intent_id: U, run_id: U, device_host: '127.0.0.1', upload: true }, /upload/],
    ['start_native_health_check', { intent_id: U, device_host: '127.0.0.1' }, /run_id/],
    ['start_riscv_smoke_job', { probe_id: 'p', device_host: '127.0.0.1', confirmed_run_update_count: 2 }, /confirmed_run_update_count/],
    ['start_riscv_smoke_job', { probe_id: 'p', device_host: '127.0.0.1' }, /confirmed_run_update_count/],
  ];
  for (const [tool, args, message] of bad) {
    test(`${tool} ${JSON.stringify(args)}`, async () => {
      const before = service.requests.length;
      const result = await adapter.call(tool, args);
      assert.equal(service.requests.length - before, 0, 'no request reached the service');
      assert.equal(result.envelope.operation, tool);
      assert.equal(result.envelope.error?.code, 'invalid_arguments');
      assert.equal(result.envelope.error?.layer, 'adapter');
      assert.match(result.envelope.error!.message, message);
    });
  }
});

test('well-formed native calls go to their routes (ids lower-cased)', { timeout: 30_000 }, async () => {
  const calls: Array<[string, Record<string, unknown>, string, string]> = [
    ['create_native_preparation', { program: 'utr2-echo' }, 'POST', '/v13/native/preparations'],
    ['get_native_intent', { intent_id: U.toUpperCase() }, 'GET', `/v13/native/intents/${U}`],
    ['revoke_native_intent', { intent_id: U }, 'POST', `/v13/native/intents/${U}/revoke`],
    ['start_native_run', { intent_id: U, device_host: '127.0.0.1' }, 'POST', '/v13/native/runs'],
    ['start_native_health_check', { intent_id: U, run_id: U, device_host: '127.0.0.1' }, 'POST', '/v13/native/health-checks'],
    [
      'start_riscv_smoke_job',
      { probe_id: 'p1', device_host: '127.0.0.1', confirmed_run_update_count: 1 },
      'POST',
      '/v13/native/smoke-jobs',
    ],
  ];
  for (const [tool, args, method, path] of calls) {
    const before = service.requests.length;
    await adapter.call(tool, args);
    const req = service.requests[before];
    assert.ok(req, `${tool} made a request`);
    assert.equal(req!.method, method, tool);
    assert.equal(req!.path, path, tool);
  }
});
