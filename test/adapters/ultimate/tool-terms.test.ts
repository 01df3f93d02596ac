// Errors through the MCP adapter name MCP tools, not HTTP routes (issue 35): a service message that
// names a route a tool calls names the tool instead; other routes and text are left alone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { inToolTerms } from '../../../adapters/ultimate/tool-terms.js';
import { connectAdapter } from './helpers/connect.js';
import { type FakeService, IDS, startFakeService } from './helpers/fake-service.js';

test('a route a tool calls is named by the tool; the rest of the message is kept', () => {
  assert.equal(inToolTerms('no probe "x"; obtain one with POST /v13/probes'), 'no probe "x"; obtain one with probe_ultimate');
  assert.equal(inToolTerms('needs probe_id from POST /v13/probes (probe_ultimate)'), 'needs probe_id from probe_ultimate');
  assert.equal(
    inToolTerms('no native preparation p; create one with POST /v13/native/preparations'),
    'no native preparation p; create one with create_native_preparation',
  );
  // A filled-in path, a template and a query string name the same route.
  assert.equal(inToolTerms(`see GET /v13/jobs/${IDS.job}`), 'see get_job');
  assert.equal(inToolTerms('see GET /v13/jobs/{job_id}.'), 'see get_job.');
  assert.equal(inToolTerms('see GET /v13/jobs/active'), 'see get_active_job');
  assert.equal(inToolTerms('see GET /v13/runs?limit=5'), 'see list_runs');
  // Routes no tool calls, and a method the path does not have, stay as they are.
  assert.equal(inToolTerms('see GET /v13/native/intents'), 'see GET /v13/native/intents');
  assert.equal(inToolTerms('POST /v13/jobs/{job_id}/cancel'), 'POST /v13/jobs/{job_id}/cancel');
  assert.equal(inToolTerms('DELETE /v13/probes'), 'DELETE /v13/probes');
});

let service: FakeService;
before(async () => {
  service = await startFakeService();
});
after(() => service.close());

test('a service error through the adapter names the tool to call', async () => {
  service.override((req) =>
    req.path === '/v13/jobs'
      ? {
          status: 422,
          body: { api_schema_version: 13, error: { code: 'probe_unknown', message: 'no probe "p1"; obtain one with POST /v13/probes' } },
        }
      : undefined,
  );
  const adapter = await connectAdapter(service.url);
  try {
    const r = await adapter.call('start_test_job', { test: 'passes', targets: ['ultimate'], probe_id: 'p1', confirmed_reset_count: 1 });
    assert.equal(r.isError, true);
    assert.deepEqual(r.envelope.error, {
      code: 'probe_unknown',
      layer: 'service',
      message: 'no probe "p1"; obtain one with probe_ultimate',
      http_status: 422,
    });
  } finally {
    service.clearOverrides();
    await adapter.close();
  }
});
