// The exported zod schemas describe exactly what resolveAddress and compareRuns return: checked by
// the compiler (the types agree) and at run time on results from real builds (strict objects).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import {
  type ComparableRun,
  type ResolverResult,
  ResolverResultSchema,
  type RunComparison,
  RunComparisonSchema,
  compareRuns,
  parseSymbolFile,
  resolveAddress,
} from '../../../../services/ultimate-tool/symbols/index.js';
import { build64tass, buildCa65 } from './helpers/assemble.js';
import { CA65_OTHER, TASS_SOURCE, ca65Main } from './sources.js';

// Compile-time: each schema's output is assignable to the function's result type and back.
const _resolverType: z.ZodType<ResolverResult> = ResolverResultSchema;
const _comparisonType: z.ZodType<RunComparison> = RunComparisonSchema;
const _resolverBack = (r: ResolverResult): z.input<typeof ResolverResultSchema> => ({ ...r, symbols: [...r.symbols] });
void [_resolverType, _comparisonType, _resolverBack];

test('resolver results of every kind parse strictly', { timeout: 60_000 }, () => {
  const built = buildCa65({ main: ca65Main(), other: CA65_OTHER });
  const tables = [
    parseSymbolFile('ld65-labels', built.files.labels!, 'main.lbl'),
    parseSymbolFile('ld65-map', built.files.map!, 'main.map'),
  ];
  const tass = [parseSymbolFile('64tass-vice-labels', build64tass(TASS_SOURCE).files.labels!)];
  const scope = tass[0]!.symbols.find((s) => s.name === 'scope')!.address;
  const results = [
    resolveAddress(tables, '$0801'),
    resolveAddress(tables, 0x07ff),
    resolveAddress(tables, '$0801', 'nope'),
    resolveAddress([], 0),
    resolveAddress(tass, scope),
  ];
  assert.deepEqual(
    results.map((r) => r.result),
    ['resolved', 'unmapped', 'unavailable', 'unavailable', 'ambiguous'],
  );
  for (const r of results) assert.deepEqual(ResolverResultSchema.parse(r), r);
});

test('comparisons of every kind parse strictly', { timeout: 60_000 }, async () => {
  const a = buildCa65({ main: ca65Main(0), other: CA65_OTHER }).files;
  const b = buildCa65({ main: ca65Main(2), other: CA65_OTHER }).files;
  type R = ComparableRun & { files: Record<string, string> };
  const run = (id: string, files: Record<string, string>, test = 'passes'): R => ({
    run_id: id,
    test,
    target: 'vice',
    status: 'passed',
    timings: { total_ms: 10 },
    supporting_artifacts: files.map
      ? [
          { role: 'labels', format: 'ld65-labels', name: 'main.lbl' },
          { role: 'map', format: 'ld65-map', name: 'main.map' },
        ]
      : [],
    files: { 'main.lbl': files.labels ?? '', 'main.map': files.map ?? '' },
  });
  const read = async (r: R, name: string) => r.files[name]!;
  const results = [
    await compareRuns(run('a', a), run('b', b), read),
    await compareRuns(run('a', a), run('b', b, 'other'), read),
    await compareRuns(run('a', a), run('b', {}), read),
  ];
  assert.deepEqual(
    results.map((r) => r.result),
    ['compared', 'incompatible', 'unavailable'],
  );
  for (const r of results) assert.deepEqual(RunComparisonSchema.parse(r), r);
});

// A service's run record type is an interface without an index signature; it must be comparable.
interface ServiceTimings {
  build_ms: number;
  run_ms: number;
}
interface ServiceRunRecord {
  run_id: string;
  test: string;
  target: 'vice' | 'ultimate';
  status: 'passed' | 'failed';
  candidate: { artifact_sha256: string; artifact_name: string; build: { argv: string[] } };
  timings: ServiceTimings;
  expectations: { cycle_budget: number | null };
  supporting_artifacts: { role: 'labels' | 'map'; format: string; name: string; size: number; sha256: string }[];
}
const _serviceRecordFits = (r: ServiceRunRecord): ComparableRun => r;
void _serviceRecordFits;
