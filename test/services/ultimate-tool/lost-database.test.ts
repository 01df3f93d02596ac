// Evidence is never hidden by a database that lost it (issue 36, part 2): a database that is
// missing, empty (0 bytes) or younger than the evidence beside it stops start-up, changing
// nothing, with a message saying what was found and how to recover; the store's backup, restore
// and check bring it back.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT_USAGE } from '../../../common/index.js';
import { binCommand } from '../../helpers/bin.js';
import { LostDatabaseError } from '../../../services/ultimate-tool/store/lost-database.js';
import { StoreLock, StoreLockedError } from '../../../services/ultimate-tool/store/store-lock.js';
import { backupStore, checkStore, restoreStore } from '../../../services/ultimate-tool/store/store-maintenance.js';
import { ORPHANED_DIR, ServiceStore } from '../../../services/ultimate-tool/store/store.js';
import { bareProject, commitRun, getJson, startBare } from './bare-service.js';

const RUN = '0b7e5a8c-1d2f-4a3b-8c4d-5e6f7a8b9c0d';
const DB = 'service.sqlite3';

/** A store with one committed run and its evidence, closed. */
function storeWithRun(): { work: string; project: string; store: string } {
  const p = bareProject();
  const s = new ServiceStore(p.store);
  commitRun(s, RUN, { 'screen.txt': 'READY.' });
  s.close();
  return p;
}

function removeDatabase(store: string): void {
  for (const f of [DB, `${DB}-wal`, `${DB}-shm`]) rmSync(join(store, f), { force: true });
}

for (const [what, lose, pattern] of [
  ['deleted', removeDatabase, /its database service\.sqlite3 is missing/],
  [
    'truncated to 0 bytes',
    (store: string) => {
      removeDatabase(store);
      writeFileSync(join(store, DB), '');
    },
    /is empty \(0 bytes\)/,
  ],
] as const) {
  test(`a database ${what} beside evidence stops start-up and changes nothing`, async () => {
    const { work, project, store } = storeWithRun();
    try {
      lose(store);
      await assert.rejects(startBare(project, store), (e: unknown) => {
        assert.ok(e instanceof LostDatabaseError, String(e));
        assert.match(e.message, pattern);
        assert.match(e.message, new RegExp(`runs/ holds 1 evidence folder\\(s\\) \\(${RUN}\\)`));
        assert.match(e.message, /ultimate-tool store restore --store .* --from BACKUP/);
        assert.match(e.message, /--adopt-orphaned-evidence/);
        return true;
      });
      // Nothing moved, nothing created in the database's place.
      assert.ok(existsSync(join(store, 'runs', RUN, 'screen.txt')));
      assert.equal(existsSync(join(store, ORPHANED_DIR)), false);
      if (what === 'deleted') assert.equal(existsSync(join(store, DB)), false);
      // The lock was released with the refusal.
      StoreLock.acquire(store).release();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}

test('a database created after the evidence beside it (re-created, replaced) stops start-up', async () => {
  const { work, project, store } = storeWithRun();
  try {
    // The evidence is an hour old; the database is replaced by a new, empty one.
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(store, 'runs', RUN), hourAgo, hourAgo);
    removeDatabase(store);
    new ServiceStore(join(work, 'other')).close();
    writeFileSync(join(store, DB), readFileSync(join(work, 'other', DB)));
    await assert.rejects(startBare(project, store), (e: unknown) => {
      assert.ok(e instanceof LostDatabaseError, String(e));
      assert.match(e.message, /was created at .*, after the evidence beside it \(oldest .*\), and registers none of it/);
      return true;
    });
    assert.ok(existsSync(join(store, 'runs', RUN, 'screen.txt')));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('--adopt-orphaned-evidence starts anyway and keeps the evidence in orphaned/', async () => {
  const { work, project, store } = storeWithRun();
  try {
    removeDatabase(store);
    const svc = await startBare(project, store, { adoptOrphanedEvidence: true });
    await svc.stop();
    assert.ok(existsSync(join(store, ORPHANED_DIR, RUN, 'screen.txt')));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('backup, loss, check, restore: the run and its evidence are served again', async () => {
  const { work, project, store } = storeWithRun();
  try {
    const backup = join(work, 'backup.sqlite3');
    const svc = await startBare(project, store);
    // Online: the backup is taken while the service holds the store.
    const b = await backupStore(store, backup);
    assert.equal(b.runs, 1);
    await assert.rejects(backupStore(store, backup), /already exists/);
    // A restore needs the store free.
    await assert.rejects(restoreStore(store, backup), StoreLockedError);
    await svc.stop();

    removeDatabase(store);
    const lost = checkStore(store);
    assert.equal(lost.ok, false);
    assert.equal(lost.database.state, 'missing');
    assert.deepEqual(lost.unregistered_evidence, [RUN]);

    const r = await restoreStore(store, backup);
    assert.equal(r.runs, 1);
    assert.deepEqual(r.unregistered_evidence, []);
    const fine = checkStore(store);
    assert.equal(fine.ok, true, JSON.stringify(fine.problems));

    const back = await startBare(project, store);
    try {
      const ev = await getJson(back.url, `/v13/runs/${RUN}/evidence/screen.txt`);
      assert.equal(ev.status, 200, JSON.stringify(ev.body));
      assert.equal(ev.body.evidence.text, 'READY.');
    } finally {
      await back.stop();
    }
    // A restore over an existing database moves that one aside, never deletes it.
    const again = await restoreStore(store, backup);
    assert.ok(again.replaced_database_moved_to && existsSync(again.replaced_database_moved_to));
    // A file that is not a store is refused before anything changes.
    writeFileSync(join(work, 'not-a-db'), 'hello');
    await assert.rejects(restoreStore(store, join(work, 'not-a-db')), /cannot (open|read) .* as an SQLite database/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('check names damaged evidence; the CLI exits 1 on problems and prints its report', () => {
  const { work, store } = storeWithRun();
  try {
    truncateSync(join(store, 'runs', RUN, 'screen.txt'), 2);
    mkdirSync(join(store, 'runs', 'stray'));
    const { command, args } = binCommand('ultimate-tool', ['store', 'check', '--store', store]);
    const r = spawnSync(command, args, { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(report.damaged_evidence, [{ run_id: RUN, name: 'screen.txt', problem: '2 bytes, registered 6' }]);
    assert.deepEqual(report.unregistered_evidence, ['stray']);
    const usage = spawnSync(command, [...args.slice(0, -4), 'store', 'check'], { encoding: 'utf8' });
    assert.equal(usage.status, EXIT_USAGE);
    assert.match(usage.stderr, /store check needs --store DIR/);
    assert.deepEqual(readdirSync(join(store, 'runs')).sort(), [RUN, 'stray'].sort());
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
