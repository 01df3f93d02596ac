// The remote daemon's life cycle through the router, against a real sshd with the stand-in daemon:
// restart_session {daemon: "stop" | "restart"} and the default that replaces a dead daemon (killing
// what is left of it), log rotation, and cancelling start_session half-way (the SSH connection and
// the half-started daemon are gone afterwards). The daemons run on this machine (sshd on loopback),
// so their pids can be checked directly.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseToolPayload } from '../../../../src/index.js';
import { startSshd, processAlive, type SshdFixture } from '../../../helpers/sshd.js';
import { startHarness, standInWrapper, toolContext, waitFor, type Harness } from './harness.js';

describe('remote daemon life cycle', () => {
  let sshd: SshdFixture;
  let h: Harness;
  let socket: string;
  const target = () => ({ kind: 'host', host: sshd.hostAlias }) as const;
  const daemonPid = async () => (parseToolPayload(await h.router.forward(target(), 'whoami', {}, toolContext())) as { pid: number }).pid;

  before(async () => {
    sshd = await startSshd({ remoteTopupScript: standInWrapper() });
    h = await startHarness({ home: sshd.clientHome, env: { HOME: sshd.clientHome }, ssh: { agentSocket: '' } });
    socket = join(sshd.remoteHome, '.topup/sockets/topup.sock');
  });
  after(async () => {
    await h.close();
    await sshd.close();
  });

  test('restart_session {daemon: "stop"} stops the daemon; start_session then starts a new one', { timeout: 120_000 }, async () => {
    const started = await h.call('start_session', { host: sshd.hostAlias });
    assert.equal(started.isError, false, JSON.stringify(started.payload));
    const pid = await daemonPid();
    assert.equal(readFileSync(`${socket}.pid`, 'utf8').trim(), String(pid), 'the daemon recorded its own pid');

    const stopped = await h.call('restart_session', { host: sshd.hostAlias, daemon: 'stop' });
    assert.equal(stopped.isError, false, JSON.stringify(stopped.payload));
    assert.equal(stopped.payload.stopped, true);
    assert.equal(stopped.payload.was_running, true);
    assert.equal(stopped.payload.daemon_pid, pid);
    await waitFor('the stopped daemon to exit', () => !processAlive(pid));
    assert.equal(existsSync(socket), false, 'the socket is gone');
    assert.equal(existsSync(`${socket}.pid`), false, 'the pid file is gone');

    await assert.rejects(h.router.forward(target(), 'whoami', {}, toolContext()), /registered but not connected/);

    const again = await h.call('restart_session', { host: sshd.hostAlias, daemon: 'stop' });
    assert.equal(again.payload.was_running, false, 'stopping twice says nothing was running');

    const restarted = await h.call('start_session', { host: sshd.hostAlias });
    assert.equal(restarted.isError, false, JSON.stringify(restarted.payload));
    assert.notEqual(await daemonPid(), pid);
  });

  test('restart_session {daemon: "restart"} replaces a live daemon with a fresh one', { timeout: 120_000 }, async () => {
    const before = await daemonPid();
    const r = await h.call('restart_session', { host: sshd.hostAlias, daemon: 'restart' });
    assert.equal(r.isError, false, JSON.stringify(r.payload));
    assert.equal(r.payload.daemon, 'new');
    const after = await daemonPid();
    assert.notEqual(after, before);
    await waitFor('the old daemon to exit', () => !processAlive(before));
  });

  test('restart_session on a daemon that can no longer be reached stops what is left of it and starts a new one', {
    timeout: 120_000,
  }, async () => {
    const wedged = await daemonPid();
    // The process lives on, but nothing can reach it any more (its socket file is gone).
    rmSync(socket);
    const r = await h.call('restart_session', { host: sshd.hostAlias });
    assert.equal(r.isError, false, JSON.stringify(r.payload));
    const fresh = await daemonPid();
    assert.notEqual(fresh, wedged);
    await waitFor('the unreachable daemon to be stopped', () => !processAlive(wedged));
  });

  test('the daemon log is rotated: at every daemon start, and on connect once it is over 1 MiB', { timeout: 120_000 }, async () => {
    const log = `${socket}.log`;
    assert.ok(existsSync(`${log}.1`), 'the log of the previous daemon was rotated when this one started');
    assert.match(readFileSync(`${log}.1`, 'utf8'), /stand-in daemon listening/);
    const pid = await daemonPid();
    appendFileSync(log, `${'x'.repeat(1024 * 1024 + 10)}\n`);
    const r = await h.call('restart_session', { host: sshd.hostAlias });
    assert.equal(r.isError, false, JSON.stringify(r.payload));
    assert.equal(await daemonPid(), pid, 'the daemon was kept');
    assert.ok(statSync(`${log}.1`).size > 1024 * 1024, 'the big log moved to .log.1');
    assert.ok(statSync(log).size < 1024, 'the live log starts again small');
    assert.ok(existsSync(`${log}.2`), 'older generations shift down');
  });
});

