// The schema of the service's one SQLite database (`<store>/service.sqlite3`), as an ordered list
// of numbered migrations. The database records the last one applied in `PRAGMA user_version`
// (0 = a store written before migrations existed, or a new file); open-store-database.ts applies
// every later one, each in its own transaction together with its new version number, so a store
// is always at exactly one version — never between two.
//
// Rules for adding one: append it with the next number, never edit or reorder one that has
// shipped (stores in the field are already past it), and write `up` so that it only runs on a
// database at the version before it.
import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'service tables: runs, jobs, probes, capture preparations, checkpoint comparisons',
    // Exactly the schema the service created before migrations existed, with IF NOT EXISTS: a store
    // of that code is at user_version 0 with these tables already there, and this leaves them as
    // they are (and sets version 1); a new file gets them created.
    up(db) {
      db.exec(`
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
      `);
    },
  },
  {
    version: 2,
    name: 'trusted-native tables: native_preparations, native_intents, native_runs',
    // The tables the native flow kept in its own file (`<store>/native/native.sqlite3`, tables
    // preparations, intents, runs), now beside the service's, prefixed: the service already has
    // a `runs` table. The rows of an existing native file are copied in by
    // legacy-native-import.ts after the migrations (it can run again safely; this cannot).
    up(db) {
      db.exec(`
        CREATE TABLE native_preparations (preparation_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
        CREATE TABLE native_intents (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          intent_id TEXT NOT NULL UNIQUE,
          state TEXT NOT NULL,
          doc TEXT NOT NULL
        );
        CREATE INDEX native_intents_by_state ON native_intents(state, seq);
        CREATE TABLE native_runs (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          native_run_id TEXT NOT NULL UNIQUE,
          intent_id TEXT NOT NULL,
          state TEXT NOT NULL,
          doc TEXT NOT NULL
        );
        CREATE INDEX native_runs_by_intent ON native_runs(intent_id, seq);
      `);
    },
  },
  {
    version: 3,
    name: 'store_meta: when this database was created (to notice a database younger than its evidence)',
    // A database re-created beside existing evidence (deleted, truncated to 0 bytes, replaced)
    // would otherwise pass for a new, empty store and start-up would move every evidence folder
    // aside (store/lost-database.ts). A store that already holds runs or jobs predates this
    // migration: its creation time is unknown (0), and only the other checks apply to it.
    up(db) {
      const used = db.prepare('SELECT EXISTS (SELECT 1 FROM runs) OR EXISTS (SELECT 1 FROM jobs) AS used').get() as { used: number };
      db.exec('CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      db.prepare("INSERT INTO store_meta VALUES ('created_at_ms', ?)").run(String(used.used ? 0 : Date.now()));
    },
  },
];

/** The version a store has once every migration this code knows is applied. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
