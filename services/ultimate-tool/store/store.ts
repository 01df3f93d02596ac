// The service's state in one embedded SQLite database (better-sqlite3), `<store>/service.sqlite3`:
// runs, jobs and probes here; the trusted-native flow's tables in the same file through a
// connection of its own (jobs/native/native-store.ts). The schema is the numbered migrations of
// store/migrations.ts, applied when the store is opened (store/open-store-database.ts).
// Why SQLite: a run record must survive `kill -9` at any moment and never be seen half-written;
// SQLite's journal gives that per transaction (WAL), and list_runs pages over
// 10,000+ runs by index instead of reading files. Run records are immutable: a trigger refuses
// UPDATE and DELETE on the runs table, so "written once" is enforced by the store, not by hope.
// Evidence bytes live in files under `<dir>/runs/<run_id>/`, written durably BEFORE the record
// that registers them is committed; files of a run whose record never committed are removed on
// open (they were never registered, so nobody can have read them).
import { lstatSync, mkdirSync, renameSync } from 'node:fs';
import { join, relative } from 'node:path';
import type Database from 'better-sqlite3';
import type { Logger } from '../../../common/index.js';
import type { Job, RunRecord, RunSummary } from '../api/schemas.js';
import { CheckpointPairTable } from './checkpoint-pairs.js';
import { pageBySeq } from './seq-page.js';
import { CREATION_SLACK_MS, LostDatabaseError, databaseFileFinding, evidenceFolderNames, folderMtimeMs } from './lost-database.js';
import { STORE_DB_FILE, type StoreOpenReport, logStoreOpen, openStoreDatabase } from './open-store-database.js';

export interface StoredProbe {
  probe_id: string;
  created_at_ms: number;
  expires_at_ms: number;
  strict_gate: boolean;
  consumed_at_ms: number | null;
  consumed_by_job: string | null;
  /** The identity snapshot the job must find again before its first mutation. */
  snapshot: Record<string, unknown>;
}

export interface RunPage {
  runs: RunSummary[];
  nextCursor: string | null;
}

/** A stored run or job row that is not a readable document: the error names the row and the store. */
export class CorruptRowError extends Error {
  override readonly name = 'CorruptRowError';
  constructor(
    readonly kind: 'run' | 'job' | 'probe',
    readonly id: string,
    readonly storeDir: string,
  ) {
    super(`${kind} ${id} in the store ${storeDir} is corrupted (its stored record is not valid JSON); the other ${kind}s are unaffected`);
  }
}

/** Where start-up moves evidence folders no committed run registers (never deleted). */
export const ORPHANED_DIR = 'orphaned';

export const INTERRUPTED_REASON =
  'the service stopped (crash, kill or restart) while this job was queued or running; no run of it was half-written';

export class ServiceStore {
  readonly dir: string;
  readonly #db: Database.Database;
  readonly #insertRun: Database.Statement;
  readonly #getRun: Database.Statement;
  readonly #putJob: Database.Statement;
  readonly #getJob: Database.Statement;
  readonly #putProbe: Database.Statement;
  readonly #getProbe: Database.Statement;
  /** Stored checkpoint pair records of compare_checkpoints jobs (checkpoint-pairs.ts). */
  readonly checkpointPairs: CheckpointPairTable;

  /** What opening did: the schema versions before and after, the migrations applied, a former native file copied in. */
  readonly opened: StoreOpenReport;

  readonly #adoptOrphanedEvidence: boolean;