describe('cancelling start_session', () => {
  let sshd: SshdFixture;
  let h: Harness;
  before(async () => {
    // A remote `topup` that records its pid, then never listens: the start is stuck in the spawn
    // wait until it is cancelled.
    sshd = await startSshd({
      remoteTopupScript: '#!/bin/sh\necho $$ >"$HOME/half-started.pid"\nwhile :; do sleep 0.05; done\n',
    });
    h = await startHarness({ home: sshd.clientHome, env: { HOME: sshd.clientHome }, ssh: { agentSocket: '' } });
  });
  after(async () => {
    await h.close();
    await sshd.close();
  });

  test('aborts the start: the SSH connection and the half-started daemon are cleaned up', { timeout: 120_000 }, async () => {
    const marker = join(sshd.remoteHome, 'half-started.pid');
    const ac = new AbortController();
    const pending = h.client.callTool('start_session', { host: sshd.hostAlias }, { signal: ac.signal });
    pending.catch(() => {});
    await waitFor('the remote daemon to be half-started', () => existsSync(marker) && readFileSync(marker, 'utf8').trim() !== '', 60_000);
    const pid = Number(readFileSync(marker, 'utf8').trim());
    assert.ok(processAlive(pid));
    assert.ok(sshd.connectionCount() > 0, 'the start holds an SSH connection');
    ac.abort();
    await assert.rejects(pending);
    await waitFor('the half-started daemon to be stopped', () => !processAlive(pid));
    await waitFor('no SSH connection to remain', () => sshd.connectionCount() === 0);
    const socket = join(sshd.remoteHome, '.topup/sockets/topup.sock');
    assert.equal(existsSync(`${socket}.pid`), false);
    // Nothing was registered as connected.
    await assert.rejects(h.router.forward({ kind: 'host', host: sshd.hostAlias }, 'whoami', {}, toolContext()), /unknown host/);
  });

  test('a failed start also stops the daemon it launched (spawn timeout)', { timeout: 120_000 }, async () => {
    const short = await startHarness({
      home: sshd.clientHome,
      env: { HOME: sshd.clientHome },
      ssh: { agentSocket: '' },
      startTimeoutMs: 1_500,
    });
    try {
      const marker = join(sshd.remoteHome, 'half-started.pid');
      writeFileSync(marker, '');
      const r = await short.call('start_session', { host: sshd.hostAlias });
      assert.equal(r.isError, true);
      assert.equal(r.payload.phase, 'connect');
      assert.equal(r.payload.reason, 'spawn');
      assert.match(r.payload.error, /did not listen within 1500 ms/);
      const pid = Number(readFileSync(marker, 'utf8').trim());
      await waitFor('the daemon that never listened to be stopped', () => !processAlive(pid));
      await waitFor('no SSH connection to remain', () => sshd.connectionCount() === 0);
    } finally {
      await short.close();
    }
  });
});
