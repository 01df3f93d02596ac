// The service's one SQLite database and its numbered migrations (issue 21, "one SQLite database"):
// a new store gets every migration; a store written by the code before migrations (service.sqlite3
// without a version, plus native/native.sqlite3 with rows still in its WAL) is migrated with every
// row intact, its old native file kept aside, and the service answers for its runs, jobs and
// intents; opening again changes nothing; a failing step leaves a store that opens; a store newer
// than the code is refused naming both versions. Real better-sqlite3 files in temp folders.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import type { Logger } from '../../../common/index.js';
import { UltimateToolService } from '../../../services/ultimate-tool/index.js';
import { NativeStore } from '../../../services/ultimate-tool/jobs/native/native-store.js';
import { ServiceStore } from '../../../services/ultimate-tool/store/store.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration } from '../../../services/ultimate-tool/store/migrations.js';
import { StoreMigrationError, StoreVersionError, openStoreDatabase } from '../../../services/ultimate-tool/store/open-store-database.js';
import { copyProject } from './jobs/native/harness.js';
import { dumpTables, writeLegacyStore } from './legacy-store.js';

const SERVICE_TABLES = ['runs', 'jobs', 'probes', 'capture_preparations', 'checkpoint_comparisons'];
const NATIVE_TABLES: Array<[legacy: string, now: string]> = [
  ['preparations', 'native_preparations'],
  ['intents', 'native_intents'],
  ['runs', 'native_runs'],
];
const ALL_TABLES = [...SERVICE_TABLES, ...NATIVE_TABLES.map(([, t]) => t)];

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'store-migrations-'));
}

function userVersion(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const rec = (level: string) => (m: string) => void lines.push(`${level}: ${m}`);
  return { lines, error: rec('error'), warn: rec('warn'), info: rec('info'), debug: rec('debug') } as Logger & { lines: string[] };
}

/** The rows of the legacy native file as the one database must hold them (same seq, ids, state, doc). */
function legacyNativeRows(file: string): Record<string, unknown[]> {
  const legacy = dumpTables(
    file,
    NATIVE_TABLES.map(([t]) => t),
  );
  return Object.fromEntries(NATIVE_TABLES.map(([from, to]) => [to, legacy[from]!]));
}

