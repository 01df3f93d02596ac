// The start-up sweep of stale work dirs (topup-<pid>-XXXXXX in the temp dir, left by killed
// servers): it removes our own dead servers' dirs and never fails, or touches, what belongs to
// another user.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testEngine } from './helpers.js';

/** A pid that surely belongs to no running process: one that has just exited. */
function deadPid(): number {
  const r = spawnSync('true');
  assert.ok(r.pid);
  return r.pid;
}

test('a stale dir of another user is skipped (not removed, no EACCES); our own stale dir is removed', { timeout: 60_000 }, async () => {
  const isRoot = process.getuid?.() === 0;
  const foreign = mkdtempSync(join(tmpdir(), `topup-${deadPid()}-`));
  const own = mkdtempSync(join(tmpdir(), `topup-${deadPid()}-`));
  writeFileSync(join(own, 'stdout'), 'left behind');
  mkdirSync(join(foreign, 'agent-1'));
  writeFileSync(join(foreign, 'agent-1', 'stdout'), 'not yours');
  if (isRoot) {
    // Another user's dir, as a multi-user machine has them (root could remove it, but must not).
    chownSync(join(foreign, 'agent-1', 'stdout'), 65534, 65534);
    chownSync(join(foreign, 'agent-1'), 65534, 65534);
    chownSync(foreign, 65534, 65534);
    chmodSync(foreign, 0o700);
  } else {
    // Without root we cannot give a dir away; an unreadable subdir gives the same EACCES.
    chmodSync(join(foreign, 'agent-1'), 0o000);
  }
  try {
    const { engine, close } = testEngine();
    try {
      assert.ok(engine, 'the engine starts');
      assert.equal(existsSync(own), false, 'our own dead server dir was swept');
      assert.equal(existsSync(foreign), true, 'the other user dir is left alone');
    } finally {
      await close();
    }
  } finally {
    if (!isRoot) chmodSync(join(foreign, 'agent-1'), 0o700);
    rmSync(foreign, { recursive: true, force: true });
    rmSync(own, { recursive: true, force: true });
  }
});
