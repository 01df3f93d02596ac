// Progress of a polled job reaches the official SDK client (issue 35). The SDK hands a
// notification to its handler one microtask after it reads it, but retires a request's progress
// handler at once when it reads the answer: a notification read in the same chunk as its answer
// was dropped as "unknown token" (9 of 30 polls), though it was on the wire first. The adapter
// now sends a ping after the progress notification and answers only once the client has
// answered it — by then the client has dispatched everything it read before (job-progress.ts).
// 50 polls of a live job with a progressToken, over the spawned bin's stdio: none is lost.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { binCommand } from '../../helpers/bin.js';
import { type FakeService, IDS, job, startFakeService } from './helpers/fake-service.js';

let service: FakeService;
before(async () => {
  service = await startFakeService();
  // A live job: 2 of 5 runs finished.
  service.override((req) =>
    req.method === 'GET' && req.path === `/v13/jobs/${IDS.job}`
      ? {
          status: 200,
          body: {
            api_schema_version: 13,
            job: job({ state: 'running', progress: { completed_runs: 2, total_runs: 5, phase: 'vice: run 3 of 5' } }),
          },
        }
      : undefined,
  );
});
after(() => service.close());

const POLLS = 50;

test(`get_job with a progressToken, polled ${POLLS} times by the official SDK client: every notification reaches it`, {
  timeout: 120_000,
}, async () => {
  const { command, args } = binCommand('ultimate-tool-mcp', ['--service-url', service.url]);
  const client = new Client({ name: 'sdk-progress', version: '1.0.0' });
  const errors: string[] = [];
  client.onerror = (e) => errors.push(e.message);
  await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  try {
    let received = 0;
    for (let i = 0; i < POLLS; i++) {
      const seen: Array<{ progress: number; total?: number }> = [];
      const r = (await client.callTool({ name: 'get_job', arguments: { job_id: IDS.job } }, undefined, {
        onprogress: (p) => seen.push(p),
      })) as unknown as { structuredContent: { data: { job: { progress: { completed_runs: number; total_runs: number } } } } };
      const { completed_runs, total_runs } = r.structuredContent.data.job.progress;
      assert.equal(seen.length, 1, `poll ${i}: ${seen.length} progress notifications reached the client`);
      assert.deepEqual({ progress: seen[0]!.progress, total: seen[0]!.total }, { progress: completed_runs, total: total_runs });
      received++;
    }
    assert.equal(received, POLLS);
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
  }
});
