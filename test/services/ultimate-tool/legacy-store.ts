// A store as the service wrote it before the one-database schema (main at 03b9743, before the
// numbered migrations): `<store>/service.sqlite3` with no schema version and the service's tables,
// and the trusted-native flow's own `<store>/native/native.sqlite3` (tables preparations, intents,
// runs). The CREATE statements below are that code's, verbatim (store.ts, checkpoint-pairs.ts and
// jobs/native/native-store.ts of that commit), so the migration is tested against what stores in
// the field hold. The native file is left as a killed process leaves it: rows still in its -wal.
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CHECKPOINT_COMPARISON_SCHEMA_VERSION } from '../../../services/ultimate-tool/analysis/checkpoint-comparison.js';

export const LEGACY_SERVICE_SCHEMA = `
      CREATE TABLE IF NOT EXISTS runs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL UNIQUE,
        job_id TEXT NOT NULL,
        test TEXT NOT NULL,
        target TEXT NOT NULL,
        summary TEXT NOT NULL,
        record TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS runs_by_test ON runs(test, seq);
      CREATE INDEX IF NOT EXISTS runs_by_target ON runs(target, seq);
      CREATE INDEX IF NOT EXISTS runs_by_test_target ON runs(test, target, seq);
      CREATE INDEX IF NOT EXISTS runs_by_status ON runs(json_extract(summary, '$.status'), seq);
      CREATE TRIGGER IF NOT EXISTS runs_immutable_update BEFORE UPDATE ON runs
        BEGIN SELECT RAISE(ABORT, 'run records are immutable'); END;
      CREATE TRIGGER IF NOT EXISTS runs_immutable_delete BEFORE DELETE ON runs
        BEGIN SELECT RAISE(ABORT, 'run records are immutable'); END;
      CREATE TABLE IF NOT EXISTS jobs (
        job_id TEXT PRIMARY KEY,
        created_seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        doc TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS jobs_by_created ON jobs(created_seq);
      CREATE TABLE IF NOT EXISTS probes (
        probe_id TEXT PRIMARY KEY,
        doc TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS capture_preparations (
        preparation_id TEXT PRIMARY KEY,
        doc TEXT NOT NULL
      );
    `;

export const LEGACY_CHECKPOINT_SCHEMA = `
      CREATE TABLE IF NOT EXISTS checkpoint_comparisons (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        comparison_id TEXT NOT NULL UNIQUE,
        job_id TEXT NOT NULL,
        summary TEXT NOT NULL,
        record TEXT NOT NULL
      );
      CREATE TRIGGER IF NOT EXISTS checkpoint_comparisons_immutable_update BEFORE UPDATE ON checkpoint_comparisons
        BEGIN SELECT RAISE(ABORT, 'checkpoint comparison records are immutable'); END;
      CREATE TRIGGER IF NOT EXISTS checkpoint_comparisons_immutable_delete BEFORE DELETE ON checkpoint_comparisons
        BEGIN SELECT RAISE(ABORT, 'checkpoint comparison records are immutable'); END;
    `;

export const LEGACY_NATIVE_SCHEMA = `
      CREATE TABLE IF NOT EXISTS preparations (preparation_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS intents (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        intent_id TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL,
        doc TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS intents_by_state ON intents(state, seq);
      CREATE TABLE IF NOT EXISTS runs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        native_run_id TEXT NOT NULL UNIQUE,
        intent_id TEXT NOT NULL,
        state TEXT NOT NULL,
        doc TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS runs_by_intent ON runs(intent_id, seq);
    `;

/** The ids of what the legacy store holds (the documents are read back from the files by the tests). */
export interface LegacyStore {
  dir: string;
  runId: string;
  jobId: string;
  probeId: string;
  capturePreparationId: string;
  comparisonId: string;
  nativePreparationId: string;
  /** Oldest first. */
  intentIds: string[];
  /** Oldest first: the first finished, the second left `latched` (the process died mid-run). */
  nativeRunIds: string[];
}

const T = '2026-11-30T10:00:00.000Z';
const SHA = 'ab'.repeat(32);

