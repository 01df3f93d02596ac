// Memory-checkpoint comparison (checkpoint_comparison_schema_version 1): the provisional, read-only
// comparison of two runs' captured checkpoints. `matched`, `diverged`, `incompatible` and
// `unavailable` are all successful results; it stores nothing. The rules are written down in
// docs/ultimate/CHECKPOINT_COMPARISON.md.
//
// Checkpoint evidence (`checkpoints.json`, registered in the run): the named points the run
// paused at, in order, each with its named memory ranges as read while the machine was paused.
import { z } from 'zod';
import { EvidenceIntegrityError, type EvidenceBytesReader, type RegisteredFile, readVerified } from './registered-evidence.js';
import { addressHex } from '../api/address.js';

export const CHECKPOINT_COMPARISON_SCHEMA_VERSION = 1;
export const CHECKPOINT_CAPTURE_SCHEMA_VERSION = 1;
export const CHECKPOINT_EVIDENCE_NAME = 'checkpoints.json';

const Hex = z.string().regex(/^([0-9a-f]{2})*$/, 'lowercase hex bytes');
export const CheckpointCaptureSchema = z.strictObject({
  checkpoint_capture_schema_version: z.literal(CHECKPOINT_CAPTURE_SCHEMA_VERSION),
  points: z.array(
    z.strictObject({
      name: z.string().min(1),
      marker: z.number().int().min(1).max(0x7f),
      ranges: z.array(
        z.strictObject({
          name: z.string().min(1),
          address: z.number().int().min(0).max(0xffff),
          length: z.number().int().min(1).max(0x10000),
          bytes_hex: Hex,
        }),
      ),
    }),
  ),
});
export type CheckpointCapture = z.infer<typeof CheckpointCaptureSchema>;

export class CheckpointComparisonError extends Error {
  override readonly name = 'CheckpointComparisonError';
  readonly code = 'checkpoint_comparison_failed';
  constructor(
    readonly reason: 'evidence-integrity' | 'malformed-checkpoints',
    message: string,
  ) {
    super(message);
  }
}

export interface CheckpointRun {
  run_id: string;
  test: string;
  target: string;
  candidate: { artifact_sha256: string | null };
  evidence: readonly RegisteredFile[];
}

async function loadCapture(run: CheckpointRun, read: EvidenceBytesReader): Promise<CheckpointCapture | null> {
  if (!run.evidence.some((e) => e.name === CHECKPOINT_EVIDENCE_NAME)) return null;
  let bytes: Buffer;
  try {
    bytes = await readVerified(run.evidence, read, CHECKPOINT_EVIDENCE_NAME);
  } catch (err) {
    if (err instanceof EvidenceIntegrityError)
      throw new CheckpointComparisonError('evidence-integrity', `run ${run.run_id}: ${err.message}`);
    throw err;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new CheckpointComparisonError('malformed-checkpoints', `run ${run.run_id}: ${CHECKPOINT_EVIDENCE_NAME} is not valid JSON`);
  }
  const parsed = CheckpointCaptureSchema.safeParse(raw);
  if (!parsed.success)
    throw new CheckpointComparisonError(
      'malformed-checkpoints',
      `run ${run.run_id}: ${CHECKPOINT_EVIDENCE_NAME} does not have the checkpoint capture shape: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  for (const p of parsed.data.points)
    for (const r of p.ranges)
      if (r.bytes_hex.length !== r.length * 2)
        throw new CheckpointComparisonError(
          'malformed-checkpoints',
          `run ${run.run_id}: range ${p.name}/${r.name} holds ${r.bytes_hex.length / 2} bytes, declares ${r.length}`,
        );
  return parsed.data;
}

/** The plan of a capture: which points, in which order, with which ranges. */
function planOf(c: CheckpointCapture): string {
  return JSON.stringify(c.points.map((p) => [p.name, p.marker, p.ranges.map((r) => [r.name, r.address, r.length])]));
}

export async function compareRunCheckpoints(
  baseline: CheckpointRun,
  candidate: CheckpointRun,
  readBaseline: EvidenceBytesReader,
  readCandidate: EvidenceBytesReader,
): Promise<Record<string, unknown>> {
  const head = {
    checkpoint_comparison_schema_version: CHECKPOINT_COMPARISON_SCHEMA_VERSION,
    provisional: true,
    baseline: { run_id: baseline.run_id, target: baseline.target, test: baseline.test },
    candidate: { run_id: candidate.run_id, target: candidate.target, test: candidate.test },
  };
  const [b, c] = await Promise.all([loadCapture(baseline, readBaseline), loadCapture(candidate, readCandidate)]);
  if (!b || !c) {
    const missing = [!b ? 'baseline' : null, !c ? 'candidate' : null].filter(Boolean).join(' and ');
    return { ...head, result: 'unavailable', reason: `the ${missing} run captured no memory checkpoints` };
  }
  if (baseline.test !== candidate.test)
    return { ...head, result: 'incompatible', reason: `different tests: ${baseline.test} vs ${candidate.test}` };
  if (baseline.candidate.artifact_sha256 !== candidate.candidate.artifact_sha256)
    return { ...head, result: 'incompatible', reason: 'the runs executed different program builds (artifact SHA-256 differs)' };
  if (planOf(b) !== planOf(c))
    return { ...head, result: 'incompatible', reason: 'the runs captured different checkpoint plans (points, markers or ranges differ)' };

  const points: Array<Record<string, unknown>> = [];
  let divergedPoints = 0;
  b.points.forEach((bp, i) => {
    const cp = c.points[i];
    if (!cp) return;
    const ranges = bp.ranges.map((br, j) => {
      const cr = cp.ranges[j];
      const x = Buffer.from(br.bytes_hex, 'hex');
      const y = Buffer.from(cr?.bytes_hex ?? '', 'hex');
      // Coalesce differing bytes into exact inclusive address runs.
      const runs: Array<{ from: number; to: number; from_hex: string; to_hex: string; baseline_hex: string; candidate_hex: string }> = [];
      let start = -1;
      for (let k = 0; k <= x.length; k++) {
        const differs = k < x.length && x[k] !== y[k];
        if (differs && start < 0) start = k;
        if (!differs && start >= 0) {
          const from = br.address + start;
          const to = br.address + k - 1;
          runs.push({
            from,
            to,
            from_hex: addressHex(from),
            to_hex: addressHex(to),
            baseline_hex: x.subarray(start, k).toString('hex'),
            candidate_hex: y.subarray(start, k).toString('hex'),
          });
          start = -1;
        }
      }
      return {
        name: br.name,
        address_hex: addressHex(br.address),
        length: br.length,
        matched: runs.length === 0,
        differing_bytes: runs.reduce((n, r) => n + r.to - r.from + 1, 0),
        differences: runs,
      };
    });
    const matched = ranges.every((r) => r.matched);
    if (!matched) divergedPoints++;
    points.push({ name: bp.name, marker: bp.marker, matched, ranges });
  });
  // Nothing compared is no evidence of a match (CHECKPOINT_COMPARISON.md): unavailable, not matched.
  if (points.length === 0)
    return {
      ...head,
      result: 'unavailable',
      reason: `no point was captured by both runs (baseline ${b.points.length}, candidate ${c.points.length}), so nothing was compared`,
      points_compared: 0,
    };
  return {
    ...head,
    result: divergedPoints === 0 ? 'matched' : 'diverged',
    points_compared: points.length,
    points_diverged: divergedPoints,
    first_divergence: points.find((p) => !p.matched)?.name ?? null,
    points,
  };
}
