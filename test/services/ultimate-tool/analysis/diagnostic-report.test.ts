// The diagnostic report and its items, from a run record shaped as the service stores it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  buildDiagnosticReport,
  type DiagnosableRun,
  DiagnosticReportError,
  diagnosticItems,
} from '../../../../services/ultimate-tool/analysis/diagnostic-report.js';

const files = new Map<string, Buffer>([
  ['screen.txt', Buffer.from('READY.\n')],
  ['pass.prg', Buffer.from([1, 8, 0x60])],
]);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function run(overrides: Partial<DiagnosableRun> = {}): DiagnosableRun {
  return {
    run_id: '0b8f7c1e-5d44-4c2a-9a3e-7e6f5d4c3b2a',
    test: 'sum-passes',
    target: 'ultimate',
    status: 'failed',
    status_reason: 'memory at $C000 is 36, expected 37',
    emulation: true,
    candidate: { artifact_sha256: sha(files.get('pass.prg') ?? Buffer.alloc(0)), artifact_name: 'pass.prg' },
    timings: { execute_ms: 120 },
    expectations: { debug_register: 128, memory: [{ address: 0xc000, bytes: '37' }], budget: { time_ms: 5000, cycles: 100000 } },
    observations: {
      debug_register: 128,
      memory: [{ address_hex: '$C000', expected: '37', actual: '36', matched: false }],
    },
    screen_match: null,
    supporting_artifacts: [],
    evidence: [...files].map(([name, b]) => ({ name, size: b.length, sha256: sha(b) })),
    comparison: {
      result: 'compared',
      baseline_run_id: 'x',
      sections: [{ name: 'CODE', delta: 3 }],
      objects: [],
      symbols: Array.from({ length: 120 }, (_, i) => ({ name: `s${i}`, delta: i })),
    },
    ...overrides,
  };
}

const read = async (name: string) => {
  const b = files.get(name);
  if (!b) throw new Error('ENOENT');
  return b;
};

test('the report: finalized, expected vs observed, integrity, summaries and per-section counts', async () => {
  const r = await buildDiagnosticReport(run(), read);
  assert.equal(r.diagnostic_report_schema_version, 1);
  assert.equal(r.status, 'finalized');
  assert.deepEqual(
    (r.results as Array<{ assertion: string; passed: boolean }>).map((a) => [a.assertion, a.passed]),
    [
      ['debug_register', true],
      ['memory', false],
      ['status', false],
    ],
  );
  assert.equal((r.evidence_integrity as { verified: boolean }).verified, true);
  assert.deepEqual(r.budget, { rows: 2, all_within: true });
  assert.deepEqual(r.comparison, { result: 'compared', baseline_run_id: 'x' });
  assert.equal(r.checkpoints, null);
  assert.deepEqual(r.section_row_counts, {
    checkpoints: 0,
    budget: 2,
    comparison_sections: 1,
    comparison_objects: 0,
    comparison_symbols: 120,
    assertions: 3,
  });
});

test('a run with checkpoints is provisional; one without a comparison has comparison null', async () => {
  const r = await buildDiagnosticReport(run({ observations: { checkpoints: [{ name: 'after-sum' }] }, comparison: null }), read);
  assert.equal(r.status, 'provisional');
  assert.equal(r.comparison, null);
  assert.deepEqual(r.checkpoints, { count: 1 });
});

test('items page a section with an opaque cursor until the end', async () => {
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await diagnosticItems(run(), read, 'comparison_symbols', { limit: 50, ...(cursor ? { cursor } : {}) });
    seen.push(...(page.items as Array<{ name: string }>).map((i) => i.name));
    cursor = (page.next_cursor as string | null) ?? undefined;
    pages++;
  } while (cursor);
  assert.equal(pages, 3);
  assert.equal(seen.length, 120);
  assert.equal(new Set(seen).size, 120);
  const first = await diagnosticItems(run(), read, 'comparison_symbols', { limit: 1 });
  await assert.rejects(
    diagnosticItems(run(), read, 'assertions', { cursor: String(first.next_cursor) }),
    (e: unknown) => e instanceof DiagnosticReportError && e.reason === 'invalid-cursor',
  );
});

test('bad sections, limits, cursors and altered evidence are diagnostic_report_failed', async () => {
  await assert.rejects(
    diagnosticItems(run(), read, 'everything'),
    (e: unknown) => e instanceof DiagnosticReportError && e.code === 'diagnostic_report_failed' && /not one of checkpoints/.test(e.message),
  );
  await assert.rejects(diagnosticItems(run(), read, 'budget', { limit: 101 }), /outside 1\.\.100/);
  await assert.rejects(diagnosticItems(run(), read, 'budget', { cursor: 'bm90IGEgY3Vyc29y' }), /was not issued for section budget/);
  const altered = async (name: string) => (name === 'screen.txt' ? Buffer.from('HACKED\n') : read(name));
  await assert.rejects(
    buildDiagnosticReport(run(), altered),
    (e: unknown) => e instanceof DiagnosticReportError && e.reason === 'evidence-integrity' && /screen\.txt/.test(e.message),
  );
});
