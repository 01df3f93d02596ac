// Named local sessions' lifecycle with a stand-in child (a core MCP server on stdio): pools,
// idempotence, persistence, a child that dies, restarts, instructions, shutdown. Prewarm and
// restore on a sibling need the OCaml toplevel and are covered with the real bin in
// topup-bin.test.ts.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseToolPayload } from '../../../../src/index.js';
import { startHarness, standInDaemon, tempDir, toolContext, waitFor, type Harness } from './harness.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('named local sessions (stand-in child)', () => {
  const home = tempDir('topup-sessions-');
  let h: Harness;
  const pids = new Set<number>();
  const whoami = async (session: string) => {
    const r = parseToolPayload(await h.router.forward({ kind: 'session', session }, 'whoami', {}, toolContext())) as { pid: number };
    pids.add(r.pid);
    return r.pid;
  };

  before(async () => {
    h = await startHarness({
      home: home.path,
      env: { HOME: home.path },
      childCommand: { command: process.execPath, args: ['--import', 'tsx', standInDaemon] },
    });
  });
  after(async () => {
    await h.close();
    for (const pid of pids) assert.equal(alive(pid), false, `child ${pid} was stopped by router.close()`);
    home.remove();
  });

  test('pool: the session and its siblings are separate processes; start is idempotent; settings persist', async () => {
    const r = await h.call('start_local_session', { session: 'work', pool: 3 });
    assert.equal(r.isError, false, JSON.stringify(r.payload));
    assert.deepEqual(r.payload.members, ['work', 'work.1', 'work.2']);
    assert.equal(r.payload.already_running, false);
    const [a, b, c] = [await whoami('work'), await whoami('work.1'), await whoami('work.2')];
    assert.equal(new Set([a, b, c, process.pid]).size, 4);

    const again = await h.call('start_local_session', { session: 'work' });
    assert.equal(again.payload.already_running, true);
    assert.equal(again.payload.pool, 3, 'the stored pool applies when none is given');
    assert.equal(await whoami('work'), a);

    const stored = JSON.parse(readFileSync(join(home.path, '.topup', 'sessions.json'), 'utf8'));
    assert.deepEqual(stored, { version: 1, sessions: { work: { pool: 3 } } });
  });

  test('a child that dies is noticed; restart_local_session on a sibling restarts only it', async () => {
    const primary = await whoami('work');
    const victim = await whoami('work.1');
    process.kill(victim, 'SIGKILL');
    let message = '';
    await waitFor('the dead child to be noticed', async () => {
      const err = await h.router.forward({ kind: 'session', session: 'work.1' }, 'whoami', {}, toolContext()).then(
        () => null,
        (e: Error) => e,
      );
      message = err?.message ?? '';
      return /killed by SIGKILL/.test(message);
    });
    assert.match(
      message,
      /session "work\.1" is not running: its process was killed by SIGKILL; restart it with restart_local_session \{"session": "work\.1"\}/,
    );
    assert.match(h.router.describe(), /work\.1: down/);

    const r = await h.call('restart_local_session', { session: 'work.1' });
    assert.equal(r.isError, false, JSON.stringify(r.payload));
    const revived = await whoami('work.1');
    assert.notEqual(revived, victim);
    assert.equal(await whoami('work'), primary, 'the primary was not touched');
  });

  test('update_local_session persists without touching the running children; restart applies it', async () => {
    const before = await whoami('work');
    const sibling2 = await whoami('work.2');
    const prewarmless = await h.call('update_local_session', { session: 'work', pool: 2 });
    assert.equal(prewarmless.isError, false, JSON.stringify(prewarmless.payload));
    assert.equal(JSON.parse(readFileSync(join(home.path, '.topup', 'sessions.json'), 'utf8')).sessions.work.pool, 2);
    assert.equal(await whoami('work'), before);
    assert.equal(await whoami('work.2'), sibling2);

    const r = await h.call('restart_local_session', { session: 'work' });
    assert.deepEqual(r.payload.members, ['work', 'work.1']);
    assert.notEqual(await whoami('work'), before);
    assert.equal(alive(sibling2), false, 'the member beyond the new pool size was stopped');
    await assert.rejects(
      h.router.forward({ kind: 'session', session: 'work.2' }, 'whoami', {}, toolContext()),
      /unknown session "work\.2"; registered sessions: work, work\.1/,
    );
  });

  test('instructions list sessions and pool siblings', () => {
    const text = h.router.describe();
    assert.match(text, /Named local sessions/);
    assert.match(text, /- work: running — pool 2/);
    assert.match(text, /- work\.1: running — pool sibling of work/);
  });

  test('bad requests are clear errors', async () => {
    const missing = await h.call('start_local_session', { session: 'x', prewarm: join(home.path, 'nope.ml') });
    assert.equal(missing.isError, true);
    assert.equal(missing.payload.phase, 'prewarm');
    assert.match(missing.payload.error, /nope\.ml does not exist/);
    const badName = await h.call('start_local_session', { session: '../x' });
    assert.match(badName.payload.error, /not a valid name/);
    const local = await h.call('start_local_session', { session: 'local' });
    assert.match(local.payload.error, /"local" names the in-process toplevel/);
    const unknown = await h.call('update_local_session', { session: 'ghost', pool: 2 });
    assert.match(unknown.payload.error, /unknown session "ghost"; registered sessions: work, work\.1/);
    const nothing = await h.call('update_local_session', { session: 'work' });
    assert.match(nothing.payload.error, /needs prewarm and\/or pool/);
  });

  test('a child command that cannot start is a spawn-phase error', async () => {
    const broken = await startHarness({
      home: home.path,
      env: { HOME: home.path },
      childCommand: { command: process.execPath, args: ['-e', 'process.exit(5)'] },
    });
    try {
      const r = await broken.call('start_local_session', { session: 'broken' });
      assert.equal(r.isError, true);
      assert.equal(r.payload.phase, 'spawn');
      assert.match(r.payload.error, /session "broken": the child topup did not start/);
    } finally {
      await broken.close();
    }
  });
});