/**
 * Writes a legacy store into `dir` (created): every table of both files has rows. `brokenNativeIntent`
 * writes the native file with the `doc` of intents allowed NULL and one such row — a row the one
 * database refuses, to make the copy fail half-way.
 */
export function writeLegacyStore(dir: string, opts: { brokenNativeIntent?: boolean } = {}): LegacyStore {
  mkdirSync(join(dir, 'runs'), { recursive: true });
  const s: LegacyStore = {
    dir,
    runId: randomUUID(),
    jobId: randomUUID(),
    probeId: randomUUID(),
    capturePreparationId: randomUUID(),
    comparisonId: randomUUID(),
    nativePreparationId: randomUUID(),
    intentIds: [randomUUID(), randomUUID()],
    nativeRunIds: [randomUUID(), randomUUID()],
  };

  const svc = new Database(join(dir, 'service.sqlite3'));
  svc.pragma('journal_mode = WAL');
  svc.exec(LEGACY_SERVICE_SCHEMA);
  svc.exec(LEGACY_CHECKPOINT_SCHEMA);
  const summary = {
    run_id: s.runId,
    job_id: s.jobId,
    test: 'border-cycle',
    target: 'vice',
    status: 'passed',
    emulation: 'x64sc',
    artifact_sha256: SHA,
    started_at: T,
    finished_at: T,
  };
  const record = { ...summary, run_schema_version: 9, candidate: { artifact_sha256: SHA }, evidence: [], verdict: { status: 'passed' } };
  svc
    .prepare('INSERT INTO runs (run_id, job_id, test, target, summary, record) VALUES (?, ?, ?, ?, ?, ?)')
    .run(s.runId, s.jobId, 'border-cycle', 'vice', JSON.stringify(summary), JSON.stringify(record));
  const job = {
    job_id: s.jobId,
    state: 'finished',
    test: 'border-cycle',
    targets: ['vice'],
    repeat: 1,
    strict_gate: false,
    baseline_run_id: null,
    created_at: T,
    started_at: T,
    finished_at: T,
    progress: { completed_runs: 1, total_runs: 1, phase: 'finished' },
    run_ids: [s.runId],
    error: null,
  };
  svc.prepare("INSERT INTO jobs (job_id, created_seq, state, doc) VALUES (?, 1, 'finished', ?)").run(s.jobId, JSON.stringify(job));
  const probe = {
    probe_id: s.probeId,
    created_at_ms: 1,
    expires_at_ms: 2,
    strict_gate: false,
    consumed_at_ms: null,
    consumed_by_job: null,
    snapshot: { hostname: 'u64' },
  };
  svc.prepare('INSERT INTO probes (probe_id, doc) VALUES (?, ?)').run(s.probeId, JSON.stringify(probe));
  svc
    .prepare('INSERT INTO capture_preparations (preparation_id, doc) VALUES (?, ?)')
    .run(s.capturePreparationId, JSON.stringify({ preparation_id: s.capturePreparationId, state: 'cancelled' }));
  const pair = {
    checkpoint_comparison_record_schema_version: 1,
    comparison_id: s.comparisonId,
    job_id: s.jobId,
    test: 'border-cycle',
    created_at: T,
    baseline: { run_id: s.runId, target: 'vice' },
    candidate: { run_id: randomUUID(), target: 'ultimate' },
    result: 'matched',
    first_divergence: null,
  };
  svc.prepare('INSERT INTO checkpoint_comparisons (comparison_id, job_id, summary, record) VALUES (?, ?, ?, ?)').run(
    s.comparisonId,
    s.jobId,
    JSON.stringify(pair),
    JSON.stringify({
      ...pair,
      comparison: { checkpoint_comparison_schema_version: CHECKPOINT_COMPARISON_SCHEMA_VERSION, result: 'matched' },
    }),
  );
  svc.close();

  // The native file is written in a scratch folder with automatic checkpoints off, and copied into
  // the store with its -wal while the writer still has it open: the rows are in the WAL only.
  const scratch = mkdtempSync(join(tmpdir(), 'legacy-native-'));
  try {
    const file = join(scratch, 'native.sqlite3');
    const nat = new Database(file);
    nat.pragma('journal_mode = WAL');
    nat.pragma('synchronous = FULL');
    nat.pragma('wal_autocheckpoint = 0');
    nat.exec(
      opts.brokenNativeIntent
        ? LEGACY_NATIVE_SCHEMA.replace('state TEXT NOT NULL,\n        doc TEXT NOT NULL', 'state TEXT NOT NULL,\n        doc TEXT')
        : LEGACY_NATIVE_SCHEMA,
    );
    const prep = {
      preparation_id: s.nativePreparationId,
      program: 'utr2-echo',
      ue2_sha256: SHA,
      ue2_size: 4096,
      entry: '0x10000',
      records: 2,
      elf_sha256: null,
      created_at: T,
      build: { toolchain: 'riscv64-unknown-elf-gcc', flags: ['-O2'], duration_ms: 250, source: 'sources' },
    };
    nat.prepare('INSERT INTO preparations (preparation_id, doc) VALUES (?, ?)').run(s.nativePreparationId, JSON.stringify(prep));
    const identity = {
      device_host: '127.0.0.1',
      product: 'Ultimate 64 Elite II',
      unique_id: null,
      hostname: 'u64',
      firmware: '3.15',
      fpga: '122',
      core: null,
      api_version: '0.1',
      virtual: true,
    };
    const intent = (intent_id: string, state: string, last: string) => ({
      intent_id,
      preparation_id: s.nativePreparationId,
      program: 'utr2-echo',
      ue2_sha256: SHA,
      mode: 'standing',
      state,
      state_reason: null,
      health_gate: 'none',
      identity,
      probe_id: s.probeId,
      created_at: T,
      updated_at: T,
      expires_at: null,
      max_runs: null,
      runs_started: 1,
      last_run_id: last,
    });
    const insertIntent = nat.prepare('INSERT INTO intents (intent_id, state, doc) VALUES (?, ?, ?)');
    insertIntent.run(s.intentIds[0], 'active', JSON.stringify(intent(s.intentIds[0]!, 'active', s.nativeRunIds[0]!)));
    insertIntent.run(s.intentIds[1], 'suspended', JSON.stringify(intent(s.intentIds[1]!, 'suspended', s.nativeRunIds[1]!)));
    const run = (native_run_id: string, intent_id: string, state: string, finished: boolean) => ({
      native_run_id,
      intent_id,
      job_id: randomUUID(),
      program: 'utr2-echo',
      ue2_sha256: SHA,
      utr2_token: 'T0001',
      device_file: `/Temp/${native_run_id}.ue2`,
      state,
      steps: [{ step: 'latched', at: T }],
      started_at: T,
      finished_at: finished ? T : null,
      outcome: finished ? { verdict: 'completed' } : null,
      evidence: [],
    });
    const insertRun = nat.prepare('INSERT INTO runs (native_run_id, intent_id, state, doc) VALUES (?, ?, ?, ?)');
    insertRun.run(
      s.nativeRunIds[0],
      s.intentIds[0],
      'completed',
      JSON.stringify(run(s.nativeRunIds[0]!, s.intentIds[0]!, 'completed', true)),
    );
    insertRun.run(s.nativeRunIds[1], s.intentIds[1], 'latched', JSON.stringify(run(s.nativeRunIds[1]!, s.intentIds[1]!, 'latched', false)));
    if (opts.brokenNativeIntent) insertIntent.run(randomUUID(), 'active', null);
    mkdirSync(join(dir, 'native', 'ue2'), { recursive: true });
    mkdirSync(join(dir, 'native', 'runs'), { recursive: true });
    if (!existsSync(`${file}-wal`)) throw new Error('fixture: expected the native rows in a -wal file');
    copyFileSync(file, join(dir, 'native', 'native.sqlite3'));
    copyFileSync(`${file}-wal`, join(dir, 'native', 'native.sqlite3-wal'));
    nat.close();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return s;
}

/** Every row of the named tables, ordered by their key, as plain objects. */
export function dumpTables(file: string, tables: string[]): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()]));
  } finally {
    db.close();
  }
}
