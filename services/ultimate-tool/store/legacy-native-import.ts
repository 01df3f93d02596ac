// Bringing a store written before the one-database schema (migration 2) into it: the trusted-native
// flow then kept its own file, `<store>/native/native.sqlite3` (tables preparations, intents,
// runs). Its rows are copied into native_preparations, native_intents and native_runs in ONE
// transaction, committed fsync'd; only then is the old file moved aside to
// `native/native.sqlite3.migrated` (`.migrated.1`, … if that name is taken) — kept, never deleted.
//
// Safe to run again at any point: a row whose id the database already has is left as it is (the
// database's copy is the newer one), so a crash after the commit and before the move, or a second
// copy of the old file, imports nothing twice. A crash before the commit leaves the database as
// it was and the old file in place: the next open does the whole copy.
import { closeSync, existsSync, fsyncSync, openSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const LEGACY_NATIVE_DB = join('native', 'native.sqlite3');

export interface LegacyNativeImport {
  /** The old file, as found. */
  from: string;
  /** Where it was moved (kept). */
  movedTo: string;
  /** Rows copied, per table of the old file. */
  copied: { preparations: number; intents: number; runs: number };
  /** Rows the database already had (an import that ran before). */
  alreadyPresent: number;
}

/** One table of the old file and where its rows go. */
interface TableCopy {
  from: 'preparations' | 'intents' | 'runs';
  to: string;
  key: string;
  /** The columns besides seq, in the old file and the new table alike. */
  columns: string[];
  hasSeq: boolean;
}

const TABLES: TableCopy[] = [
  { from: 'preparations', to: 'native_preparations', key: 'preparation_id', columns: ['preparation_id', 'doc'], hasSeq: false },
  { from: 'intents', to: 'native_intents', key: 'intent_id', columns: ['intent_id', 'state', 'doc'], hasSeq: true },
  { from: 'runs', to: 'native_runs', key: 'native_run_id', columns: ['native_run_id', 'intent_id', 'state', 'doc'], hasSeq: true },
];

export function importLegacyNativeStore(db: Database.Database, storeDir: string): LegacyNativeImport | null {
  const from = join(storeDir, LEGACY_NATIVE_DB);
  if (!existsSync(from)) return null;
  const rows = readLegacyRows(from);
  const copied = { preparations: 0, intents: 0, runs: 0 };
  let alreadyPresent = 0;
  const copy = db.transaction(() => {
    for (const t of TABLES) {
      const has = db.prepare(`SELECT 1 FROM ${t.to} WHERE ${t.key} = ?`);
      const seqTaken = t.hasSeq ? db.prepare(`SELECT 1 FROM ${t.to} WHERE seq = ?`) : null;
      const cols = t.columns.join(', ');
      const marks = t.columns.map(() => '?').join(', ');
      const withSeq = t.hasSeq ? db.prepare(`INSERT INTO ${t.to} (seq, ${cols}) VALUES (?, ${marks})`) : null;
      const withoutSeq = db.prepare(`INSERT INTO ${t.to} (${cols}) VALUES (${marks})`);
      for (const r of rows[t.from]) {
        if (has.get(r[t.key])) {
          alreadyPresent++;
          continue;
        }
        const values = t.columns.map((c) => r[c]);
        // The old seq is kept where it is free, so the order of the intents list (and a cursor a
        // client holds) is unchanged; a row of a second old file whose seq is taken goes last.
        if (withSeq && !seqTaken?.get(r.seq)) withSeq.run(r.seq, ...values);
        else withoutSeq.run(...values);
        copied[t.from]++;
      }
    }
  });
  try {
    copy.immediate();
  } catch (e) {
    throw new Error(
      `copying the former native store ${from} into ${db.name} failed and was rolled back (nothing of it was kept; the old file is still in place and is copied again at the next start): ${(e as Error).message}`,
      { cause: e },
    );
  }
  const movedTo = moveAside(from);
  return { from, movedTo, copied, alreadyPresent };
}

/** Every row of the old file, oldest first (the file is opened read-write so SQLite replays its WAL). */
function readLegacyRows(path: string): Record<TableCopy['from'], Array<Record<string, unknown>>> {
  const old = new Database(path, { fileMustExist: true });
  try {
    const present = new Set(
      (old.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name),
    );
    const read = (t: TableCopy) =>
      present.has(t.from)
        ? (old
            .prepare(`SELECT ${t.hasSeq ? 'seq, ' : ''}${t.columns.join(', ')} FROM ${t.from} ORDER BY ${t.hasSeq ? 'seq' : 'rowid'}`)
            .all() as Array<Record<string, unknown>>)
        : [];
    return { preparations: read(TABLES[0]!), intents: read(TABLES[1]!), runs: read(TABLES[2]!) };
  } catch (e) {
    throw new Error(
      `the former native store ${path} could not be read for the move into the one database (nothing was changed): ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  } finally {
    old.close(); // the last connection: its WAL is checkpointed into the file and removed
  }
}

/** Renames the old file (and any -wal/-shm beside it) to a free `.migrated` name and fsyncs the folder. */
function moveAside(path: string): string {
  let target = `${path}.migrated`;
  for (let n = 1; existsSync(target); n++) target = `${path}.migrated.${n}`;
  for (const suffix of ['-wal', '-shm']) if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  try {
    renameSync(path, target);
  } catch (e) {
    // Another process opening the same store copied (nothing new, by id) and moved it first.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return `${path} (already moved aside by another process)`;
    throw e;
  }
  const dir = openSync(join(path, '..'), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return target;
}
