// The provisional checkpoint comparison: matched, diverged with exact ranges, incompatible,
// unavailable, and refusal of altered or malformed checkpoint evidence.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  CheckpointComparisonError,
  type CheckpointRun,
  compareRunCheckpoints,
} from '../../../../services/ultimate-tool/analysis/checkpoint-comparison.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function capture(identity: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      checkpoint_capture_schema_version: 1,
      points: [
        { name: 'after-init', marker: 1, ranges: [{ name: 'counters', address: 0xc000, length: 4, bytes_hex: '01020304' }] },
        { name: 'after-id', marker: 2, ranges: [{ name: 'identity', address: 0xc100, length: 8, bytes_hex: identity }] },
      ],
    }),
  );
}

function runWith(
  id: string,
  target: string,
  file: Buffer | null,
  overrides: Partial<CheckpointRun> = {},
): { run: CheckpointRun; read: (n: string) => Promise<Buffer> } {
  return {
    run: {
      run_id: id,
      test: 'timeline-probe',
      target,
      candidate: { artifact_sha256: 'a'.repeat(64) },
      evidence: file ? [{ name: 'checkpoints.json', size: file.length, sha256: sha(file) }] : [],
      ...overrides,
    },
    read: async () => file ?? Buffer.alloc(0),
  };
}

test('identical captures match; a planted difference diverges with its exact address range', async () => {
  const vice = runWith('b', 'vice', capture('0000000000000000'));
  const same = runWith('c', 'ultimate', capture('0000000000000000'));
  const matched = await compareRunCheckpoints(vice.run, same.run, vice.read, same.read);
  assert.equal(matched.result, 'matched');
  assert.equal(matched.checkpoint_comparison_schema_version, 1);
  assert.equal(matched.provisional, true);

  const u64 = runWith('d', 'ultimate', capture('0000554436340000'));
  const diverged = await compareRunCheckpoints(vice.run, u64.run, vice.read, u64.read);
  assert.equal(diverged.result, 'diverged');
  assert.equal(diverged.first_divergence, 'after-id');
  const point = (diverged.points as Array<{ name: string; ranges: Array<{ differences: unknown[]; differing_bytes: number }> }>)[1];
  assert.deepEqual(point?.ranges[0]?.differences, [
    { from: 0xc102, to: 0xc105, from_hex: '$C102', to_hex: '$C105', baseline_hex: '00000000', candidate_hex: '55443634' },
  ]);
  assert.equal(point?.ranges[0]?.differing_bytes, 4);
});

test('unavailable and incompatible are results, not errors', async () => {
  const a = runWith('b', 'vice', capture('00'.repeat(8)));
  const none = runWith('c', 'ultimate', null);
  assert.equal((await compareRunCheckpoints(a.run, none.run, a.read, none.read)).result, 'unavailable');
  const otherBuild = runWith('c', 'ultimate', capture('00'.repeat(8)), { candidate: { artifact_sha256: 'b'.repeat(64) } });
  const r = await compareRunCheckpoints(a.run, otherBuild.run, a.read, otherBuild.read);
  assert.equal(r.result, 'incompatible');
  assert.match(String(r.reason), /different program builds/);
  const otherPlan = Buffer.from(JSON.stringify({ checkpoint_capture_schema_version: 1, points: [] }));
  const p = runWith('c', 'ultimate', otherPlan);
  assert.equal((await compareRunCheckpoints(a.run, p.run, a.read, p.read)).result, 'incompatible');
});

test('altered or malformed checkpoint evidence is checkpoint_comparison_failed', async () => {
  const a = runWith('b', 'vice', capture('00'.repeat(8)));
  const altered = runWith('c', 'ultimate', capture('00'.repeat(8)));
  await assert.rejects(
    compareRunCheckpoints(a.run, altered.run, a.read, async () => capture('11'.repeat(8))),
    (e: unknown) =>
      e instanceof CheckpointComparisonError && e.code === 'checkpoint_comparison_failed' && e.reason === 'evidence-integrity',
  );
  const bad = Buffer.from(JSON.stringify({ checkpoint_capture_schema_version: 1, points: [{ name: 'x', marker: 200, ranges: [] }] }));
  const malformed = runWith('c', 'ultimate', bad);
  await assert.rejects(compareRunCheckpoints(a.run, malformed.run, a.read, malformed.read), /points\.0\.marker/);
});
