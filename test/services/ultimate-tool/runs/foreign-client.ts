// The MCP side shared by the foreign-program judge tests (issue 26): one official SDK client on the
// real adapter in front of the real service, the tool envelope unwrapped, and one run of a test on
// one target, polled as the contract tells clients to. The ultimate target needs a probe and the
// confirmation counts; the vice target needs neither.
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export type Envelope = {
  operation: string;
  data?: Record<string, any>;
  error?: { code: string; layer: string; message: string; http_status?: number };
};

export interface ForeignClient {
  call(name: string, args?: Record<string, unknown>): Promise<Envelope>;
  ok(name: string, args?: Record<string, unknown>): Promise<Record<string, any>>;
  /** One run of `test` on `target`; returns its run record (the job must finish). */
  runOn(target: 'ultimate' | 'vice', test: string): Promise<Record<string, any>>;
}

export function foreignClient(client: () => Client): ForeignClient {
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Envelope> => {
    const r = await client().callTool({ name, arguments: args });
    const content = r.content as Array<Record<string, unknown>>;
    const envelope = (r.structuredContent ?? JSON.parse(String(content[0]?.text))) as Envelope;
    assert.equal(envelope.operation, name);
    return envelope;
  };
  const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> => {
    const e = await call(name, args);
    assert.ok(e.data, `${name} failed: ${JSON.stringify(e.error)}`);
    return e.data;
  };
  const runOn = async (target: 'ultimate' | 'vice', test: string): Promise<Record<string, any>> => {
    let jobArgs: Record<string, unknown> = { test, targets: [target] };
    if (target === 'ultimate') {
      const { probe } = await ok('probe_ultimate');
      jobArgs = { ...jobArgs, probe_id: probe.probe_id, confirmed_reset_count: 1, confirmed_reu_write_count: 0 };
    }
    const { job } = await ok('start_test_job', jobArgs);
    let done: Record<string, any>;
    for (;;) {
      done = (await ok('get_job', { job_id: job.job_id })).job;
      if (done.state !== 'queued' && done.state !== 'running') break;
      await new Promise((r) => setTimeout(r, 100)); // polling, as the contract tells clients to
    }
    assert.equal(done.state, 'finished', JSON.stringify(done.error));
    return (await ok('get_run', { run_id: done.run_ids[0] })).run;
  };
  return { call, ok, runOn };
}

/**
 * The crash report of fixture brk-three-deep, the same on every target: the BRK at `brk_site`
 * (src/brk-crash.s line 25) and the three return addresses leading back inner <- middle <- outer.
 */
export function assertBrkThreeDeepReport(report: any): void {
  assert.equal(report.kind, 'brk');
  assert.equal(report.site.exact, true);
  assert.equal(report.site.opcode_in_program, '$00');
  assert.equal(report.site.resolution.symbols[0].name, 'brk_site');
  assert.deepEqual(
    [
      report.site.resolution.source.file,
      report.site.resolution.source.line,
      report.site.resolution.source.scope,
      report.site.resolution.source.offset,
    ],
    ['src/brk-crash.s', 25, 'brk_site', 0],
  );
  const calls = report.stack.candidate_return_addresses.map((c: any) => c.called_resolution.symbols[0]?.name);
  assert.deepEqual(calls, ['inner', 'middle', 'outer']);
}
