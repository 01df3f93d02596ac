// Start-up recovery of the service store (issue 21, reliability findings): evidence that no
// committed run registers is moved aside, never deleted, and a corrupted running job row is marked
// and named instead of stopping the service from starting.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ORPHANED_DIR, ServiceStore } from '../../../services/ultimate-tool/store/store.js';

function freshStore(): string {
  const dir = mkdtempSync(join(tmpdir(), 'store-recovery-'));
  new ServiceStore(dir).close();
  return dir;
}

test('evidence folders no committed run registers are moved to orphaned/, with their bytes, and named', () => {
  const dir = freshStore();
  try {
    // As after restoring a backup copied without its -wal file: evidence of runs the database lost.
    const lost = '0b7e5a8c-1d2f-4a3b-8c4d-5e6f7a8b9c0d';
    mkdirSync(join(dir, 'runs', lost), { recursive: true });
    writeFileSync(join(dir, 'runs', lost, 'screen.txt'), 'READY.');
    const store = new ServiceStore(dir);
    const r = store.recover(new Date(0).toISOString());
    store.close();
    assert.deepEqual(r.orphanedEvidenceDirs, [join(ORPHANED_DIR, lost)]);
    assert.equal(existsSync(join(dir, 'runs', lost)), false);
    assert.equal(readFileSync(join(dir, ORPHANED_DIR, lost, 'screen.txt'), 'utf8'), 'READY.');

    // A second folder of the same name later is kept beside the first, not over it.
    mkdirSync(join(dir, 'runs', lost), { recursive: true });
    writeFileSync(join(dir, 'runs', lost, 'screen.txt'), 'AGAIN.');
    const again = new ServiceStore(dir);
    const r2 = again.recover(new Date(0).toISOString());
    again.close();
    assert.deepEqual(r2.orphanedEvidenceDirs, [join(ORPHANED_DIR, `${lost}.1`)]);
    assert.equal(readFileSync(join(dir, ORPHANED_DIR, lost, 'screen.txt'), 'utf8'), 'READY.');
    assert.equal(readFileSync(join(dir, ORPHANED_DIR, `${lost}.1`, 'screen.txt'), 'utf8'), 'AGAIN.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a corrupted running job row does not stop start-up: it is marked failed and named', () => {
  const dir = freshStore();
  try {
    const db = new Database(join(dir, 'service.sqlite3'));
    db.prepare("INSERT INTO jobs (job_id, created_seq, state, doc) VALUES ('broken-job', 1, 'running', '{not json')").run();
    db.close();
    const store = new ServiceStore(dir);
    const r = store.recover(new Date(0).toISOString());
    assert.deepEqual(r.corruptJobs, ['broken-job']);
    assert.deepEqual(r.interruptedJobs, []);
    // Marked: the next start does not find it running again.
    assert.deepEqual(store.recover(new Date(0).toISOString()).corruptJobs, []);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
