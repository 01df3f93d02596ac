// compareRuns (comparison schema 1) over two real ca65/ld65 builds of one program, the second
// with a bigger helper procedure; and over acme label files alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ComparableRun, compareRuns } from '../../../../services/ultimate-tool/symbols/index.js';
import { buildAcme, buildCa65 } from './helpers/assemble.js';
import { ACME_SOURCE, CA65_OTHER, ca65Main } from './sources.js';

interface TestRun extends ComparableRun {
  readonly files: Record<string, string>;
}

function run(id: string, files: Record<string, string>, overrides: Partial<TestRun> = {}): TestRun {
  const artifacts = [];
  if (files.labels !== undefined) artifacts.push({ role: 'labels', format: 'ld65-labels', name: 'main.lbl', size: 1, sha256: 'x' });
  if (files.map !== undefined) artifacts.push({ role: 'map', format: 'ld65-map', name: 'main.map', size: 1, sha256: 'x' });
  return {
    run_id: id,
    test: 'passes',
    target: 'vice',
    status: 'passed',
    candidate: { artifact_sha256: `${id}-sha`, artifact_name: 'main.prg' },
    timings: { total_ms: 100, cycles: 5000, label: 'x' },
    expectations: { cycle_budget: 10000, d7ff: 0 },
    supporting_artifacts: artifacts,
    files: { 'main.lbl': files.labels ?? '', 'main.map': files.map ?? '' },
    ...overrides,
  };
}

const read = async (r: TestRun, name: string) => {
  const text = r.files[name];
  if (text === undefined) throw new Error(`no artifact ${name}`);
  return text;
};

test('two ld65 builds: sections, objects and symbols that grew', { timeout: 60_000 }, async () => {
  const base = run('base', buildCa65({ main: ca65Main(0), other: CA65_OTHER }).files);
  const cand = run('cand', buildCa65({ main: ca65Main(3), other: CA65_OTHER }).files, {
    status: 'failed',
    timings: { total_ms: 130, cycles: 5600 },
  });
  const c = await compareRuns(base, cand, read);
  assert.equal(c.comparison_schema_version, 1);
  assert.equal(c.result, 'compared');
  assert.equal(c.reason, null);
  assert.deepEqual(c.outcome, { baseline: 'passed', candidate: 'failed', changed: true });
  assert.deepEqual(c.artifact, { baseline_sha256: 'base-sha', candidate_sha256: 'cand-sha', identical: false });
  assert.deepEqual(c.timing, [
    { field: 'cycles', baseline: 5000, candidate: 5600, delta: 600 },
    { field: 'total_ms', baseline: 100, candidate: 130, delta: 30 },
  ]);
  assert.deepEqual(c.budget, [{ field: 'cycle_budget', baseline: 10000, candidate: 10000, delta: 0 }]);
  assert.equal(c.sizes_from, 'ld65-map');
  const sections = new Map(c.sections!.map((s) => [s.name, s]));
  assert.equal(sections.get('STARTUP')!.delta, 3, 'three NOPs more');
  assert.equal(sections.get('CODE')!.delta, 0);
  const objects = new Map(c.objects!.map((o) => [o.name, o]));
  assert.equal(objects.get('main.o')!.delta, 3);
  assert.equal(objects.get('other.o')!.delta, 0);
  const symbols = new Map(c.symbols!.map((s) => [s.name, s]));
  assert.equal(symbols.get('helper')!.delta, 3, 'helper grew by three bytes');
  assert.equal(symbols.get('other')!.delta, 0, 'other moved but kept its size');
  assert.equal(symbols.get('other')!.candidate_address! - symbols.get('other')!.baseline_address!, 3);
  assert.ok(!symbols.has('start'), 'unchanged symbols are only counted');
  assert.ok(c.unchanged_symbols! >= 2);
});

test('a context narrows the comparison to one segment', { timeout: 60_000 }, async () => {
  const base = run('base', buildCa65({ main: ca65Main(0), other: CA65_OTHER }).files);
  const cand = run('cand', buildCa65({ main: ca65Main(1), other: CA65_OTHER }).files);
  const c = await compareRuns(base, cand, read, 'CODE');
  assert.equal(c.result, 'compared');
  assert.equal(c.context, 'CODE');
  assert.deepEqual(
    c.sections!.map((s) => s.name),
    ['CODE'],
  );
  assert.deepEqual(
    c.objects!.map((o) => o.name),
    ['other.o'],
  );
  assert.ok(c.symbols!.every((s) => s.name === 'other'));
  const unknown = await compareRuns(base, cand, read, 'NOPE');
  assert.equal(unknown.result, 'unavailable');
  assert.match(unknown.reason!, /NOPE/);
});

test('incompatible and unavailable are results, not errors', { timeout: 60_000 }, async () => {
  const files = buildCa65({ main: ca65Main(0), other: CA65_OTHER }).files;
  const other = await compareRuns(run('a', files), run('b', files, { test: 'crashes', target: 'ultimate' }), read);
  assert.equal(other.result, 'incompatible');
  assert.match(other.reason!, /^tests differ \(passes vs crashes\): only runs of one test compare/);
  assert.equal(other.sections, null);
  // One test on two targets compares (issue 35.5: compare_runs across targets).
  const crossTarget = await compareRuns(run('a', files), run('b', files, { target: 'ultimate' }), read);
  assert.notEqual(crossTarget.result, 'incompatible', crossTarget.reason ?? '');
  let reads = 0;
  const counting = async (r: TestRun, name: string) => {
    reads++;
    return read(r, name);
  };
  const bare = await compareRuns(run('a', files), run('b', {}), counting);
  assert.equal(bare.result, 'unavailable');
  assert.match(bare.reason!, /the candidate run has no snapshotted label or map file/);
  assert.deepEqual(bare.outcome, { baseline: 'passed', candidate: 'passed', changed: false });
  assert.ok(bare.timing!.length > 0, 'timings still compare');
  assert.equal(reads, 2, 'only registered label/map artifacts are read');
});

test('label files alone (acme): symbol sizes from label distances, no sections', { timeout: 60_000 }, async () => {
  const acme = (src: string, id: string): TestRun => ({
    ...run(id, {}),
    supporting_artifacts: [{ role: 'labels', format: 'acme-vicelabels', name: 'main.labels' }],
    files: { 'main.labels': buildAcme(src).files.labels! },
  });
  const bigger = ACME_SOURCE.replace('loop    inc counter', '        nop\n        nop\nloop    inc counter');
  const c = await compareRuns(acme(ACME_SOURCE, 'a'), acme(bigger, 'b'), read);
  assert.equal(c.result, 'compared');
  assert.equal(c.sizes_from, 'labels');
  assert.equal(c.sections, null);
  assert.equal(c.objects, null);
  const start = c.symbols!.find((s) => s.name === 'start');
  assert.equal(start?.delta, 2);
});