test('a new store gets every migration, in one file, and a second connection finds it current', () => {
  const dir = tempDir();
  try {
    const store = new ServiceStore(dir);
    assert.equal(store.opened.fromVersion, 0);
    assert.equal(store.opened.toVersion, LATEST_SCHEMA_VERSION);
    assert.deepEqual(
      store.opened.applied,
      MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    );
    assert.equal(store.opened.legacyNative, null);
    const native = new NativeStore(dir);
    // The latch's durability: the native connection commits with FULL (fsync per commit), the
    // service's with NORMAL, on the one file.
    assert.equal(native.synchronousLevel(), 2, 'native store: synchronous = FULL');
    assert.equal(store.synchronousLevel(), 1, 'service store: synchronous = NORMAL');
    native.close();
    store.close();
    assert.equal(userVersion(join(dir, 'service.sqlite3')), LATEST_SCHEMA_VERSION);
    assert.equal(existsSync(join(dir, 'native', 'native.sqlite3')), false, 'no second database file');
    assert.deepEqual(Object.keys(dumpTables(join(dir, 'service.sqlite3'), ALL_TABLES)), ALL_TABLES);
    // Synchronous levels: NORMAL for the service's connection, FULL for the native one.
    const a = openStoreDatabase(dir, { synchronous: 'NORMAL' });
    const b = openStoreDatabase(dir, { synchronous: 'FULL' });
    assert.equal(a.db.pragma('synchronous', { simple: true }), 1);
    assert.equal(b.db.pragma('synchronous', { simple: true }), 2);
    assert.equal(a.db.pragma('journal_mode', { simple: true }), 'wal');
    assert.deepEqual([a.report.applied, b.report.applied], [[], []]);
    a.db.close();
    b.db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a store of the code before migrations is migrated with every row intact, its native file kept aside, and the service answers for it', async () => {
  const work = tempDir();
  const dir = join(work, 'store');
  try {
    const legacy = writeLegacyStore(dir);
    const serviceBefore = dumpTables(join(dir, 'service.sqlite3'), SERVICE_TABLES);
    const log = recordingLogger();
    const store = new ServiceStore(dir, { logger: log });
    const native = new NativeStore(dir, { logger: log });
    assert.equal(store.opened.fromVersion, 0);
    assert.equal(store.opened.toVersion, LATEST_SCHEMA_VERSION);
    const moved = join(dir, 'native', 'native.sqlite3.migrated');
    assert.deepEqual(store.opened.legacyNative, {
      from: join(dir, 'native', 'native.sqlite3'),
      movedTo: moved,
      copied: { preparations: 1, intents: 2, runs: 2 },
      alreadyPresent: 0,
    });
    assert.equal(native.getIntent(legacy.intentIds[1]!)?.state, 'suspended');
    native.close();
    store.close();

    // The old file is kept (not deleted) under the name the log line gives.
    assert.equal(existsSync(join(dir, 'native', 'native.sqlite3')), false);
    assert.ok(existsSync(moved));
    assert.ok(
      log.lines.some((l) => l.startsWith('warn: ') && l.includes(moved) && l.includes('2 intent(s)')),
      log.lines.join('\n'),
    );
    // Every row intact: the service's tables as they were, the native rows with their seq, ids and docs.
    const after = dumpTables(join(dir, 'service.sqlite3'), ALL_TABLES);
    for (const t of SERVICE_TABLES) assert.deepEqual(after[t], serviceBefore[t], t);
    const nativeRows = legacyNativeRows(moved);
    for (const [, t] of NATIVE_TABLES) {
      assert.ok(nativeRows[t]!.length > 0, `${t} has rows in the fixture`);
      assert.deepEqual(after[t], nativeRows[t], t);
    }

    // The service, started on the migrated store, answers for the old runs, jobs, comparisons and
    // native records (and recovers the native run the old process left latched).
    const svc = await UltimateToolService.start({ projectDir: copyProject(work), storeDir: dir, port: 0, vice: null, ultimate: null });
    try {
      const get = async (path: string) => {
        const res = await fetch(svc.url + path);
        return { status: res.status, body: (await res.json()) as any };
      };
      const run = await get(`/v13/runs/${legacy.runId}`);
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.equal(run.body.run.run_id, legacy.runId);
      const runs = await get('/v13/runs?limit=10');
      assert.deepEqual(
        runs.body.runs.map((r: any) => r.run_id),
        [legacy.runId],
      );
      const job = await get(`/v13/jobs/${legacy.jobId}`);
      assert.equal(job.status, 200, JSON.stringify(job.body));
      assert.deepEqual(job.body.job.run_ids, [legacy.runId]);
      const pair = await get(`/v13/checkpoint-comparisons/${legacy.comparisonId}`);
      assert.equal(pair.status, 200, JSON.stringify(pair.body));
      const prep = await get(`/v13/native/preparations/${legacy.nativePreparationId}`);
      assert.equal(prep.status, 200, JSON.stringify(prep.body));
      const intents = await get('/v13/native/intents?limit=10');
      assert.equal(intents.status, 200, JSON.stringify(intents.body));
      assert.deepEqual(
        intents.body.intents.map((i: any) => i.intent_id),
        [...legacy.intentIds].reverse(),
        'newest first, in the old order',
      );
      const intent = await get(`/v13/native/intents/${legacy.intentIds[0]}`);
      assert.equal(intent.status, 200, JSON.stringify(intent.body));
      assert.deepEqual(
        intent.body.intent.runs.map((r: any) => [r.native_run_id, r.state]),
        [[legacy.nativeRunIds[0], 'completed']],
      );
      const latched = await get(`/v13/native/runs/${legacy.nativeRunIds[1]}`);
      assert.equal(latched.status, 200, JSON.stringify(latched.body));
      assert.equal(latched.body.native_run.state, 'uncertain', 'a run the old process left latched is never re-run');
    } finally {
      await svc.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('opening a migrated store again changes nothing, and a second copy of the old native file imports nothing twice', () => {
  const dir = tempDir();
  try {
    writeLegacyStore(dir);
    new ServiceStore(dir).close();
    const file = join(dir, 'service.sqlite3');
    const once = dumpTables(file, ALL_TABLES);

    const again = new ServiceStore(dir);
    assert.deepEqual(again.opened.applied, []);
    assert.equal(again.opened.legacyNative, null);
    again.close();
    assert.deepEqual(dumpTables(file, ALL_TABLES), once);

    // As after a crash between the copy's commit and the move of the old file: it is found again.
    copyFileSync(join(dir, 'native', 'native.sqlite3.migrated'), join(dir, 'native', 'native.sqlite3'));
    const third = new ServiceStore(dir);
    assert.deepEqual(third.opened.legacyNative?.copied, { preparations: 0, intents: 0, runs: 0 });
    assert.equal(third.opened.legacyNative?.alreadyPresent, 5);
    assert.equal(third.opened.legacyNative?.movedTo, join(dir, 'native', 'native.sqlite3.migrated.1'));
    third.close();
    assert.deepEqual(dumpTables(file, ALL_TABLES), once);
    assert.ok(existsSync(join(dir, 'native', 'native.sqlite3.migrated')), 'the first kept copy is not overwritten');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a migration that fails half-way is rolled back whole: the store stays at the version before it and opens again', () => {
  const dir = tempDir();
  try {
    writeLegacyStore(dir);
    const file = join(dir, 'service.sqlite3');
    const before = dumpTables(file, SERVICE_TABLES);
    const failing: Migration = {
      version: 2,
      name: 'fails after creating a table',
      up(db) {
        db.exec('CREATE TABLE native_intents (x)');
        throw new Error('simulated failure in the middle of migration 2');
      },
    };
    assert.throws(
      () => openStoreDatabase(dir, { synchronous: 'NORMAL', migrations: [MIGRATIONS[0]!, failing] }),
      (e: unknown) =>
        e instanceof StoreMigrationError &&
        e.message.includes(file) &&
        e.message.includes('migration 2 (fails after creating a table)') &&
        e.message.includes('still at version 1') &&
        e.message.includes('simulated failure'),
    );
    assert.equal(userVersion(file), 1, 'migration 1 committed, migration 2 not');
    assert.deepEqual(dumpTables(file, SERVICE_TABLES), before);
    assert.throws(() => dumpTables(file, ['native_intents']), /no such table/);
    assert.ok(existsSync(join(dir, 'native', 'native.sqlite3')), 'the old native file is untouched');

    // The code as shipped opens it and finishes the job.
    const store = new ServiceStore(dir);
    assert.equal(store.opened.fromVersion, 1);
    assert.deepEqual(store.opened.legacyNative?.copied, { preparations: 1, intents: 2, runs: 2 });
    store.close();
    assert.equal(userVersion(file), LATEST_SCHEMA_VERSION);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a copy of the old native file that fails half-way is rolled back whole, names the file, and the store opens once the row is readable', () => {
  const dir = tempDir();
  try {
    writeLegacyStore(dir, { brokenNativeIntent: true });
    const legacyFile = join(dir, 'native', 'native.sqlite3');
    assert.throws(
      () => new ServiceStore(dir),
      (e: unknown) =>
        e instanceof Error && e.message.includes(legacyFile) && e.message.includes('rolled back') && /NOT NULL/.test(e.message),
    );
    const file = join(dir, 'service.sqlite3');
    // The preparation and the two good intents were inserted before the bad row: none of them stayed.
    const partial = dumpTables(file, ['native_preparations', 'native_intents', 'native_runs']);
    assert.deepEqual(partial, { native_preparations: [], native_intents: [], native_runs: [] });
    assert.ok(existsSync(legacyFile), 'the old file stays in place');

    const fix = new Database(legacyFile);
    fix.prepare('DELETE FROM intents WHERE doc IS NULL').run();
    fix.close();
    const store = new ServiceStore(dir);
    assert.deepEqual(store.opened.legacyNative?.copied, { preparations: 1, intents: 2, runs: 2 });
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a store newer than the code is refused, naming the store, its version and the code’s, and left as it is', async () => {
  const work = tempDir();
  const dir = join(work, 'store');
  try {
    new ServiceStore(dir).close();
    const file = join(dir, 'service.sqlite3');
    const db = new Database(file);
    db.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    db.close();
    const refused = (e: unknown) =>
      e instanceof StoreVersionError &&
      e.message.includes(file) &&
      e.message.includes(`schema version ${LATEST_SCHEMA_VERSION + 1}`) &&
      e.message.includes(`versions up to ${LATEST_SCHEMA_VERSION}`);
    assert.throws(() => new ServiceStore(dir), refused);
    assert.throws(() => new NativeStore(dir), refused);
    await assert.rejects(
      UltimateToolService.start({ projectDir: copyProject(work), storeDir: dir, port: 0, vice: null, ultimate: null }),
      refused,
    );
    assert.equal(userVersion(file), LATEST_SCHEMA_VERSION + 1);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
