// The adapter's tools through the official SDK client, against a stand-in service that
// speaks the service's API (docs/ultimate/SERVICE-API.md) with canned answers and counts requests: forwarding, envelopes, layers.
// (Local validation, which needs no canned answers, is in validation.test.ts.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ULTIMATE_TOOL_NAMES } from '../../../adapters/ultimate/index.js';
import { IDS, type FakeService, startFakeService, tinyPng } from './helpers/fake-service.js';
import { connectAdapter } from './helpers/connect.js';

let service: FakeService;
let adapter: Awaited<ReturnType<typeof connectAdapter>>;

before(async () => {
  service = await startFakeService();
  adapter = await connectAdapter(service.url, { requestTimeoutMs: 2_000 });
});
after(async () => {
  await adapter.close();
  await service.close();
});

function requestsDuring<T>(run: () => Promise<T>): Promise<{ result: T; count: number }> {
  const before = service.requests.length;
  return run().then((result) => ({ result, count: service.requests.length - before }));
}

describe('tools/list', { timeout: 30_000 }, () => {
  test('exactly the eleven contract tools, closed inputs, envelope output schemas', { timeout: 30_000 }, async () => {
    const { tools } = await adapter.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...ULTIMATE_TOOL_NAMES].sort());
    for (const tool of tools) {
      assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} input is closed`);
      const out = tool.outputSchema as { type: string; properties: Record<string, unknown> };
      assert.equal(out.type, 'object');
      assert.deepEqual(Object.keys(out.properties).sort(), ['data', 'error', 'operation', 'schema_version']);
    }
  });
});

describe('forwarding: each tool calls its route and returns the service body as data', { timeout: 30_000 }, () => {
  const cases: Array<{
    tool: string;
    args: Record<string, unknown>;
    method: string;
    path: string;
    query?: Record<string, string>;
    body?: unknown;
    key: string;
  }> = [
    { tool: 'get_project', args: {}, method: 'GET', path: '/v13/project', key: 'project' },
    { tool: 'list_targets', args: {}, method: 'GET', path: '/v13/targets', key: 'targets' },
    { tool: 'list_runs', args: {}, method: 'GET', path: '/v13/runs', query: {}, key: 'runs' },
    {
      tool: 'list_runs',
      args: { limit: 100, cursor: 'opaque:1', test: 'passes', target: 'ultimate' },
      method: 'GET',
      path: '/v13/runs',
      query: { limit: '100', cursor: 'opaque:1', test: 'passes', target: 'ultimate' },
      key: 'runs',
    },
    { tool: 'get_run', args: { run_id: IDS.run.toUpperCase() }, method: 'GET', path: `/v13/runs/${IDS.run}`, key: 'run' },
    { tool: 'get_job', args: { job_id: IDS.job }, method: 'GET', path: `/v13/jobs/${IDS.job}`, key: 'job' },
    { tool: 'get_active_job', args: {}, method: 'GET', path: '/v13/jobs/active', key: 'job' },
    { tool: 'probe_ultimate', args: { strict_gate: true }, method: 'POST', path: '/v13/probes', body: { strict_gate: true }, key: 'probe' },
    { tool: 'probe_ultimate', args: {}, method: 'POST', path: '/v13/probes', body: {}, key: 'probe' },
    {
      tool: 'start_test_job',
      args: {
        test: 'passes',
        targets: ['vice', 'ultimate'],
        repeat: 2,
        baseline_run_id: IDS.baseline,
        strict_gate: false,
        probe_id: IDS.probe,
        confirmed_reset_count: 2,
        confirmed_reu_write_count: 0,
      },
      method: 'POST',
      path: '/v13/jobs',
      body: {
        test: 'passes',
        targets: ['vice', 'ultimate'],
        repeat: 2,
        baseline_run_id: IDS.baseline,
        strict_gate: false,
        probe_id: IDS.probe,
        confirmed_reset_count: 2,
        confirmed_reu_write_count: 0,
      },
      key: 'job',
    },
    {
      tool: 'read_evidence',
      args: { run_id: IDS.run, name: 'screen.txt' },
      method: 'GET',
      path: `/v13/runs/${IDS.run}/evidence/screen.txt`,
      key: 'evidence',
    },
    {
      tool: 'compare_runs',
      args: { baseline_run_id: IDS.baseline, candidate_run_id: IDS.run, context: 'main' },
      method: 'GET',
      path: '/v13/comparisons/runs',
      query: { baseline: IDS.baseline, candidate: IDS.run, context: 'main' },
      key: 'comparison_schema_version',
    },
    {
      tool: 'resolve_address',
      args: { run_id: IDS.run, address: '$C000' },
      method: 'GET',
      path: `/v13/runs/${IDS.run}/resolve`,
      query: { address: '$C000' },
      key: 'resolver_schema_version',
    },
    {
      tool: 'resolve_address',
      args: { run_id: IDS.run, address: 53280, context: 'irq' },
      method: 'GET',
      path: `/v13/runs/${IDS.run}/resolve`,
      query: { address: '53280', context: 'irq' },
      key: 'resolver_schema_version',
    },
  ];
  for (const c of cases) {
    test(`${c.tool} ${JSON.stringify(c.args)}`, { timeout: 30_000 }, async () => {
      const { result, count } = await requestsDuring(() => adapter.call(c.tool, c.args));
      assert.equal(count, 1, 'exactly one request');
      const seen = service.requests.at(-1)!;
      assert.equal(seen.method, c.method);
      assert.equal(seen.path, c.path);
      if (c.query) assert.deepEqual(seen.query, c.query);
      if (c.body !== undefined) assert.deepEqual(seen.body, c.body);
      assert.equal(result.isError, false, JSON.stringify(result.envelope));
      assert.equal(result.envelope.schema_version, 12);
      assert.equal(result.envelope.operation, c.tool);
      assert.equal(result.envelope.error, undefined);
      assert.equal(result.envelope.data?.api_schema_version, 13, 'data is the HTTP body with api_schema_version 13');
      assert.ok(c.key in result.envelope.data!, `data carries ${c.key}`);
    });
  }
});

describe('failures from the service and the way there', { timeout: 30_000 }, () => {
  test('a service error keeps its code and HTTP status, layer service', { timeout: 30_000 }, async () => {
    const r = await adapter.call('get_run', { run_id: IDS.run });
    assert.equal(r.isError, false);
    service.override((req) =>
      req.path.startsWith('/v13/runs/')
        ? { status: 404, body: { api_schema_version: 13, error: { code: 'not-found', message: 'no run 0b7e…' } } }
        : undefined,
    );
    try {
      const e = await adapter.call('get_run', { run_id: IDS.run });
      assert.equal(e.isError, true);
      assert.deepEqual(e.envelope, {
        schema_version: 12,
        operation: 'get_run',
        error: { code: 'not-found', layer: 'service', message: 'no run 0b7e…', http_status: 404 },
      });
    } finally {
      service.clearOverrides();
    }
  });

  test('a 422 probe_strictness_mismatch passes through with its details', { timeout: 30_000 }, async () => {
    service.override((req) =>
      req.path === '/v13/jobs'
        ? {
            status: 422,
            body: {
              api_schema_version: 13,
              error: { code: 'probe_strictness_mismatch', message: 'strict_gate needs a strict probe', details: { probe_id: IDS.probe } },
            },
          }
        : undefined,
    );
    try {
      const e = await adapter.call('start_test_job', {
        test: 'passes',
        targets: ['ultimate'],
        strict_gate: true,
        probe_id: IDS.probe,
        confirmed_reset_count: 1,
        confirmed_reu_write_count: 0,
      });
      assert.equal(e.envelope.error?.code, 'probe_strictness_mismatch');
      assert.equal(e.envelope.error?.layer, 'service');
      assert.equal(e.envelope.error?.http_status, 422);
      assert.deepEqual(e.envelope.error?.details, { probe_id: IDS.probe });
    } finally {
      service.clearOverrides();
    }
  });

  test('device codes (identity_changed, target_unavailable, a device layer hint) are layer device', { timeout: 30_000 }, async () => {
    for (const [status, error] of [
      [409, { code: 'identity_changed', message: 'the device identity changed since the probe' }],
      [503, { code: 'target_unavailable', message: 'the Ultimate does not answer' }],
      [502, { code: 'reset_failed', message: 'reset refused', details: { layer: 'device' } }],
    ] as const) {
      service.override((req) => (req.path === '/v13/probes' ? { status, body: { api_schema_version: 13, error } } : undefined));
      try {
        const e = await adapter.call('probe_ultimate', {});
        assert.equal(e.envelope.error?.layer, 'device', error.code);
        assert.equal(e.envelope.error?.code, error.code);
        assert.equal(e.envelope.error?.http_status, status);
      } finally {
        service.clearOverrides();
      }
    }
  });

  test('a body that is not JSON is a transport failure; a wrong API schema is a service one', { timeout: 30_000 }, async () => {
    service.override((req) => (req.path === '/v13/targets' ? { status: 200, body: '<html>proxy</html>', raw: true } : undefined));
    let e = await adapter.call('list_targets');
    assert.equal(e.envelope.error?.code, 'invalid_service_response');
    assert.equal(e.envelope.error?.layer, 'transport');
    assert.equal(e.envelope.error?.http_status, 200);
    service.clearOverrides();
    service.override((req) => (req.path === '/v13/targets' ? { status: 200, body: { api_schema_version: 12, targets: [] } } : undefined));
    e = await adapter.call('list_targets');
    assert.equal(e.envelope.error?.code, 'api_schema_mismatch');
    assert.equal(e.envelope.error?.layer, 'service');
    service.clearOverrides();
    service.override((req) =>
      req.path === '/v13/targets' ? { status: 200, body: { api_schema_version: 13, targets: [{ target: 'c128' }] } } : undefined,
    );
    e = await adapter.call('list_targets');
    assert.equal(e.envelope.error?.code, 'invalid_service_response');
    assert.equal(e.envelope.error?.layer, 'service');
    assert.match(e.envelope.error!.message, /targets/);
    service.clearOverrides();
    service.override((req) => (req.path === '/v13/targets' ? { status: 500, body: { oops: true } } : undefined));
    e = await adapter.call('list_targets');
    assert.equal(e.envelope.error?.code, 'invalid_service_response');
    assert.equal(e.envelope.error?.http_status, 500);
    service.clearOverrides();
    assert.equal((await adapter.call('list_targets')).isError, false, 'and the adapter keeps serving');
  });

  test('a service that does not answer in time is a transport failure', { timeout: 30_000 }, async () => {
    service.override((req) => (req.path === '/v13/jobs/active' ? 'hang' : undefined));
    try {
      const e = await adapter.call('get_active_job');
      assert.equal(e.envelope.error?.code, 'service_timeout');
      assert.equal(e.envelope.error?.layer, 'transport');
    } finally {
      service.clearOverrides();
    }
  });

  test('a cancelled call abandons its HTTP request; no response is sent for it', { timeout: 30_000 }, async () => {
    service.override((req) => (req.path === '/v13/project' ? 'hang' : undefined));
    try {
      const before = service.abandoned;
      const controller = new AbortController();
      const call = adapter.client.callTool({ name: 'get_project', arguments: {} }, undefined, { signal: controller.signal });
      const requests = service.requests.length;
      while (service.requests.length === requests) await new Promise((r) => setImmediate(r));
      controller.abort();
      await assert.rejects(call, /abort/i);
      while (service.abandoned === before) await new Promise((r) => setImmediate(r));
      assert.equal(service.abandoned, before + 1, 'the adapter closed the request to the service');
      assert.equal((await adapter.call('list_targets')).isError, false, 'and keeps serving');
    } finally {
      service.clearOverrides();
    }
  });

  test('no service at the URL: service_unreachable, layer transport', { timeout: 30_000 }, async () => {
    const gone = await startFakeService();
    const url = gone.url;
    await gone.close();
    const orphan = await connectAdapter(url);
    try {
      const e = await orphan.call('get_project');
      assert.equal(e.isError, true);
      assert.equal(e.envelope.error?.code, 'service_unreachable');
      assert.equal(e.envelope.error?.layer, 'transport');
      assert.match(e.envelope.error!.message, /ultimate-tool serve/);
    } finally {
      await orphan.close();
    }
  });
});

describe('read_evidence', { timeout: 30_000 }, () => {
  test('a PNG comes as MCP image content, not as base64 inside the JSON', { timeout: 30_000 }, async () => {
    const r = await adapter.call('read_evidence', { run_id: IDS.run, name: 'screenshot.png' });
    assert.equal(r.isError, false);
    assert.equal(r.content.length, 2);
    assert.equal(r.content[1]?.type, 'image');
    assert.equal(r.content[1]?.mimeType, 'image/png');
    assert.deepEqual(Buffer.from(r.content[1]!.data!, 'base64'), tinyPng());
    const evidence = r.envelope.data?.evidence as Record<string, unknown>;
    assert.equal(evidence.kind, 'image');
    assert.equal(evidence.base64, undefined);
    assert.equal(evidence.size, tinyPng().length);
  });

  test('text inline; other binaries as size and SHA-256 only', { timeout: 30_000 }, async () => {
    const text = await adapter.call('read_evidence', { run_id: IDS.run, name: 'screen.txt' });
    assert.equal((text.envelope.data!.evidence as { text: string }).text, 'READY');
    assert.equal(text.content.length, 1);
    const bin = await adapter.call('read_evidence', { run_id: IDS.run, name: 'memory.bin' });
    assert.deepEqual(bin.envelope.data?.evidence, {
      name: 'memory.bin',
      media_type: 'application/octet-stream',
      size: 3,
      sha256: 'e'.repeat(64),
      kind: 'binary',
    });
    assert.equal(bin.content.length, 1);
  });

  test('an unregistered name is the service error evidence_not_registered', { timeout: 30_000 }, async () => {
    const e = await adapter.call('read_evidence', { run_id: IDS.run, name: 'secret.txt' });
    assert.equal(e.envelope.error?.code, 'evidence_not_registered');
    assert.equal(e.envelope.error?.layer, 'service');
    assert.equal(e.envelope.error?.http_status, 404);
  });
});

describe('older protocol versions get the same envelope as text', { timeout: 30_000 }, () => {
  test('2024-11-05: no structuredContent, same JSON text, output still enforced', { timeout: 30_000 }, async () => {
    const { McpClient } = await import('../../../src/index.js');
    const { createUltimateToolServer } = await import('../../../adapters/ultimate/index.js');
    const { InMemoryTransport } = await import('../../../transports/index.js');
    const { createLogger } = await import('../../../src/index.js');
    const server = createUltimateToolServer({ serviceUrl: service.url, logger: createLogger('t', 'error') });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new McpClient({ name: 'old', version: '1' }, { protocolVersion: '2024-11-05', logger: createLogger('t', 'error') });
    await client.connect(a);
    try {
      const ok = await client.callTool('get_active_job', {});
      assert.equal(ok.structuredContent, undefined);
      assert.deepEqual(JSON.parse((ok.content[0] as { text: string }).text), {
        schema_version: 12,
        operation: 'get_active_job',
        data: { api_schema_version: 13, job: null },
      });
      const bad = await client.callTool('get_run', { run_id: 'x' });
      assert.equal(bad.isError, true);
      assert.equal(bad.structuredContent, undefined);
      assert.equal(JSON.parse((bad.content[0] as { text: string }).text).error.layer, 'adapter');
    } finally {
      await client.close();
      await server.close();
    }
  });
});