  /**
   * `adoptOrphanedEvidence`: start even when the database is missing, empty or younger than the
   * evidence beside it (lost-database.ts), moving that evidence to orphaned/; without it such a
   * store stops start-up with LostDatabaseError and nothing is changed.
   */
  constructor(dir: string, opts: { logger?: Logger; adoptOrphanedEvidence?: boolean } = {}) {
    this.dir = dir;
    this.#adoptOrphanedEvidence = opts.adoptOrphanedEvidence ?? false;
    // Checked before SQLite opens (and so creates) the file: a refusal changes nothing.
    const finding = databaseFileFinding(join(dir, STORE_DB_FILE));
    const evidence = evidenceFolderNames(dir);
    if (finding && evidence.length && !this.#adoptOrphanedEvidence) throw new LostDatabaseError(dir, finding, evidence);
    mkdirSync(join(dir, 'runs'), { recursive: true, mode: 0o700 });
    // NORMAL: a commit survives the death of this process at any instant (kill -9); after an OS
    // crash or power loss the last commits may be rolled back — whole, never half. FULL would add
    // an fsync to every job-state change for a guarantee the contract does not ask for.
    const { db, report } = openStoreDatabase(dir, { synchronous: 'NORMAL' });
    this.#db = db;
    this.opened = report;
    logStoreOpen(report, opts.logger);
    this.#insertRun = this.#db.prepare('INSERT INTO runs (run_id, job_id, test, target, summary, record) VALUES (?, ?, ?, ?, ?, ?)');
    this.#getRun = this.#db.prepare('SELECT record FROM runs WHERE run_id = ?');
    this.#putJob = this.#db.prepare(
      `INSERT INTO jobs (job_id, created_seq, state, doc) VALUES (@job_id, (SELECT COALESCE(MAX(created_seq), 0) + 1 FROM jobs), @state, @doc)
       ON CONFLICT(job_id) DO UPDATE SET state = excluded.state, doc = excluded.doc`,
    );
    this.#getJob = this.#db.prepare('SELECT doc FROM jobs WHERE job_id = ?');
    this.#putProbe = this.#db.prepare(
      'INSERT INTO probes (probe_id, doc) VALUES (?, ?) ON CONFLICT(probe_id) DO UPDATE SET doc = excluded.doc',
    );
    this.#getProbe = this.#db.prepare('SELECT doc FROM probes WHERE probe_id = ?');
    this.checkpointPairs = new CheckpointPairTable(this.#db);
  }

