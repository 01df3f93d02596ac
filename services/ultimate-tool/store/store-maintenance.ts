// Backup, restore and check of a service store (`ultimate-tool store …`, store-cli.ts).
// - backup: SQLite's online backup of `service.sqlite3` into one file, page by page, consistent
//   even while a service is writing (it is a reader like any other). Evidence files under runs/
//   are immutable once registered: copy that folder with ordinary tools beside the backup.
// - restore: the store's lock is taken (no service may run), the backup is checked (integrity,
//   schema version, the service's tables), the current database is moved aside (never deleted)
//   and the backup becomes the database through a temporary file renamed into place.
// - check: what a start-up would find, without changing anything: the database's integrity,
//   schema and age, runs whose registered evidence is missing or changed in size or type, and
//   evidence folders no run registers.
import { lstatSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CREATION_SLACK_MS, databaseFileFinding, evidenceFolderNames, folderMtimeMs } from './lost-database.js';
import { LATEST_SCHEMA_VERSION } from './migrations.js';
import { STORE_DB_FILE } from './open-store-database.js';
import { StoreLock } from './store-lock.js';

export class StoreMaintenanceError extends Error {
  override readonly name = 'StoreMaintenanceError';
}

export interface BackupReport {
  store: string;
  backup: string;
  schema_version: number;
  runs: number;
  pages: number;
}

/** The online backup of the store's database into `to` (which must not exist yet). */
export async function backupStore(storeDir: string, to: string): Promise<BackupReport> {
  const path = join(storeDir, STORE_DB_FILE);
  if (databaseFileFinding(path))
    throw new StoreMaintenanceError(`the store ${storeDir} has no database to back up (${path} is missing or empty)`);
  if (exists(to)) throw new StoreMaintenanceError(`the backup file ${to} already exists; name a new file (a backup never overwrites)`);
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(to);
    const copy = describeDatabase(to);
    return { store: storeDir, backup: to, schema_version: copy.schemaVersion, runs: copy.runs, pages: totalPages };
  } finally {
    db.close();
  }
}

export interface RestoreReport {
  store: string;
  restored_from: string;
  schema_version: number;
  runs: number;
  /** Where the database that was replaced went (null: there was none, or it was empty). */
  replaced_database_moved_to: string | null;
  /** Evidence folders the restored database does not register: moved to orphaned/ at the next start. */
  unregistered_evidence: string[];
}

/** Makes `from` (a backup) the store's database; refused while a service holds the store. */
export async function restoreStore(storeDir: string, from: string, nowMs: number = Date.now()): Promise<RestoreReport> {
  const lock = StoreLock.acquire(storeDir);
  try {
    const source = describeDatabase(from);
    if (source.integrity !== 'ok')
      throw new StoreMaintenanceError(`the backup ${from} fails SQLite's integrity check (${source.integrity}); nothing was changed`);
    if (!source.hasRunsTable)
      throw new StoreMaintenanceError(
        `the backup ${from} is not an ultimate-tool store database (it has no runs table); nothing was changed`,
      );
    if (source.schemaVersion > LATEST_SCHEMA_VERSION)
      throw new StoreMaintenanceError(
        `the backup ${from} has schema version ${source.schemaVersion}, above this code's ${LATEST_SCHEMA_VERSION}; restore it with the newer mcp-engines that wrote it`,
      );
    const path = join(storeDir, STORE_DB_FILE);
    const tmp = `${path}.restoring`;
    rmSync(tmp, { force: true });
    const src = new Database(from, { readonly: true, fileMustExist: true });
    try {
      await src.backup(tmp);
    } finally {
      src.close();
    }
    let movedTo: string | null = null;
    if (!databaseFileFinding(path)) {
      movedTo = `${path}.replaced-${new Date(nowMs).toISOString().replace(/[:.]/g, '-')}`;
      renameSync(path, movedTo);
    } else rmSync(path, { force: true });
    // The old database's WAL belongs to it, not to the restored file: it goes with it.
    for (const suffix of ['-wal', '-shm']) {
      if (!exists(path + suffix)) continue;
      if (movedTo) renameSync(path + suffix, movedTo + suffix);
      else rmSync(path + suffix, { force: true });
    }
    renameSync(tmp, path);
    const registered = new Set(source.runIds);
    return {
      store: storeDir,
      restored_from: from,
      schema_version: source.schemaVersion,
      runs: source.runs,
      replaced_database_moved_to: movedTo,
      unregistered_evidence: evidenceFolderNames(storeDir).filter((n) => !registered.has(n)),
    };
  } finally {
    lock.release();
  }
}

