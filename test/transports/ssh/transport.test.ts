// The SSH layer against a real OpenSSH sshd on loopback: host resolution from ~/.ssh/config,
// known_hosts verification (plain, hashed, unknown, changed), key authentication (authorized and
// not), remote exec in the remote HOME, and the stream-local MCP channel to a remote daemon
// (a stand-in daemon here; the full topup bin is covered in remote-topup.test.ts).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, existsSync, truncateSync, mkdirSync } from 'node:fs';
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../common/sha256.js';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { startSshd, type SshdFixture } from '../../helpers/sshd.js';
import { SshConnection, SshError } from '../../../transports/ssh.js';
import { startHarness, standInWrapper, toolContext, waitFor, type Harness } from '../../adapters/topup/routing/harness.js';
import { parseToolPayload } from '../../../src/index.js';

describe('SSH connection to a real sshd', () => {
  let sshd: SshdFixture;
  before(async () => {
    sshd = await startSshd({ remoteTopupScript: standInWrapper() });
  });
  after(async () => {
    await sshd.close();
  });

  const connect = (extra: { configPath?: string } = {}) =>
    SshConnection.connect(sshd.hostAlias, { home: sshd.clientHome, agentSocket: '', ...extra });

  test('resolves the alias from ~/.ssh/config and runs a command in the remote HOME', async () => {
    const conn = await connect();
    try {
      assert.equal(conn.host.hostname, '127.0.0.1');
      assert.equal(conn.host.port, sshd.port);
      const res = await conn.exec('printf %s "$HOME"');
      assert.equal(res.code, 0);
      assert.equal(res.stdout, sshd.remoteHome);
    } finally {
      conn.close();
    }
  });

  test('accepts a hashed known_hosts entry', async () => {
    const line = sshd.knownHostsLine({ hashed: true });
    assert.match(line, /^\|1\|/);
    sshd.writeKnownHosts(`${line}\n`);
    try {
      const conn = await connect();
      conn.close();
    } finally {
      sshd.writeKnownHosts(`${sshd.knownHostsLine()}\n`);
    }
  });

  test('refuses an unknown host key', async () => {
    sshd.writeKnownHosts('# nothing known\n');
    try {
      await assert.rejects(connect(), (err: unknown) => {
        assert.ok(err instanceof SshError);
        assert.equal(err.phase, 'host-key');
        assert.match(err.message, /unknown/);
        assert.match(err.message, new RegExp(`\\[127\\.0\\.0\\.1\\]:${sshd.port}`));
        return true;
      });
    } finally {
      sshd.writeKnownHosts(`${sshd.knownHostsLine()}\n`);
    }
  });

  test('refuses a changed host key', async () => {
    const otherKey = readFileSync(`${sshd.unauthorizedKeyPath}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
    sshd.writeKnownHosts(`${sshd.knownHostsLine({ hashed: true, key: otherKey })}\n`);
    try {
      await assert.rejects(connect(), (err: unknown) => {
        assert.ok(err instanceof SshError);
        assert.equal(err.phase, 'host-key');
        assert.match(err.message, /HOST KEY CHANGED/);
        return true;
      });
    } finally {
      sshd.writeKnownHosts(`${sshd.knownHostsLine()}\n`);
    }
  });

  test('refuses a user key the server does not authorize', async () => {
    const configPath = join(sshd.root, 'wrong-key-config');
    writeFileSync(
      configPath,
      `Host ${sshd.hostAlias}\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.user}\n  IdentityFile ${sshd.unauthorizedKeyPath}\n`,
    );
    await assert.rejects(connect({ configPath }), (err: unknown) => {
      assert.ok(err instanceof SshError);
      assert.equal(err.phase, 'auth');
      assert.match(err.message, /authentication .* failed/);
      assert.ok(err.message.includes(sshd.unauthorizedKeyPath));
      return true;
    });
  });

  test('authenticates with the SSH agent when SSH_AUTH_SOCK is given and no identity file exists', async () => {
    const agentSock = join(sshd.root, 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', agentSock], { stdio: ['ignore', 'ignore', 'ignore'] });
    try {
      await waitFor('ssh-agent to listen', () => existsSync(agentSock));
      execFileSync('ssh-add', ['-q', join(sshd.clientHome, '.ssh', 'id_ed25519')], {
        env: { ...process.env, SSH_AUTH_SOCK: agentSock },
        stdio: 'ignore',
      });
      const configPath = join(sshd.root, 'agent-config');
      writeFileSync(
        configPath,
        `Host ${sshd.hostAlias}\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.user}\n  IdentityFile ${join(sshd.root, 'no-such-key')}\n`,
      );
      const conn = await SshConnection.connect(sshd.hostAlias, { home: sshd.clientHome, configPath, agentSocket: agentSock });
      const res = await conn.exec('echo via-agent');
      conn.close();
      assert.equal(res.stdout.trim(), 'via-agent');
    } finally {
      const exited = new Promise((r) => agent.once('exit', r));
      agent.kill('SIGTERM');
      await exited;
    }
  });

  test('a closed port is a connect-phase error', async () => {
    const configPath = join(sshd.root, 'closed-port-config');
    // Port 1 on loopback: nothing listens there.
    writeFileSync(configPath, `Host ${sshd.hostAlias}\n  HostName 127.0.0.1\n  Port 1\n  IdentityFile ~/.ssh/id_ed25519\n`);
    await assert.rejects(connect({ configPath }), (err: unknown) => {
      assert.ok(err instanceof SshError);
      assert.equal(err.phase, 'connect');
      return true;
    });
  });
});

describe('router over SSH with a stand-in remote daemon', () => {
  let sshd: SshdFixture;
  let h: Harness;
  before(async () => {
    sshd = await startSshd({ remoteTopupScript: standInWrapper() });
    h = await startHarness({ home: sshd.clientHome, env: { HOME: sshd.clientHome }, ssh: { agentSocket: '' } });
  });
  after(async () => {
    await h.close();
    await sshd.close();
  });

  test('start_session starts the remote daemon, answers from the remote HOME, and is idempotent', async () => {
    const first = await h.call('start_session', { host: sshd.hostAlias });
    assert.equal(first.isError, false, JSON.stringify(first.payload));
    assert.equal(first.payload.host, sshd.hostAlias);
    assert.equal(first.payload.remote_socket, join(sshd.remoteHome, '.topup/sockets/topup.sock'));
    assert.equal(first.payload.already_running, false);
    assert.ok(existsSync(first.payload.remote_socket), 'the remote socket exists under the remote HOME');

    const who = parseToolPayload(await h.router.forward({ kind: 'host', host: sshd.hostAlias }, 'whoami', {}, toolContext())) as {
      home: string;
      pid: number;
    };
    assert.equal(who.home, sshd.remoteHome);
    assert.notEqual(who.pid, process.pid);

    const again = await h.call('start_session', { host: sshd.hostAlias });
    assert.equal(again.payload.already_running, true);
    const who2 = parseToolPayload(await h.router.forward({ kind: 'host', host: sshd.hostAlias }, 'whoami', {}, toolContext())) as {
      pid: number;
    };
    assert.equal(who2.pid, who.pid);
  });

  test('restart_session with a live daemon reconnects to the same daemon', async () => {
    const target = { kind: 'host', host: sshd.hostAlias } as const;
    const before = parseToolPayload(await h.router.forward(target, 'whoami', {}, toolContext())) as { pid: number };
    for (let i = 0; i < 3; i++) {
      const r = await h.call('restart_session', { host: sshd.hostAlias });
      assert.equal(r.isError, false, JSON.stringify(r.payload));
      const after = parseToolPayload(await h.router.forward(target, 'whoami', {}, toolContext())) as { pid: number };
      assert.equal(after.pid, before.pid, 'the daemon (and its state) outlives the SSH connection');
    }
  });

  test('a second router while the daemon serves the first gets phase "connect", reason "busy", naming the holder', async () => {
    const other = await startHarness({ home: sshd.clientHome, env: { HOME: sshd.clientHome }, ssh: { agentSocket: '' } });
    try {
      const r = await other.call('start_session', { host: sshd.hostAlias });
      assert.equal(r.isError, true);
      assert.equal(r.payload.phase, 'connect');
      assert.equal(r.payload.reason, 'busy');
      assert.match(r.payload.error, /server busy/);
      // Both routers run in this process: the holder is named by host name and pid.
      assert.match(r.payload.held_by, new RegExp(`topup routing on ${hostname()} \\(pid ${process.pid}\\) for host "${sshd.hostAlias}"`));
      assert.match(r.payload.since, /^\d{4}-\d\d-\d\dT/);
      assert.match(r.payload.error, /daemon": "restart"/, 'the error says how to take the daemon over');
    } finally {
      await other.close();
    }
  });

  test('restart_session after the remote daemon was killed starts a new one', async () => {
    const target = { kind: 'host', host: sshd.hostAlias } as const;
    const before = parseToolPayload(await h.router.forward(target, 'whoami', {}, toolContext())) as { pid: number };
    assert.deepEqual(sshd.killRemoteDaemons(), [before.pid]);
    // The dead daemon is noticed: the routed call fails with a message naming restart_session.
    await waitFor('the router to notice the dead daemon', async () => {
      const r = await h.router.forward(target, 'whoami', {}, toolContext()).then(
        () => null,
        (e: Error) => e,
      );
      return r !== null && /restart_session/.test(r.message);
    });
    const restarted = await h.call('restart_session', { host: sshd.hostAlias });
    assert.equal(restarted.isError, false, JSON.stringify(restarted.payload));
    const after = parseToolPayload(await h.router.forward(target, 'whoami', {}, toolContext())) as { pid: number };
    assert.notEqual(after.pid, before.pid);
  });

  test('an aborted routed call reaches the remote daemon as a cancellation', async () => {
    const marker = join(sshd.remoteHome, 'cancel-marker');
    const ac = new AbortController();
    const pending = h.router.forward({ kind: 'host', host: sshd.hostAlias }, 'wait_for_cancel', { marker }, toolContext(ac.signal));
    pending.catch(() => {});
    // Make sure the request reached the daemon before cancelling: the channel is ordered, so once a
    // later request on it has been answered, the daemon has received (and dispatched) this one.
    await h.router.forward({ kind: 'host', host: sshd.hostAlias }, 'whoami', {}, toolContext());
    ac.abort();
    await assert.rejects(pending);
    await waitFor('the remote daemon to record the cancellation', () => existsSync(marker));
    assert.equal(readFileSync(marker, 'utf8'), 'cancelled');
  });

  test('push_file / pull_file round trip keeps the SHA-256', async () => {
    const src = join(sshd.clientHome, 'payload.bin');
    const data = randomBytes(3 * 1024 * 1024 + 17);
    writeFileSync(src, data);
    const sha = sha256Hex(data);
    const pushed = await h.call('push_file', { host: sshd.hostAlias, local_path: src });
    assert.equal(pushed.isError, false, JSON.stringify(pushed.payload));
    assert.equal(pushed.payload.remote_path, join(sshd.remoteHome, '.topup/xfer/payload.bin'));
    assert.equal(pushed.payload.bytes, data.length);
    assert.equal(sha256Hex(readFileSync(pushed.payload.remote_path)), sha);

    const back = join(sshd.clientHome, 'back', 'payload.copy');
    const pulled = await h.call('pull_file', { host: sshd.hostAlias, remote_path: '~/.topup/xfer/payload.bin', local_path: back });
    assert.equal(pulled.isError, false, JSON.stringify(pulled.payload));
    assert.deepEqual(pulled.payload, { local_path: back, bytes: data.length });
    assert.equal(sha256Hex(readFileSync(back)), sha);

    const defaulted = await h.call('pull_file', { host: sshd.hostAlias, remote_path: pushed.payload.remote_path });
    assert.equal(defaulted.payload.local_path, join(sshd.clientHome, '.topup/xfer/payload.bin'));

    const empty = join(sshd.clientHome, 'empty.txt');
    writeFileSync(empty, '');
    const e1 = await h.call('push_file', { host: sshd.hostAlias, local_path: empty, remote_path: '~/in/empty.txt' });
    assert.deepEqual(e1.payload, { remote_path: join(sshd.remoteHome, 'in/empty.txt'), bytes: 0 });
    const e2 = await h.call('pull_file', {
      host: sshd.hostAlias,
      remote_path: '~/in/empty.txt',
      local_path: join(sshd.clientHome, 'empty.back'),
    });
    assert.deepEqual(e2.payload, { local_path: join(sshd.clientHome, 'empty.back'), bytes: 0 });
    assert.equal(readFileSync(join(sshd.clientHome, 'empty.back')).length, 0);
  });

  test('a file over the cap is refused before any byte is read', async () => {
    // 5 GiB sparse file: reading it whole would fail differently (over Node's buffer limit) or take long.
    const huge = join(sshd.clientHome, 'huge.bin');
    writeFileSync(huge, '');
    truncateSync(huge, 5 * 1024 ** 3);
    const pushed = await h.call('push_file', { host: sshd.hostAlias, local_path: huge });
    assert.equal(pushed.isError, true);
    assert.equal(pushed.payload.phase, 'cap');
    assert.equal(pushed.payload.bytes, 5 * 1024 ** 3);
    assert.match(pushed.payload.error, /nothing was read/);

    mkdirSync(join(sshd.remoteHome, 'big'), { recursive: true });
    const remoteHuge = join(sshd.remoteHome, 'big', 'huge.bin');
    writeFileSync(remoteHuge, '');
    truncateSync(remoteHuge, 5 * 1024 ** 3);
    const pulled = await h.call('pull_file', {
      host: sshd.hostAlias,
      remote_path: remoteHuge,
      local_path: join(sshd.clientHome, 'never.bin'),
    });
    assert.equal(pulled.isError, true);
    assert.equal(pulled.payload.phase, 'cap');
    assert.match(pulled.payload.error, /nothing was read/);
    assert.equal(existsSync(join(sshd.clientHome, 'never.bin')), false);
  });

  test('transfers need a host; host and session together or unknown hosts are clear errors', async () => {
    const local = await h.call('push_file', { host: 'local', local_path: '/etc/hostname' });
    assert.equal(local.isError, true);
    assert.match(local.payload.error, /purely local copy/);
    const noHost = await h.call('pull_file', { remote_path: '/etc/hostname' });
    assert.equal(noHost.isError, true);
    assert.match(JSON.stringify(noHost.payload), /host/);
    const both = await h.call('push_file', { host: sshd.hostAlias, session: 's', local_path: '/etc/hostname' });
    assert.equal(both.isError, true);
    assert.match(both.payload.error, /pass host, not session/);
    const unknown = await h.call('pull_file', { host: 'nosuchhost', remote_path: '/etc/hostname' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.payload.error, new RegExp(`unknown host "nosuchhost"; registered hosts: ${sshd.hostAlias}`));
  });

  test('update_host changes only the given fields and shows them in the instructions', async () => {
    const a = await h.call('update_host', { host: sshd.hostAlias, description: 'loopback test box' });
    assert.equal(a.isError, false, JSON.stringify(a.payload));
    const b = await h.call('update_host', { host: sshd.hostAlias, os: 'Debian' });
    assert.deepEqual(b.payload, { host: sshd.hostAlias, description: 'loopback test box', os: 'Debian' });
    const stored = JSON.parse(readFileSync(join(sshd.clientHome, '.topup/hosts.json'), 'utf8'));
    assert.equal(stored.hosts[sshd.hostAlias].description, 'loopback test box');
    const text = h.router.describe();
    assert.match(text, new RegExp(`${sshd.hostAlias}: connected — os: Debian; loopback test box`));
    const unknown = await h.call('update_host', { host: 'elsewhere', os: 'x' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.payload.error, /unknown host "elsewhere"/);
  });
});

describe('TOPUP_REMOTE_COMMAND', () => {
  let sshd: SshdFixture;
  let h: Harness;
  before(async () => {
    // The remote PATH's `topup` is broken; the configured command is the stand-in under another name.
    sshd = await startSshd({ remoteTopupScript: '#!/bin/sh\necho "wrong topup" >&2\nexit 3\n' });
    writeFileSync(join(sshd.remoteBinDir, 'topup-alt'), standInWrapper(), { mode: 0o755 });
    h = await startHarness({
      home: sshd.clientHome,
      env: { HOME: sshd.clientHome, TOPUP_REMOTE_COMMAND: 'topup-alt' },
      ssh: { agentSocket: '' },
    });
  });
  after(async () => {
    await h.close();
    await sshd.close();
  });

  test('replaces the remote command that starts the daemon', async () => {
    const r = await h.call('start_session', { host: sshd.hostAlias });
    assert.equal(r.isError, false, JSON.stringify(r.payload));
    const who = parseToolPayload(await h.router.forward({ kind: 'host', host: sshd.hostAlias }, 'whoami', {}, toolContext())) as {
      home: string;
    };
    assert.equal(who.home, sshd.remoteHome);
  });
});

describe('start_session failures are phase "connect" with the cause in reason', () => {
  let sshd: SshdFixture;
  let h: Harness;
  before(async () => {
    // The remote `topup` exits at once: the spawn phase must report it with its output.
    sshd = await startSshd({ remoteTopupScript: '#!/bin/sh\necho "topup: cannot start: no OCaml here" >&2\nexit 3\n' });
    h = await startHarness({ home: sshd.clientHome, env: { HOME: sshd.clientHome }, ssh: { agentSocket: '' } });
  });
  after(async () => {
    await h.close();
    await sshd.close();
  });

  test('a daemon that dies before listening is phase "connect", reason "spawn", with its output', async () => {
    const r = await h.call('start_session', { host: sshd.hostAlias });
    assert.equal(r.isError, true);
    assert.equal(r.payload.phase, 'connect');
    assert.equal(r.payload.reason, 'spawn');
    assert.match(r.payload.error, /no OCaml here/);
  });

  test('an unknown host key is phase "connect", reason "host-key"', async () => {
    sshd.writeKnownHosts('');
    const r = await h.call('start_session', { host: sshd.hostAlias });
    assert.equal(r.isError, true);
    assert.equal(r.payload.phase, 'connect');
    assert.equal(r.payload.reason, 'host-key');
    sshd.writeKnownHosts(`${sshd.knownHostsLine()}\n`);
  });
});
