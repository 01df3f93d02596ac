// The Unix-socket transport: owner-only file, reconnect keeps server state, stale file replaced,
// live one refused, a second client refused as documented.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { binCommand } from '../helpers/bin.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { createEchoServer } from '../../examples/echo-server.js';
import { McpClient, parseToolPayload } from '../../src/index.js';
import { connectUnixSocket, serveUnixSocket, SocketInUseError, SOCKET_BUSY_CODE, type UnixSocketListener } from '../../transports/index.js';

let dir: string;
let path: string;
let listener: UnixSocketListener | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-sock-'));
  path = join(dir, 'server.sock');
});
afterEach(async () => {
  await listener?.close();
  listener = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function connectClient(): Promise<McpClient> {
  const client = new McpClient({ name: 't', version: '1' });
  await client.connect(await connectUnixSocket(path));
  return client;
}

test('the socket file is created with mode 0600', async () => {
  const previous = process.umask(0o000); // even under a permissive umask
  try {
    listener = await serveUnixSocket(path, () => {});
  } finally {
    process.umask(previous);
  }
  const info = await stat(path);
  assert.ok(info.isSocket());
  assert.equal(info.mode & 0o777, 0o600);
});

test('server state outlives connections: reconnect and continue', async () => {
  const server = createEchoServer();
  listener = await serveUnixSocket(path, (t) => server.connect(t));
  const first = await connectClient();
  const a = parseToolPayload(await first.callTool('echo', { text: 'a' })) as any;
  assert.equal(a.calls, 1);
  await first.close();
  // The listener notices the disconnect before it accepts the next client.
  const second = await connectWhenFree();
  const b = parseToolPayload(await second.callTool('echo', { text: 'b' })) as any;
  assert.equal(b.calls, 2, 'the counter kept in the server survived the reconnect');
  await second.close();
});

async function connectWhenFree(): Promise<McpClient> {
  for (let i = 0; i < 200; i++) {
    if (!listener!.busy) return connectClient();
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('listener stayed busy after the client disconnected');
}

test('a second client gets one -32001 "server busy" error and is disconnected; the first is unaffected', async () => {
  const server = createEchoServer();
  listener = await serveUnixSocket(path, (t) => server.connect(t));
  const first = await connectClient();
  const raw = createConnection(path);
  let text = '';
  raw.setEncoding('utf8');
  raw.on('data', (c) => (text += c));
  await once(raw, 'close');
  const message = JSON.parse(text.trim());
  assert.equal(message.id, null);
  assert.equal(message.error.code, SOCKET_BUSY_CODE);
  assert.match(message.error.message, /one client at a time/);
  // Our client reports the reason when refused.
  const refused = new McpClient({ name: 'second', version: '1' });
  await assert.rejects(refused.connect(await connectUnixSocket(path)), /server busy/);
  const r = parseToolPayload(await first.callTool('echo', { text: 'still mine' })) as any;
  assert.equal(r.text, 'still mine');
  await first.close();
});

test('a stale socket file left by a dead process is replaced', async () => {
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout!, 'data');
  child.kill('SIGKILL');
  await once(child, 'exit');
  assert.ok((await stat(path)).isSocket(), 'the dead process left its socket file');
  const server = createEchoServer();
  listener = await serveUnixSocket(path, (t) => server.connect(t));
  const client = await connectClient();
  assert.equal((parseToolPayload(await client.callTool('echo', { text: 'x' })) as any).text, 'x');
  await client.close();
});

test('a live socket is refused with a clear error', async () => {
  listener = await serveUnixSocket(path, () => {});
  await assert.rejects(
    serveUnixSocket(path, () => {}),
    (e: Error) => e instanceof SocketInUseError && /already listening/.test(e.message),
  );
});

test('a path that is not a socket is never replaced', async () => {
  await writeFile(path, 'precious');
  await assert.rejects(
    serveUnixSocket(path, () => {}),
    /not a socket/,
  );
  assert.equal((await stat(path)).size, 'precious'.length);
});

test('connecting to nothing names the problem', async () => {
  await assert.rejects(connectUnixSocket(path), /no socket at/);
});

test('20 quick reconnects are all accepted: a client that closed is never "server busy" to the next', { timeout: 60_000 }, async () => {
  const server = createEchoServer();
  listener = await serveUnixSocket(path, (t) => server.connect(t));
  for (let i = 1; i <= 20; i++) {
    // No waiting for the listener to notice the close: the next client connects right away.
    const client = await connectClient();
    const r = parseToolPayload(await client.callTool('echo', { text: `n${i}` })) as { calls: number };
    assert.equal(r.calls, i);
    await client.close();
  }
});

test('the busy answer names who holds the socket (MCP clientInfo) and since when', async () => {
  const server = createEchoServer();
  listener = await serveUnixSocket(path, (t) => server.connect(t));
  const first = new McpClient({ name: 'first-holder', version: '7.7' });
  await first.connect(await connectUnixSocket(path));
  const refused = new McpClient({ name: 'second', version: '1' });
  await assert.rejects(refused.connect(await connectUnixSocket(path)), /server busy.*held by first-holder 7\.7 since \d{4}-\d\d-\d\dT/);
  await first.close();
});

test('a socket path over the platform limit is refused up front, and nothing is created', async () => {
  const longDir = join(dir, 'd'.repeat(60));
  const longPath = join(longDir, `${'s'.repeat(60)}.sock`);
  assert.ok(Buffer.byteLength(longPath) > 107);
  await assert.rejects(
    serveUnixSocket(longPath, () => {}),
    (e: Error) => /socket path .* is \d+ bytes; Unix sockets allow at most 107/.test(e.message),
  );
  assert.deepEqual(await readdir(dir), [], 'no directory and no socket at a truncated path');
  await assert.rejects(connectUnixSocket(longPath), /at most 107/);
});

test('topup --socket with an over-long path exits at once with a clear error', { timeout: 60_000 }, async () => {
  const longPath = join(dir, 'x'.repeat(120), 'topup.sock');
  const { command, args } = binCommand('topup');
  const child = spawn(command, [...args, '--socket', longPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b) => (stderr += b));
  const exited = once(child, 'exit');
  // Before the fix the bin hung here; the test timeout must not leave it running.
  const [code] = await exited.finally(() => child.kill('SIGKILL'));
  assert.notEqual(code, 0);
  assert.match(stderr, /at most 107 bytes/);
  assert.deepEqual(await readdir(dir), []);
});

test('topup --socket: 20 quick reconnects with the official SDK client are all accepted, state kept', { timeout: 180_000 }, async () => {
  const home = join(dir, 'home');
  const socketPath = join(dir, 'topup.sock');
  const { command, args } = binCommand('topup', ['--socket', socketPath]);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const k of ['TOPUP_LOG', 'TOPUP_CHECKPOINT_DIR', 'TOPUP_XFER_DIR', 'SSH_AUTH_SOCK']) delete env[k];
  const server = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    await new Promise<void>((resolve, reject) => {
      let text = '';
      server.stderr!.on('data', (b) => {
        text += b;
        if (text.includes('serving on')) resolve();
      });
      server.once('exit', (code) => reject(new Error(`topup --socket exited with code ${code}: ${text}`)));
    });
    const evalOnce = async (source: string) => {
      const client = new Client({ name: 'reconnect-test', version: '1' });
      await client.connect(await connectUnixSocket(socketPath));
      try {
        const r = await client.callTool({ name: 'eval', arguments: { source } });
        const text = (r.content as { type: string; text: string }[])[0]!.text;
        return JSON.parse(text) as { value_repr: string | null; error: unknown };
      } finally {
        await client.close();
      }
    };
    await evalOnce('let count = ref 0;;');
    for (let i = 1; i <= 20; i++) {
      // Each client disconnects and the next connects at once: never "server busy".
      const r = await evalOnce('incr count; !count;;');
      assert.equal(r.error, null, JSON.stringify(r));
      assert.equal(r.value_repr, String(i));
    }
  } finally {
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    await exited;
  }
});