export interface CheckReport {
  store: string;
  ok: boolean;
  database: {
    path: string;
    state: 'present' | 'missing' | 'empty';
    integrity: string | null;
    schema_version: number | null;
    created_at: string | null;
  };
  runs: number;
  evidence_folders: number;
  /** Folders under runs/ no run registers (a start-up moves them to orphaned/, or stops when the database is younger). */
  unregistered_evidence: string[];
  /** Registered evidence that is missing, not a regular file, or of another size than registered. */
  damaged_evidence: Array<{ run_id: string; name: string; problem: string }>;
  problems: string[];
}

/** Reads the store and says what is wrong, changing nothing. */
export function checkStore(storeDir: string): CheckReport {
  const path = join(storeDir, STORE_DB_FILE);
  const finding = databaseFileFinding(path);
  const folders = evidenceFolderNames(storeDir);
  const problems: string[] = [];
  const report: CheckReport = {
    store: storeDir,
    ok: true,
    database: {
      path,
      state: finding?.kind === 'missing' ? 'missing' : finding?.kind === 'empty' ? 'empty' : 'present',
      integrity: null,
      schema_version: null,
      created_at: null,
    },
    runs: 0,
    evidence_folders: folders.length,
    unregistered_evidence: [],
    damaged_evidence: [],
    problems,
  };
  if (finding) {
    if (folders.length)
      problems.push(
        `the database is ${report.database.state} while runs/ holds ${folders.length} evidence folder(s): restore it from a backup`,
      );
    report.unregistered_evidence = folders;
  } else {
    const d = describeDatabase(path);
    report.database.integrity = d.integrity;
    report.database.schema_version = d.schemaVersion;
    report.database.created_at = d.createdAtMs ? new Date(d.createdAtMs).toISOString() : null;
    report.runs = d.runs;
    if (d.integrity !== 'ok') problems.push(`the database fails SQLite's integrity check: ${d.integrity}`);
    const registered = new Map(d.evidence.map((r) => [r.run_id, r.files]));
    report.unregistered_evidence = folders.filter((n) => !registered.has(n));
    const oldest = Math.min(
      ...report.unregistered_evidence.map((n) => folderMtimeMs(join(storeDir, 'runs', n)) ?? Number.POSITIVE_INFINITY),
    );
    if (d.createdAtMs && oldest < d.createdAtMs - CREATION_SLACK_MS)
      problems.push(
        'the database was created after evidence it does not register (it was re-created or replaced): restore it from a backup',
      );
    else if (report.unregistered_evidence.length)
      problems.push(`${report.unregistered_evidence.length} evidence folder(s) no run registers (the next start moves them to orphaned/)`);
    for (const [runId, files] of registered) {
      for (const f of files) {
        const problem = fileProblem(join(storeDir, 'runs', runId, f.name), f.size);
        if (problem) report.damaged_evidence.push({ run_id: runId, name: f.name, problem });
      }
    }
    if (report.damaged_evidence.length)
      problems.push(`${report.damaged_evidence.length} registered evidence file(s) are missing or damaged`);
  }
  report.ok = problems.length === 0;
  return report;
}

function fileProblem(path: string, size: number): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return 'missing';
  }
  if (!st.isFile()) return 'not a regular file';
  if (st.size !== size) return `${st.size} bytes, registered ${size}`;
  return null;
}

interface DatabaseDescription {
  integrity: string;
  schemaVersion: number;
  hasRunsTable: boolean;
  runs: number;
  runIds: string[];
  createdAtMs: number;
  evidence: Array<{ run_id: string; files: Array<{ name: string; size: number }> }>;
}

function describeDatabase(path: string): DatabaseDescription {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new StoreMaintenanceError(`cannot open ${path} as an SQLite database: ${(e as Error).message}`);
  }
  try {
    const integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
    const schemaVersion = db.pragma('user_version', { simple: true }) as number;
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name),
    );
    const hasRunsTable = tables.has('runs');
    const evidence = hasRunsTable
      ? (
          db.prepare("SELECT run_id, json_extract(record, '$.evidence') AS evidence FROM runs").all() as Array<{
            run_id: string;
            evidence: string | null;
          }>
        ).map((r) => {
          let files: Array<{ name: string; size: number }> = [];
          try {
            files = JSON.parse(r.evidence ?? '[]') as Array<{ name: string; size: number }>;
          } catch {
            /* a corrupt record: its files cannot be listed */
          }
          return { run_id: r.run_id, files: Array.isArray(files) ? files : [] };
        })
      : [];
    const created = tables.has('store_meta')
      ? (db.prepare("SELECT value FROM store_meta WHERE key = 'created_at_ms'").get() as { value: string } | undefined)
      : undefined;
    return {
      integrity,
      schemaVersion,
      hasRunsTable,
      runs: evidence.length,
      runIds: evidence.map((e) => e.run_id),
      createdAtMs: Number(created?.value) || 0,
      evidence,
    };
  } catch (e) {
    if (e instanceof StoreMaintenanceError) throw e;
    throw new StoreMaintenanceError(`cannot read ${path} as an SQLite database: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