  /**
   * Startup recovery: every job the previous process left queued or running becomes `failed` with
   * a clear reason (a row that is not a job any more is marked corrupt and named, and start-up goes
   * on), and evidence folders that no committed run registers are moved aside to `orphaned/`,
   * never deleted: a store restored without its `-wal` file has committed runs the database does
   * not know of, and their evidence is the only copy. The caller logs the names.
   */
  recover(nowIso: string): { interruptedJobs: string[]; corruptJobs: string[]; orphanedEvidenceDirs: string[] } {
    // First, before any change: a database younger than the evidence stops start-up here.
    const known = this.#db.prepare('SELECT 1 FROM runs WHERE run_id = ?');
    const unregistered = evidenceFolderNames(this.dir).filter((name) => !known.get(name));
    this.#refuseIfYoungerThanEvidence(unregistered);
    const rows = this.#db.prepare("SELECT job_id, doc FROM jobs WHERE state IN ('queued', 'running')").all() as Array<{
      job_id: string;
      doc: string;
    }>;
    const interrupted: string[] = [];
    const corrupt: string[] = [];
    for (const { job_id, doc } of rows) {
      let job: Job;
      try {
        job = JSON.parse(doc) as Job;
        if (typeof job !== 'object' || job === null || typeof job.progress !== 'object') throw new Error('not a job');
      } catch {
        // Keep the row's id and mark it, so the job is not picked up as running again.
        this.#db.prepare("UPDATE jobs SET state = 'failed' WHERE job_id = ?").run(job_id);
        corrupt.push(job_id);
        continue;
      }
      job.state = 'failed';
      job.finished_at = nowIso;
      job.error = { code: 'interrupted', message: INTERRUPTED_REASON };
      job.progress = { ...job.progress, phase: 'interrupted' };
      this.putJob(job);
      interrupted.push(job.job_id);
    }
    const orphaned: string[] = [];
    for (const name of unregistered) {
      mkdirSync(join(this.dir, ORPHANED_DIR), { recursive: true });
      // lstat, not exists: a dangling link named like a free slot is taken too (rename onto it fails).
      let target = join(this.dir, ORPHANED_DIR, name);
      for (let n = 1; pathTaken(target); n++) target = join(this.dir, ORPHANED_DIR, `${name}.${n}`);
      try {
        renameSync(join(this.dir, 'runs', name), target);
      } catch (e) {
        throw new Error(
          `the store ${this.dir}: cannot move the unregistered evidence folder runs/${name} aside to ${relative(this.dir, target)} ` +
            `(${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); move or remove ${target} by hand and start again`,
          { cause: e },
        );
      }
      orphaned.push(relative(this.dir, target));
    }
    return { interruptedJobs: interrupted, corruptJobs: corrupt, orphanedEvidenceDirs: orphaned };
  }

  /** A database created after evidence it does not register was re-created or replaced: stop (lost-database.ts). */
  #refuseIfYoungerThanEvidence(unregistered: string[]): void {
    if (this.#adoptOrphanedEvidence || !unregistered.length) return;
    const createdAtMs = this.createdAtMs();
    if (!createdAtMs) return;
    const times = unregistered.map((n) => folderMtimeMs(join(this.dir, 'runs', n))).filter((t): t is number => t !== null);
    const oldest = Math.min(...times);
    if (oldest < createdAtMs - CREATION_SLACK_MS)
      throw new LostDatabaseError(this.dir, { kind: 'younger', createdAtMs, oldestEvidenceMs: oldest }, unregistered);
  }

  /** When this database was created (ms since epoch; 0 = before that was recorded). */
  createdAtMs(): number {
    const row = this.#db.prepare("SELECT value FROM store_meta WHERE key = 'created_at_ms'").get() as { value: string } | undefined;
    return row ? Number(row.value) || 0 : 0;
  }

  /** This connection's `PRAGMA synchronous` (1 = NORMAL). */
  synchronousLevel(): number {
    return this.#db.pragma('synchronous', { simple: true }) as number;
  }

  runDir(runId: string): string {
    return join(this.dir, 'runs', runId);
  }

  /** Commits a run record (once; a second insert of the same id fails). */
  insertRun(record: RunRecord): void {
    const summary: RunSummary = {
      run_id: record.run_id,
      job_id: record.job_id,
      test: record.test,
      target: record.target,
      status: record.status,
      emulation: record.emulation,
      artifact_sha256: record.candidate.artifact_sha256,
      started_at: record.started_at,
      finished_at: record.finished_at,
    };
    this.#insertRun.run(record.run_id, record.job_id, record.test, record.target, JSON.stringify(summary), JSON.stringify(record));
  }

  /** Many records in one transaction (used by benchmarks to seed a store). */
  insertRuns(records: RunRecord[]): void {
    this.#db.transaction((rs: RunRecord[]) => {
      for (const r of rs) this.insertRun(r);
    })(records);
  }

  getRun(runId: string): RunRecord | undefined {
    const row = this.#getRun.get(runId) as { record: string } | undefined;
    return row ? (this.#parseRow('run', runId, row.record) as RunRecord) : undefined;
  }

  /** A stored document, or CorruptRowError naming the row (never a bare JSON SyntaxError). */
  #parseRow(kind: 'run' | 'job', id: string, text: string): unknown {
    try {
      const doc = JSON.parse(text) as unknown;
      if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) return doc;
    } catch {
      /* reported below */
    }
    throw new CorruptRowError(kind, id, this.dir);
  }

  /** Newest first; `cursor` continues after the last run of the previous page. */
  listRuns(q: { limit: number; cursor?: string; test?: string; target?: string; status?: string }): RunPage | 'bad-cursor' {
    const where: Array<[string, string]> = [];
    if (q.test !== undefined) where.push(['test = ?', q.test]);
    if (q.target !== undefined) where.push(['target = ?', q.target]);
    // The same expression as the runs_by_status index, so SQLite pages it by index.
    if (q.status !== undefined) where.push(["json_extract(summary, '$.status') = ?", q.status]);
    const page = pageBySeq(this.#db, { table: 'runs', column: 'summary', tag: 'r', where, limit: q.limit, cursor: q.cursor });
    if (page === 'bad-cursor') return page;
    // A corrupted summary row is skipped (it cannot be shown), not allowed to break the list.
    const runs = page.values.flatMap((v) => {
      try {
        const summary = JSON.parse(v) as RunSummary;
        return typeof summary === 'object' && summary !== null ? [summary] : [];
      } catch {
        return [];
      }
    });
    return { runs, nextCursor: page.nextCursor };
  }

  putJob(job: Job): void {
    this.#putJob.run({ job_id: job.job_id, state: job.state, doc: JSON.stringify(job) });
  }

  /** Newest first (by creation), optionally only one state. */
  listJobs(limit: number, state?: string): Job[] {
    const rows = (
      state === undefined
        ? this.#db.prepare('SELECT job_id, doc FROM jobs ORDER BY created_seq DESC LIMIT ?').all(limit)
        : this.#db.prepare('SELECT job_id, doc FROM jobs WHERE state = ? ORDER BY created_seq DESC LIMIT ?').all(state, limit)
    ) as Array<{ job_id: string; doc: string }>;
    // One corrupted row must not hide every other job: it is skipped here (GET of that job names it).
    return rows.flatMap((r) => {
      try {
        return [this.#parseRow('job', r.job_id, r.doc) as Job];
      } catch {
        return [];
      }
    });
  }

  getJob(jobId: string): Job | undefined {
    const row = this.#getJob.get(jobId) as { doc: string } | undefined;
    return row ? (this.#parseRow('job', jobId, row.doc) as Job) : undefined;
  }

  putProbe(p: StoredProbe): void {
    this.#putProbe.run(p.probe_id, JSON.stringify(p));
  }

  /** Deletes the probes that expired before `expiredBeforeMs` (probes.ts keeps the table bounded); returns how many. */
  pruneProbes(expiredBeforeMs: number): number {
    // json_valid first: one corrupt row must not make json_extract fail the whole prune (and with it every probe).
    return this.#db.prepare("DELETE FROM probes WHERE json_valid(doc) AND json_extract(doc, '$.expires_at_ms') < ?").run(expiredBeforeMs)
      .changes;
  }

  /** A stored probe; a row that is not a readable probe throws CorruptRowError naming it. */
  getProbe(probeId: string): StoredProbe | undefined {
    const row = this.#getProbe.get(probeId) as { doc: string } | undefined;
    if (!row) return undefined;
    let p: Partial<StoredProbe> | null = null;
    try {
      p = JSON.parse(row.doc) as Partial<StoredProbe>;
    } catch {
      /* reported below */
    }
    if (
      typeof p !== 'object' ||
      p === null ||
      typeof p.expires_at_ms !== 'number' ||
      typeof p.strict_gate !== 'boolean' ||
      (p.consumed_at_ms !== null && typeof p.consumed_at_ms !== 'number') ||
      typeof p.snapshot !== 'object' ||
      p.snapshot === null
    )
      throw new CorruptRowError('probe', probeId, this.dir);
    return p as StoredProbe;
  }

  /**
   * Marks a probe consumed by a job, atomically: only one caller can win (the UPDATE sees the
   * unconsumed state inside the same transaction).
   */
  consumeProbe(probeId: string, jobId: string, nowMs: number): boolean {
    return this.#db.transaction(() => {
      const p = this.getProbe(probeId);
      if (!p || p.consumed_at_ms !== null) return false;
      this.putProbe({ ...p, consumed_at_ms: nowMs, consumed_by_job: jobId });
      return true;
    })();
  }

  // ---- debug-stream capture preparations (captures.ts) ----

  putPreparation(p: StoredPreparation): void {
    this.#db
      .prepare(
        'INSERT INTO capture_preparations (preparation_id, doc) VALUES (?, ?) ON CONFLICT(preparation_id) DO UPDATE SET doc = excluded.doc',
      )
      .run(p.preparation_id, JSON.stringify(p));
  }

  getPreparation(id: string): StoredPreparation | undefined {
    const row = this.#db.prepare('SELECT doc FROM capture_preparations WHERE preparation_id = ?').get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as StoredPreparation) : undefined;
  }

  /**
   * Moves a preparation out of `prepared` (to started or cancelled), atomically: only one caller
   * wins; the loser gets the state it found.
   */
  settlePreparation(
    id: string,
    to: 'started' | 'cancelled',
    nowMs: number,
  ): StoredPreparation | { found: StoredPreparation['state'] | null } {
    return this.#db.transaction(() => {
      const p = this.getPreparation(id);
      if (p?.state !== 'prepared') return { found: p?.state ?? null };
      const next = { ...p, state: to, settled_at_ms: nowMs };
      this.putPreparation(next);
      return next;
    })();
  }

  close(): void {
    this.#db.close();
  }
}

/** A two-step debug-stream capture between prepare and start (or cancel). */
export interface StoredPreparation {
  preparation_id: string;
  kind: 'debug_stream' | 'source_linked';
  state: 'prepared' | 'started' | 'cancelled';
  created_at_ms: number;
  expires_at_ms: number;
  settled_at_ms: number | null;
  probe_id: string;
  strict_gate: boolean;
  receiver_ipv4: string;
  /** The identity the start must find again before the stream is started. */
  snapshot: Record<string, unknown>;
  /** What the service answered at prepare (returned again by start). */
  view: Record<string, unknown>;
  /** Source-linked only: the test and the snapshotted build (files under the preparation folder). */
  test: string | null;
  snapshot_files: Array<{ role: string; format: string; name: string; size: number; sha256: string }>;
}

function pathTaken(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
