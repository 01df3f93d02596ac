// One service per store (issue 36, part 1): a second service on the same store is refused before
// it recovers anything, naming the store and the holder's pid; the lock dies with its process,
// kill -9 included, so the next service starts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../helpers/bin.js';
import { StoreLock, StoreLockedError } from '../../../services/ultimate-tool/store/store-lock.js';
import { bareProject, startBare } from './bare-service.js';

test('a second service on the same store is refused, naming the store and the pid; the first keeps its jobs', async () => {
  const { work, project, store } = bareProject();
  const first = await startBare(project, store);
  try {
    // A job the first service is running: the second service's recovery must never reach it.
    first.store.putJob({
      job_id: 'running-job',
      state: 'running',
      test: 'passes',
      targets: ['vice'],
      repeat: 1,
      strict_gate: false,
      baseline_run_id: null,
      created_at: '2026-12-01T00:00:00.000Z',
      started_at: '2026-12-01T00:00:00.000Z',
      finished_at: null,
      progress: { completed_runs: 0, total_runs: 1, phase: 'running' },
      run_ids: [],
      error: null,
    } as never);
    await assert.rejects(startBare(project, store), (e: unknown) => {
      assert.ok(e instanceof StoreLockedError, String(e));
      assert.match(e.message, new RegExp(`the store ${store.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use .*pid ${process.pid}`));
      return true;
    });
    assert.equal(first.store.getJob('running-job')?.state, 'running');
  } finally {
    await first.stop();
  }
  // Stopped: the lock is released and the store opens again.
  const again = await startBare(project, store);
  await again.stop();
  rmSync(work, { recursive: true, force: true });
});

test('the lock is held by a process until it dies, kill -9 included', async () => {
  const { work, store } = bareProject();
  const script = `import { StoreLock } from ${JSON.stringify(join(repoRoot, 'services/ultimate-tool/store/store-lock.ts'))};
StoreLock.acquire(${JSON.stringify(store)}); process.stdout.write('locked\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((res, rej) => {
      child.stdout.on('data', (b: Buffer) => b.toString().includes('locked') && res());
      child.once('exit', (c) => rej(new Error(`the lock holder exited early (${c})`)));
    });
    assert.throws(
      () => StoreLock.acquire(store),
      (e: unknown) => e instanceof StoreLockedError && e.holderPid === child.pid,
    );
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
    StoreLock.acquire(store).release();
  } finally {
    child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
});
