// Opening the service's one SQLite database (`<store>/service.sqlite3`): a connection in WAL mode
// with the durability its user asks for, the schema brought up to date by the numbered migrations
// (migrations.ts), and the trusted-native flow's former separate file copied in
// (legacy-native-import.ts). Every connection to the store is opened here, so whichever opens
// first migrates and the others find the store current.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from '../../../common/index.js';
import { type LegacyNativeImport, importLegacyNativeStore } from './legacy-native-import.js';
import { MIGRATIONS, type Migration } from './migrations.js';

export const STORE_DB_FILE = 'service.sqlite3';

/** The store was written by newer code: its schema version is above every migration this code has. */
export class StoreVersionError extends Error {
  override readonly name = 'StoreVersionError';
  constructor(
    readonly path: string,
    readonly storeVersion: number,
    readonly codeVersion: number,
  ) {
    super(
      `the store ${path} has schema version ${storeVersion}, but this code knows versions up to ${codeVersion}: ` +
        'it was written by a newer mcp-engines; run that version (or open a copy of the store made before it)',
    );
  }
}

/** A migration threw: its transaction was rolled back and the store is at the version before it. */
export class StoreMigrationError extends Error {
  override readonly name = 'StoreMigrationError';
  constructor(path: string, m: Migration, atVersion: number, cause: unknown) {
    super(
      `the store ${path}: migration ${m.version} (${m.name}) failed and was rolled back; the store is still at version ${atVersion} ` +
        `and opens again: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    );
  }
}

export interface StoreOpenReport {
  path: string;
  fromVersion: number;
  toVersion: number;
  applied: Array<{ version: number; name: string }>;
  /** What a former `native/native.sqlite3` contributed (null when there was none). */
  legacyNative: LegacyNativeImport | null;
}

export interface OpenStoreOptions {
  /**
   * The connection's `PRAGMA synchronous` in WAL mode. NORMAL: a commit survives the death of the
   * process at any instant, and after a power loss the last commits may be rolled back, whole.
   * FULL: the WAL is fsync'd at every commit this connection makes, so the commit survives a power
   * loss too (the native flow's latch). The level is per connection, which is why the native
   * store has a connection of its own.
   */
  synchronous: 'NORMAL' | 'FULL';
  /** The migrations to apply (default: all of migrations.ts; tests pass a list with a failing one). */
  migrations?: readonly Migration[];
}

export function openStoreDatabase(storeDir: string, opts: OpenStoreOptions): { db: Database.Database; report: StoreOpenReport } {
  mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  const path = join(storeDir, STORE_DB_FILE);
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    // Schema changes and the copy of the native rows are rare and must not be lost once the old
    // native file is moved aside: they commit fsync'd whatever the connection's level afterwards.
    db.pragma('synchronous = FULL');
    const migrations = opts.migrations ?? MIGRATIONS;
    const fromVersion = userVersion(db);
    const applied = applyMigrations(db, path, migrations);
    const toVersion = userVersion(db);
    const legacyNative = toVersion >= 2 ? importLegacyNativeStore(db, storeDir) : null;
    db.pragma(`synchronous = ${opts.synchronous}`);
    return { db, report: { path, fromVersion, toVersion, applied, legacyNative } };
  } catch (e) {
    db.close();
    throw e;
  }
}

function userVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Applies, in order, every migration above the store's version, each in one IMMEDIATE transaction
 * with the new version number (a second process opening the same store waits, then finds the work
 * done). A store above the last known version is refused before anything is written.
 */
export function applyMigrations(
  db: Database.Database,
  path: string,
  migrations: readonly Migration[],
): Array<{ version: number; name: string }> {
  const latest = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  const applied: Array<{ version: number; name: string }> = [];
  const found = userVersion(db);
  if (found > latest) throw new StoreVersionError(path, found, latest);
  for (const m of migrations) {
    if (m.version <= found) continue;
    db.transaction(() => {
      const now = userVersion(db);
      if (now >= m.version) return; // applied meanwhile by another connection
      if (now !== m.version - 1) throw new Error(`migration ${m.version} needs version ${m.version - 1}, the store is at ${now}`);
      try {
        m.up(db);
      } catch (e) {
        throw new StoreMigrationError(path, m, now, e);
      }
      db.pragma(`user_version = ${m.version}`);
      applied.push({ version: m.version, name: m.name });
    }).immediate();
  }
  return applied;
}

/** One line per thing opening changed (nothing when the store was current): what was migrated, where the old native file went. */
export function logStoreOpen(report: StoreOpenReport, log: Logger | undefined): void {
  if (!log) return;
  if (report.applied.length)
    log.info(
      `store ${report.path}: schema version ${report.fromVersion} → ${report.toVersion} (${report.applied.map((m) => `${m.version} ${m.name}`).join('; ')})`,
    );
  const n = report.legacyNative;
  if (n)
    log.warn(
      `store ${report.path}: copied the former native store ${n.from} into it (${n.copied.preparations} preparation(s), ${n.copied.intents} intent(s), ` +
        `${n.copied.runs} native run(s); ${n.alreadyPresent} already there) and kept the old file as ${n.movedTo} (not deleted; remove it when no longer wanted)`,
    );
}
