// End to end with the real topup bin (run from source) on both sides: a local topup on stdio whose
// router reaches a remote topup behind a real sshd (separate HOME), and named local sessions that
// are child topups. Covers remote eval, separation of state, restart after the remote daemon was
// killed, routed cancellation (notification and tool), file transfer through the bin, named
// sessions with prewarm and pool (restore on a sibling), and the instructions text.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../../common/sha256.js';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { McpClient, parseToolPayload } from '../../../../src/index.js';
import { spawnStdio } from '../../../../transports/index.js';
import { startSshd, processAlive, type SshdFixture } from '../../../helpers/sshd.js';
import { topupCommand, waitFor } from './harness.js';

type Eval = { value_repr: string | null; type: string | null; stdout: string; error: unknown };

async function startLocalTopup(home: string): Promise<McpClient> {
  const { command, args } = topupCommand();
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env.SSH_AUTH_SOCK;
  delete env.TOPUP_XFER_DIR;
  delete env.TOPUP_XFER_MAX_BYTES;
  delete env.TOPUP_CHECKPOINT_DIR;
  delete env.TOPUP_LOG;
  const { transport } = spawnStdio(command, args, { env, stderr: 'ignore' });
  const client = new McpClient({ name: 'topup-routing-test', version: '1' });
  await client.connect(transport, { timeoutMs: 60_000 });
  return client;
}

