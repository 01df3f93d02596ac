// Evidence is never hidden by a database that lost it. Start-up recovery moves evidence folders
// that no committed run registers to orphaned/ — right for the one folder of a job killed before
// its record committed, wrong when the database itself is gone: a deleted, 0-byte or re-created
// `service.sqlite3` would pass for a new, empty store, every run would vanish from the API and all
// evidence would be moved aside. So start-up stops instead when it finds evidence beside
//   - a database file that is missing or empty (checked before SQLite opens it, so nothing is
//     created or changed), or
//   - a database created after evidence folders it does not register (store_meta.created_at_ms,
//     migration 3): it was re-created or replaced.
// The message says what was found and the two ways on: restore the database from a backup, or
// start once with --adopt-orphaned-evidence to keep the evidence as orphaned folders.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Evidence folders older than the database by less than this are not held against it (filesystem clocks are coarse). */
export const CREATION_SLACK_MS = 1000;

export type DatabaseFinding = { kind: 'missing' } | { kind: 'empty' } | { kind: 'younger'; createdAtMs: number; oldestEvidenceMs: number };

export class LostDatabaseError extends Error {
  override readonly name = 'LostDatabaseError';
  constructor(
    readonly storeDir: string,
    readonly finding: DatabaseFinding,
    readonly evidenceDirs: string[],
  ) {
    const what =
      finding.kind === 'missing'
        ? 'its database service.sqlite3 is missing'
        : finding.kind === 'empty'
          ? 'its database service.sqlite3 is empty (0 bytes)'
          : `its database service.sqlite3 was created at ${new Date(finding.createdAtMs).toISOString()}, after the evidence beside it (oldest ${new Date(finding.oldestEvidenceMs).toISOString()}), and registers none of it`;
    const shown = evidenceDirs.slice(0, 5).join(', ') + (evidenceDirs.length > 5 ? `, … (${evidenceDirs.length - 5} more)` : '');
    super(
      `the store ${storeDir}: ${what}, while runs/ holds ${evidenceDirs.length} evidence folder(s) (${shown}). ` +
        'Start-up stopped and changed nothing, so no run is hidden. To recover: restore the database from a backup ' +
        `(ultimate-tool store restore --store ${storeDir} --from BACKUP), or, to keep the evidence only as orphaned ` +
        'folders without runs, start once with --adopt-orphaned-evidence (they are moved to orphaned/, never deleted)',
    );
  }
}

/** Folder names under `<store>/runs/` (empty when there is none). */
export function evidenceFolderNames(storeDir: string): string[] {
  try {
    return readdirSync(join(storeDir, 'runs')).sort();
  } catch {
    return [];
  }
}

/** Before opening: is the database file missing or empty while evidence lies beside it? */
export function databaseFileFinding(dbPath: string): DatabaseFinding | null {
  try {
    return statSync(dbPath).size === 0 ? { kind: 'empty' } : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
}

/** The modification time of an evidence folder (its last file written), or null when it cannot be read. */
export function folderMtimeMs(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}
