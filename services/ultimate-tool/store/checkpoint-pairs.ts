// Stored checkpoint pair records (checkpoint_comparison_record_schema_version 1): what a
// `compare_checkpoints` job leaves — its VICE run, its Ultimate run and their full checkpoint
// comparison, written once. The provisional comparison (GET /v13/comparisons/checkpoints) stores
// nothing; only a job writes here. Records are immutable (triggers refuse UPDATE and DELETE), and
// a record is checked against its schema whenever it is read, so a corrupt one is reported as
// `checkpoint_comparison_failed` instead of being served.
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { CHECKPOINT_COMPARISON_SCHEMA_VERSION } from '../analysis/checkpoint-comparison.js';

export const CHECKPOINT_COMPARISON_RECORD_SCHEMA_VERSION = 1;
export const CHECKPOINT_COMPARISON_LIST_LIMIT = { min: 1, max: 200, default: 50 } as const;

const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'expected a lower-case UUID v4');
export const CheckpointResultSchema = z.enum(['matched', 'diverged', 'incompatible', 'unavailable']);

/** One stored pair as listed (newest first): everything but the full comparison. */
export const CheckpointPairSummarySchema = z.strictObject({
  checkpoint_comparison_record_schema_version: z.literal(CHECKPOINT_COMPARISON_RECORD_SCHEMA_VERSION),
  comparison_id: Uuid,
  job_id: z.string().min(1),
  test: z.string().min(1),
  created_at: z.string().describe('ISO 8601 UTC'),
  baseline: z.strictObject({ run_id: Uuid, target: z.literal('vice') }),
  candidate: z.strictObject({ run_id: Uuid, target: z.literal('ultimate') }),
  result: CheckpointResultSchema,
  first_divergence: z.string().nullable(),
});
export type CheckpointPairSummary = z.infer<typeof CheckpointPairSummarySchema>;

/** The full stored record: the summary plus the comparison as computed when the job ended. */
export const CheckpointPairRecordSchema = CheckpointPairSummarySchema.extend({
  comparison: z.looseObject({
    checkpoint_comparison_schema_version: z.literal(CHECKPOINT_COMPARISON_SCHEMA_VERSION),
    result: CheckpointResultSchema,
  }),
}).superRefine((r, ctx) => {
  if (r.comparison.result !== r.result)
    ctx.addIssue({ code: 'custom', path: ['result'], message: `result ${r.result} differs from the comparison's ${r.comparison.result}` });
});
export type CheckpointPairRecord = z.infer<typeof CheckpointPairRecordSchema>;

export type CheckpointPairRead = { found: true; record: CheckpointPairRecord } | { found: false } | { found: true; corrupt: string };

export class CheckpointPairTable {
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement;
  readonly #list: Database.Statement;

  constructor(db: Database.Database) {
    // The table and its triggers are part of the store's schema (store/migrations.ts, version 1).
    this.#insert = db.prepare('INSERT INTO checkpoint_comparisons (comparison_id, job_id, summary, record) VALUES (?, ?, ?, ?)');
    this.#get = db.prepare('SELECT record FROM checkpoint_comparisons WHERE comparison_id = ?');
    this.#list = db.prepare('SELECT comparison_id, summary FROM checkpoint_comparisons ORDER BY seq DESC LIMIT ?');
  }

  /** Commits a pair record once (the record is validated first: nothing malformed is stored). */
  insert(record: CheckpointPairRecord): void {
    const checked = CheckpointPairRecordSchema.parse(record);
    const { comparison: _full, ...summary } = checked;
    this.#insert.run(checked.comparison_id, checked.job_id, JSON.stringify(summary), JSON.stringify(checked));
  }

  get(comparisonId: string): CheckpointPairRead {
    const row = this.#get.get(comparisonId) as { record: string } | undefined;
    if (!row) return { found: false };
    let json: unknown;
    try {
      json = JSON.parse(row.record);
    } catch {
      return { found: true, corrupt: 'the stored record is not JSON' };
    }
    const parsed = CheckpointPairRecordSchema.safeParse(json);
    if (!parsed.success)
      return {
        found: true,
        corrupt: `the stored record does not have the pair record shape: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      };
    if (parsed.data.comparison_id !== comparisonId) return { found: true, corrupt: `the stored record names ${parsed.data.comparison_id}` };
    return { found: true, record: parsed.data };
  }

  /** Newest first; a summary that no longer parses is listed as corrupt rather than hidden. */
  list(limit: number): Array<CheckpointPairSummary | { comparison_id: string; corrupt: true }> {
    const rows = this.#list.all(limit) as Array<{ comparison_id: string; summary: string }>;
    return rows.map((r) => {
      try {
        const parsed = CheckpointPairSummarySchema.safeParse(JSON.parse(r.summary));
        if (parsed.success) return parsed.data;
      } catch {
        /* reported below */
      }
      return { comparison_id: r.comparison_id, corrupt: true as const };
    });
  }
}