async function call(
  client: McpClient,
  tool: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<{ isError: boolean; payload: any }> {
  const r = await client.callTool(tool, args, signal ? { signal } : {});
  return { isError: r.isError === true, payload: parseToolPayload(r) };
}

describe('topup bin: remote host over SSH', () => {
  let sshd: SshdFixture;
  let client: McpClient;
  let host: string;
  before(async () => {
    sshd = await startSshd({ remoteTopupScript: topupCommand().wrapper });
    host = sshd.hostAlias;
    client = await startLocalTopup(sshd.clientHome);
  });
  after(async () => {
    await client?.close();
    await sshd?.close();
  });

  test('start_session, then eval runs on the remote toplevel, separate from the local one', async () => {
    const started = await call(client, 'start_session', { host });
    assert.equal(started.isError, false, JSON.stringify(started.payload));
    assert.equal(started.payload.remote_socket, join(sshd.remoteHome, '.topup/sockets/topup.sock'));

    const remote = await call(client, 'eval', { source: 'let where = Sys.getenv "HOME";;', host });
    assert.equal(remote.isError, false, JSON.stringify(remote.payload));
    assert.equal((remote.payload as Eval).error, null, JSON.stringify(remote.payload));

    const local = await call(client, 'eval', { source: 'where;;' });
    assert.notEqual((local.payload as Eval).error, null, 'the remote binding does not exist locally');
    const again = await call(client, 'eval', { source: 'where;;', host });
    assert.equal((again.payload as Eval).value_repr, JSON.stringify(sshd.remoteHome));

    const both = await call(client, 'eval', { source: '1;;', host, session: 'x' });
    assert.equal(both.isError, true);
    assert.match(both.payload.error, /mutually exclusive/);
  });

  test('a routed notifications/cancelled interrupts an infinite loop on the remote', async () => {
    const marker = join(sshd.remoteHome, 'loop-started');
    const ac = new AbortController();
    const source = `let () = close_out (open_out ${JSON.stringify(marker)}) in let rec spin n = spin (n + 1) in spin 0;;`;
    const pending = call(client, 'eval', { source, host }, ac.signal);
    pending.catch(() => {});
    await waitFor('the remote loop to start', () => existsSync(marker), 60_000);
    ac.abort();
    await assert.rejects(pending);
    // The remote toplevel is free again: a new eval answers (it would queue behind the loop otherwise).
    const after = await client.callTool('eval', { source: '20 + 22;;', host }, { timeoutMs: 60_000 });
    assert.equal((parseToolPayload(after) as Eval).value_repr, '42');
  });

  test('the cancel tool with host interrupts the routed eval (bare cancel stays local)', async () => {
    const marker = join(sshd.remoteHome, 'loop2-started');
    const source = `let () = close_out (open_out ${JSON.stringify(marker)}) in let rec spin n = spin (n + 1) in spin 0;;`;
    const pending = call(client, 'eval', { source, host });
    await waitFor('the remote loop to start', () => existsSync(marker), 60_000);
    const bare = await call(client, 'cancel', {});
    assert.equal(bare.payload.cancelled, false, 'nothing runs locally; the remote loop is not touched');
    const routed = await call(client, 'cancel', { host });
    assert.equal(routed.payload.cancelled, true);
    const result = await pending;
    assert.notEqual((result.payload as Eval).error, null, 'the interrupted eval reports an error');
  });

  test('notifications/cancelled naming host but no live request interrupts what runs there', async () => {
    const marker = join(sshd.remoteHome, 'loop3-started');
    const source = `let () = close_out (open_out ${JSON.stringify(marker)}) in let rec spin n = spin (n + 1) in spin 0;;`;
    const pending = call(client, 'eval', { source, host });
    await waitFor('the remote loop to start', () => existsSync(marker), 60_000);
    client.notify('notifications/cancelled', { requestId: 'not-a-live-request', host, reason: 'test' });
    const result = await pending;
    assert.notEqual((result.payload as Eval).error, null, 'the interrupted eval reports an error');
  });

  test('restart_session after the remote daemon was killed', async () => {
    await call(client, 'eval', { source: 'let survivor = 1;;', host });
    const killed = sshd.killRemoteDaemons();
    assert.equal(killed.length, 1);
    await waitFor('the dead daemon to be noticed', async () => {
      const r = await call(client, 'eval', { source: '1;;', host });
      return r.isError && /restart_session/.test(r.payload.error);
    });
    const restarted = await call(client, 'restart_session', { host });
    assert.equal(restarted.isError, false, JSON.stringify(restarted.payload));
    const fresh = await call(client, 'eval', { source: 'survivor;;', host });
    assert.notEqual((fresh.payload as Eval).error, null, 'a new daemon has a fresh toplevel');
    const ok = await call(client, 'eval', { source: '6 * 7;;', host });
    assert.equal((ok.payload as Eval).value_repr, '42');
  });

  test('push_file / pull_file through the bin keep the SHA-256; the remote default is under the remote HOME', async () => {
    const src = join(sshd.clientHome, 'data.bin');
    const data = randomBytes(1024 * 1024 + 3);
    writeFileSync(src, data);
    const pushed = await call(client, 'push_file', { host, local_path: src });
    assert.equal(pushed.isError, false, JSON.stringify(pushed.payload));
    assert.deepEqual(pushed.payload, { remote_path: join(sshd.remoteHome, '.topup/xfer/data.bin'), bytes: data.length });
    const pulled = await call(client, 'pull_file', {
      host,
      remote_path: pushed.payload.remote_path,
      local_path: join(sshd.clientHome, 'data.back'),
    });
    assert.equal(pulled.isError, false, JSON.stringify(pulled.payload));
    const sha = (b: Buffer) => sha256Hex(b);
    assert.equal(sha(readFileSync(join(sshd.clientHome, 'data.back'))), sha(data));
  });

  test('a second local topup is told who holds the remote daemon; restart_session {daemon: "stop"} frees it', {
    timeout: 180_000,
  }, async () => {
    await call(client, 'eval', { source: 'let held = 1;;', host });
    const pid = Number(readFileSync(join(sshd.remoteHome, '.topup/sockets/topup.sock.pid'), 'utf8').trim());
    const second = await startLocalTopup(sshd.clientHome);
    try {
      const refused = await call(second, 'start_session', { host });
      assert.equal(refused.isError, true);
      assert.equal(refused.payload.phase, 'connect');
      assert.equal(refused.payload.reason, 'busy');
      // The holder is the first local topup's router (another process than this test).
      assert.match(refused.payload.held_by, new RegExp(`^topup routing on ${hostname()} \\(pid \\d+\\) for host "${host}"`));
      assert.doesNotMatch(refused.payload.held_by, new RegExp(`pid ${process.pid}\\)`));

      const stopped = await call(client, 'restart_session', { host, daemon: 'stop' });
      assert.equal(stopped.isError, false, JSON.stringify(stopped.payload));
      assert.equal(stopped.payload.daemon_pid, pid);
      await waitFor('the remote daemon to exit', () => !processAlive(pid), 30_000);

      const taken = await call(second, 'start_session', { host });
      assert.equal(taken.isError, false, JSON.stringify(taken.payload));
      const fresh = await call(second, 'eval', { source: 'held;;', host });
      assert.notEqual((fresh.payload as Eval).error, null, 'a new daemon: the old binding is gone');
      await call(second, 'restart_session', { host, daemon: 'stop' });
    } finally {
      await second.close();
    }
    const back = await call(client, 'start_session', { host });
    assert.equal(back.isError, false, JSON.stringify(back.payload));
  });

  test('checkpoints with host live under the remote home', async () => {
    await call(client, 'eval', { source: 'let kept = 5;;', host });
    const cp = await call(client, 'checkpoint', { label: 'remote-cp', host });
    assert.equal(cp.isError, false, JSON.stringify(cp.payload));
    assert.ok(existsSync(join(sshd.remoteHome, '.topup/checkpoints/remote-cp.ml')));
    assert.equal(existsSync(join(sshd.clientHome, '.topup/checkpoints/remote-cp.ml')), false);
  });
});

describe('topup bin: named local sessions and instructions', () => {
  let sshd: SshdFixture;
  let client: McpClient;
  before(async () => {
    // An sshd only so that a host is registered for the instructions test.
    sshd = await startSshd({ remoteTopupScript: topupCommand().wrapper });
    client = await startLocalTopup(sshd.clientHome);
  });
  after(async () => {
    await client?.close();
    await sshd?.close();
  });

  test('prewarm + pool: siblings share the prewarm; restore on a sibling branches off', async () => {
    const prewarm = join(sshd.clientHome, 'prewarm.ml');
    writeFileSync(prewarm, 'let base = 41\n');
    const started = await call(client, 'start_local_session', { session: 'exp', prewarm, pool: 2 });
    assert.equal(started.isError, false, JSON.stringify(started.payload));
    assert.deepEqual(started.payload.members, ['exp', 'exp.1']);

    const onPrimary = await call(client, 'eval', { source: 'let x = base + 1;;', session: 'exp' });
    assert.equal((onPrimary.payload as Eval).error, null, JSON.stringify(onPrimary.payload));
    assert.equal(((await call(client, 'eval', { source: 'x;;', session: 'exp' })).payload as Eval).value_repr, '42');
    const onSibling = await call(client, 'eval', { source: 'base;;', session: 'exp.1' });
    assert.equal((onSibling.payload as Eval).value_repr, '41', 'the sibling was prewarmed too');
    const local = await call(client, 'eval', { source: 'base;;' });
    assert.notEqual((local.payload as Eval).error, null, 'the local toplevel is separate');

    const cp = await call(client, 'checkpoint', { label: 'branch', session: 'exp' });
    assert.equal(cp.isError, false, JSON.stringify(cp.payload));
    const restored = await call(client, 'restore', { label: 'branch', session: 'exp.1' });
    assert.equal(restored.isError, false, JSON.stringify(restored.payload));
    const x = await call(client, 'eval', { source: 'x * 2;;', session: 'exp.1' });
    assert.equal((x.payload as Eval).value_repr, '84');
  });

  test('a failing prewarm stops the child and returns the error', async () => {
    const bad = join(sshd.clientHome, 'bad.ml');
    writeFileSync(bad, 'let broken = undefined_identifier + 1\n');
    const r = await call(client, 'start_local_session', { session: 'bad', prewarm: bad });
    assert.equal(r.isError, true);
    assert.equal(r.payload.phase, 'prewarm');
    assert.match(r.payload.error, /undefined_identifier|Unbound/);
    const routed = await call(client, 'eval', { source: '1;;', session: 'bad' });
    assert.equal(routed.isError, true);
    assert.match(routed.payload.error, /unknown session "bad"/);
  });

  test('cancelling start_local_session during a prewarm that never ends stops the child', async () => {
    const marker = join(sshd.clientHome, 'prewarm-started');
    const endless = join(sshd.clientHome, 'endless.ml');
    writeFileSync(endless, `let () = close_out (open_out ${JSON.stringify(marker)})\nlet rec spin n = spin (n + 1)\nlet () = spin 0\n`);
    const ac = new AbortController();
    const pending = call(client, 'start_local_session', { session: 'endless', prewarm: endless }, ac.signal);
    pending.catch(() => {});
    await waitFor('the prewarm to start', () => existsSync(marker), 60_000);
    ac.abort();
    await assert.rejects(pending);
    await waitFor('the cancelled session to be gone', async () => {
      const r = await call(client, 'eval', { source: '1;;', session: 'endless' });
      return r.isError && /unknown session "endless"/.test(r.payload.error);
    });
  });

  test('instructions of the next initialize list hosts (with update_host metadata) and sessions', async () => {
    const started = await call(client, 'start_session', { host: sshd.hostAlias });
    assert.equal(started.isError, false, JSON.stringify(started.payload));
    await call(client, 'update_host', { host: sshd.hostAlias, description: 'loopback builder', os: 'Debian 12' });
    // A second topup with the same HOME: hosts.json and sessions.json are what it knows.
    const second = await startLocalTopup(sshd.clientHome);
    try {
      const text = second.instructions ?? '';
      assert.match(text, new RegExp(`${sshd.hostAlias}: not connected \\(start_session\\) — os: Debian 12; loopback builder`));
      assert.match(text, /- exp: not running \(start_local_session\) — prewarm .*prewarm\.ml; pool 2/);
    } finally {
      await second.close();
    }
  });
});
