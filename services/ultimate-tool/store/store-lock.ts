// One service per store: an exclusive lock on `<store>/service.lock`, taken before any start-up
// recovery. Two services on one store would each "recover" the other's running job (marking it
// interrupted, moving its half-written evidence to orphaned/), so the second one must not start.
//
// How: the lock file is a small SQLite database held in `locking_mode = EXCLUSIVE` after one write
// transaction. SQLite's lock is a POSIX advisory (fcntl) lock that the kernel drops when the
// process dies in any way (kill -9 included), so there is no stale lock to detect or clean, and
// no pid to trust: the pid in `service.lock.json` beside it is only there to name the holder in
// the refusal. A second connection in the same process is refused too (SQLite tracks its locks
// per file across connections), which is what lets tests start two services in one process.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const STORE_LOCK_FILE = 'service.lock';
export const STORE_LOCK_HOLDER_FILE = 'service.lock.json';

/** Another process (or another service in this process) holds the store. */
export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';
  constructor(
    readonly storeDir: string,
    readonly holderPid: number | null,
  ) {
    super(
      `the store ${storeDir} is in use by another ultimate-tool service (${holderPid === null ? 'its pid is not recorded' : `pid ${holderPid}`}); ` +
        'one store serves one service at a time: stop that service, or start this one with another --store',
    );
  }
}

export class StoreLock {
  readonly #db: Database.Database;
  private constructor(
    readonly storeDir: string,
    db: Database.Database,
  ) {
    this.#db = db;
  }

  /** Takes the store's lock or throws StoreLockedError naming the holder; never waits. */
  static acquire(storeDir: string): StoreLock {
    mkdirSync(storeDir, { recursive: true, mode: 0o700 });
    const db = new Database(join(storeDir, STORE_LOCK_FILE), { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      try {
        // The first write in EXCLUSIVE mode takes the exclusive lock and keeps it until close.
        db.exec('BEGIN EXCLUSIVE');
      } catch (e) {
        if ((e as { code?: string }).code === 'SQLITE_BUSY' || (e as { code?: string }).code === 'SQLITE_LOCKED')
          throw new StoreLockedError(storeDir, holderPid(storeDir));
        throw e;
      }
      db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER, host TEXT, since TEXT); DELETE FROM holder');
      db.prepare('INSERT INTO holder VALUES (?, ?, ?)').run(process.pid, hostname(), new Date().toISOString());
      db.exec('COMMIT');
    } catch (e) {
      db.close();
      throw e;
    }
    // Written after the lock is ours: whoever reads it while the lock is held reads our pid.
    writeFileSync(
      join(storeDir, STORE_LOCK_HOLDER_FILE),
      `${JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() })}\n`,
      { mode: 0o600 },
    );
    return new StoreLock(storeDir, db);
  }

  release(): void {
    if (this.#db.open) this.#db.close();
  }
}

function holderPid(storeDir: string): number | null {
  try {
    const pid = (JSON.parse(readFileSync(join(storeDir, STORE_LOCK_HOLDER_FILE), 'utf8')) as { pid?: unknown }).pid;
    return Number.isSafeInteger(pid) ? (pid as number) : null;
  } catch {
    return null;
  }
}
