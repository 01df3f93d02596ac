// common/: the shared plumbing behaves as its callers rely on.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  CancelledError,
  FileTooLargeError,
  JsonFileStore,
  LeaseTable,
  NotARegularFileError,
  SerialQueue,
  UsageError,
  checkFileSize,
  closeServer,
  createLogger,
  listenLoopback,
  readFileCapped,
  sha256File,
  sha256Hex,
  writeFileDurable,
  writeJsonDurable,
} from '../../common/index.js';

const dir = mkdtempSync(join(tmpdir(), 'common-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('writeFileDurable replaces the file whole, with mode 0600 by default, and leaves no temp file', async () => {
  const path = join(dir, 'nested', 'a.txt');
  await writeFileDurable(path, 'first');
  await writeFileDurable(path, 'second');
  assert.equal(readFileSync(path, 'utf8'), 'second');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(join(dir, 'nested')), ['a.txt']);
  await writeJsonDurable(path, { a: 1 }, { mode: 0o644 });
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { a: 1 });
  assert.equal(statSync(path).mode & 0o777, 0o644);
});

test('writeFileDurable that fails leaves the old content and no temp file behind', async () => {
  const sub = join(dir, 'readonly');
  mkdirSync(sub);
  const path = join(sub, 'x');
  writeFileSync(path, 'old');
  chmodSync(sub, 0o500);
  try {
    // root ignores directory permissions, so force a failure another way when running as root
    const target = process.getuid?.() === 0 ? join(path, 'not-a-dir', 'y') : path;
    await assert.rejects(writeFileDurable(target, 'new', { mkdirs: false }));
  } finally {
    chmodSync(sub, 0o700);
  }
  assert.equal(readFileSync(path, 'utf8'), 'old');
  assert.deepEqual(readdirSync(sub), ['x']);
});

test('JsonFileStore: a missing file is the initial value; concurrent updates never lose each other', async () => {
  const store = new JsonFileStore(
    join(dir, 'store.json'),
    (raw) => {
      if (typeof raw !== 'object' || raw === null || typeof (raw as { n?: unknown }).n !== 'number') throw new Error('bad shape');
      return raw as { n: number };
    },
    () => ({ n: 0 }),
  );
  assert.deepEqual(await store.read(), { n: 0 });
  await Promise.all(Array.from({ length: 25 }, () => store.update((s) => ({ n: s.n + 1 }))));
  assert.deepEqual(await store.read(), { n: 25 });
  writeFileSync(store.path, '{not json');
  await assert.rejects(store.read(), /store\.json is not valid JSON/);
});

test('SerialQueue runs one at a time in order; an aborted waiter never runs', async () => {
  const q = new SerialQueue();
  const order: string[] = [];
  let release!: () => void;
  const first = q.run(
    () =>
      new Promise<void>((r) => {
        order.push('first');
        release = r;
      }),
  );
  const ac = new AbortController();
  const dropped = q.run(async () => {
    order.push('dropped');
  }, ac.signal);
  const third = q.run(async () => {
    order.push('third');
  });
  ac.abort();
  await assert.rejects(dropped, CancelledError);
  release();
  await Promise.all([first, third]);
  assert.deepEqual(order, ['first', 'third']);
  assert.equal(q.idle, true);
});

test('LeaseTable serializes holders of one name, not of different names, and says who holds it', async () => {
  const leases = new LeaseTable();
  const events: string[] = [];
  let releaseA!: () => void;
  const a = leases.with('ultimate', 'job-a', async () => {
    events.push('a start');
    await new Promise<void>((r) => {
      releaseA = r;
    });
    events.push('a end');
  });
  const b = leases.with('ultimate', 'job-b', async () => {
    events.push('b start');
  });
  await leases.with('vice', 'job-c', async () => {
    events.push('c ran');
  });
  assert.equal(leases.holder('ultimate'), 'job-a');
  releaseA();
  await Promise.all([a, b]);
  assert.deepEqual(events, ['a start', 'c ran', 'a end', 'b start']);
  assert.equal(leases.holder('ultimate'), undefined);
});

test('sha256 of bytes and of a streamed file agree', async () => {
  const path = join(dir, 'hash.bin');
  const data = Buffer.alloc(300_000, 7);
  writeFileSync(path, data);
  assert.deepEqual(await sha256File(path), { sha256: sha256Hex(data), size: data.length });
  assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('readFileCapped refuses an oversized file or a directory before reading it', async () => {
  const path = join(dir, 'cap.bin');
  writeFileSync(path, Buffer.alloc(1025));
  await assert.rejects(readFileCapped(path, 1024), (e: unknown) => e instanceof FileTooLargeError && e.size === 1025 && e.cap === 1024);
  assert.equal((await readFileCapped(path, 2048)).length, 1025);
  assert.equal(await checkFileSize(path, 1025), 1025);
  await assert.rejects(checkFileSize(dir, 10), NotARegularFileError);
});

test('listenLoopback binds 127.0.0.1 and reports the port; closeServer waits', async () => {
  const server = createServer();
  const port = await listenLoopback(server);
  const addr = server.address();
  assert.ok(typeof addr === 'object' && addr !== null);
  assert.equal(addr.address, '127.0.0.1');
  assert.equal(addr.port, port);
  await closeServer(server);
  assert.equal(server.listening, false);
  await closeServer(server);
});

test('the logger writes levels at or above its threshold, scoped, and children keep the scope path', () => {
  const lines: string[] = [];
  const log = createLogger('core', 'info', (l) => lines.push(l));
  log.debug('hidden');
  log.info('shown');
  log.child('router').error('bad');
  assert.deepEqual(lines, ['[core] info: shown\n', '[core/router] error: bad\n']);
});

test('UsageError carries exit code 64', () => {
  assert.equal(new UsageError('x').exitCode, 64);
});
