// How /resolve, /comparisons/runs and baseline_run_id call the injected SymbolAnalysis: with the
// run's OWN snapshotted label files (format and text), the parsed address, and for a job with a
// baseline one comparison stored identically in every run. The analysis here is the real one,
// wrapped to record its calls.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SymbolAnalysis } from '../../../services/ultimate-tool/index.js';
import { labelMapAnalysis } from '../../../services/ultimate-tool/symbols/label-map-analysis.js';
import { type Harness, startHarness } from './harness.js';

const calls: Array<{ fn: string; args: unknown[] }> = [];
/** The real label/map analysis, recording how the service calls it. */
const recording: SymbolAnalysis = {
  parseSymbolFile(format, text) {
    calls.push({ fn: 'parseSymbolFile', args: [format, text] });
    return labelMapAnalysis.parseSymbolFile(format, text);
  },
  resolveAddress(tables, address, context) {
    calls.push({ fn: 'resolveAddress', args: [tables, address, context] });
    return labelMapAnalysis.resolveAddress(tables, address, context);
  },
  async compareRuns(baseline, candidate, readArtifact, context) {
    const labels = candidate.supporting_artifacts.find((a) => a.role === 'labels')!;
    const text = await readArtifact(candidate, labels.name);
    calls.push({ fn: 'compareRuns', args: [baseline.run_id, candidate.run_id, text.length, context] });
    return labelMapAnalysis.compareRuns(baseline, candidate, readArtifact, context);
  },
};

let h: Harness;
before(async () => {
  h = await startHarness({ service: { symbolAnalysis: recording } });
});
after(async () => {
  await h.close();
});

describe('the SymbolAnalysis seam', { timeout: 120_000 }, () => {
  it('resolve parses the run’s own labels and passes the address and context', async () => {
    const r = await h.post('/v13/jobs', { test: 'brk-crash', targets: ['vice'] });
    const job = await h.waitJob(r.body.job.job_id);
    const runId = job.run_ids[0];
    calls.length = 0;
    const res = await h.get(`/v13/runs/${runId}/resolve?address=0x080D&context=harness`);
    assert.equal(res.status, 200);
    assert.equal(res.body.api_schema_version, 13);
    assert.equal(res.body.resolver_schema_version, 2);
    // No symbol of this acme-built run lives in a context named "harness": a successful 'unavailable'.
    assert.equal(res.body.result, 'unavailable', JSON.stringify(res.body));
    const parse = calls.find((c) => c.fn === 'parseSymbolFile')!;
    assert.equal(parse.args[0], 'acme-vicelabels');
    assert.match(parse.args[1] as string, /\.broken/);
    const resolve = calls.find((c) => c.fn === 'resolveAddress')!;
    assert.equal(resolve.args[1], 0x080d);
    assert.equal(resolve.args[2], 'harness');
    const plain = await h.get(`/v13/runs/${runId}/resolve?address=$080D`);
    assert.equal(plain.body.result, 'resolved', JSON.stringify(plain.body));
    assert.match(JSON.stringify(plain.body.symbols), /harness_start/);
  });

  it('baseline_run_id: one comparison per job, the same object stored in every run', async () => {
    const base = await h.waitJob((await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'] })).body.job.job_id);
    calls.length = 0;
    const cand = await h.waitJob(
      (await h.post('/v13/jobs', { test: 'sum-passes', targets: ['vice'], repeat: 2, baseline_run_id: base.run_ids[0] })).body.job.job_id,
    );
    assert.equal(cand.state, 'finished');
    assert.equal(calls.filter((c) => c.fn === 'compareRuns').length, 1);
    const runs = await Promise.all(cand.run_ids.map(async (id: string) => (await h.get(`/v13/runs/${id}`)).body.run));
    assert.equal(runs.length, 2);
    assert.equal(runs[0].comparison.result, 'compared');
    assert.deepEqual(runs[0].comparison, runs[1].comparison);
    const direct = await h.get(`/v13/comparisons/runs?baseline=${base.run_ids[0]}&candidate=${cand.run_ids[1]}&context=x`);
    assert.equal(direct.status, 200);
    assert.equal(direct.body.comparison_schema_version, 1);
    assert.equal(calls.at(-1)!.args[3], 'x');
  });
});
