// File-transfer rules on their own: env parsing, default and explicit paths, caps, base64 checks,
// and the blob tools acting on this machine's file system.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import {
  transferPolicy,
  resolveTransferPath,
  decodeCapped,
  DEFAULT_XFER_MAX_BYTES,
} from '../../../../adapters/topup/routing/transfer-policy.js';
import { startHarness, tempDir } from './harness.js';

describe('transfer policy', () => {
  test('defaults: 16 MiB cap, ~/.topup/xfer', () => {
    const p = transferPolicy({}, '/home/u');
    assert.equal(p.maxBytes, 16 * 1024 * 1024);
    assert.equal(DEFAULT_XFER_MAX_BYTES, 16 * 1024 * 1024);
    assert.equal(p.dir, '/home/u/.topup/xfer');
    assert.equal(resolveTransferPath(p, undefined, '/some/where/file.txt', 'remote_path'), '/home/u/.topup/xfer/file.txt');
    assert.equal(resolveTransferPath(p, '~/x/y', 'ignored', 'remote_path'), '/home/u/x/y');
  });

  test('TOPUP_XFER_DIR=off requires explicit paths; relative paths and bad caps are refused', () => {
    const off = transferPolicy({ TOPUP_XFER_DIR: 'off' }, '/home/u');
    assert.equal(off.dir, null);
    assert.throws(() => resolveTransferPath(off, undefined, 'f', 'local_path'), /TOPUP_XFER_DIR is "off", so local_path must be given/);
    assert.throws(() => resolveTransferPath(off, 'rel/path', 'f', 'local_path'), /is relative; expected an absolute path/);
    assert.throws(
      () => transferPolicy({ TOPUP_XFER_MAX_BYTES: '12MB' }, '/h'),
      /TOPUP_XFER_MAX_BYTES is "12MB"; expected a positive whole number/,
    );
    assert.equal(transferPolicy({ TOPUP_XFER_MAX_BYTES: '1024', TOPUP_XFER_DIR: '/data/x' }, '/h').dir, '/data/x');
  });

  test('base64 payloads are size-checked before decoding and validated', () => {
    const b64 = Buffer.from('hello world').toString('base64');
    assert.equal(decodeCapped(b64, 100).toString(), 'hello world');
    assert.throws(() => decodeCapped(b64, 5), /over the transfer cap of 5 bytes/);
    assert.throws(() => decodeCapped('ab!d', 100), /not valid base64/);
    assert.throws(() => decodeCapped('abc', 100), /not valid base64/);
  });
});

describe('blob tools on this machine', () => {
  test('_recv_blob: chunks in any order, commit renames atomically under TOPUP_XFER_DIR (basename only); abort and gaps leave nothing', async () => {
    const dir = tempDir('topup-blob-');
    const h = await startHarness({ home: dir.path, env: { HOME: dir.path, TOPUP_XFER_MAX_BYTES: '64' } });
    try {
      const listed = await h.client.listTools();
      assert.equal(
        listed.some((t) => t.name.startsWith('_')),
        false,
        'blob tools are not listed',
      );
      const xfer = join(dir.path, '.topup', 'xfer');
      const chunk = (transfer: string, offset: number, text: string, total: number, name = '../../escape.txt') =>
        h.call('_recv_blob', { op: 'chunk', transfer, name, total, offset, data: Buffer.from(text).toString('base64') });
      // Second half first: chunks may arrive in any order.
      assert.equal((await chunk('transfer01', 5, 'bytes\n', 11)).isError, false);
      assert.equal((await chunk('transfer01', 0, 'some ', 11)).isError, false);
      const committed = await h.call('_recv_blob', { op: 'commit', transfer: 'transfer01' });
      assert.equal(committed.isError, false, JSON.stringify(committed.payload));
      assert.deepEqual(committed.payload, { path: join(xfer, 'escape.txt'), bytes: 11 });
      assert.equal(readFileSync(join(xfer, 'escape.txt'), 'utf8'), 'some bytes\n');
      assert.deepEqual(readdirSync(xfer), ['escape.txt'], 'no .tmp file is left behind');

      await chunk('transfer02', 0, 'abc', 6, 'gap.txt');
      const gap = await h.call('_recv_blob', { op: 'commit', transfer: 'transfer02' });
      assert.equal(gap.isError, true);
      assert.match(gap.payload.error, /incomplete: 3 of 6 bytes/);
      await chunk('transfer03', 0, 'abc', 6, 'aborted.txt');
      await h.call('_recv_blob', { op: 'abort', transfer: 'transfer03' });
      assert.deepEqual(readdirSync(xfer), ['escape.txt'], 'incomplete and aborted transfers leave nothing');

      const over = await chunk('transfer04', 0, 'x', 65, 'big.txt');
      assert.equal(over.isError, true);
      assert.equal(over.payload.phase, 'cap');
      assert.match(over.payload.error, /65 bytes, over the transfer cap of 64 bytes/);
      const pastEnd = await chunk('transfer05', 4, 'xyz', 5, 'past.txt');
      assert.match(pastEnd.payload.error, /runs past the announced size/);
    } finally {
      await h.close();
      dir.remove();
    }
  });

  test('_send_blob: slices with size and mtime; the smaller cap applies before reading', async () => {
    const dir = tempDir('topup-blob-');
    const h = await startHarness({ home: dir.path, env: { HOME: dir.path, TOPUP_XFER_MAX_BYTES: '64' } });
    try {
      const file = join(dir.path, 'f.txt');
      writeFileSync(file, '0123456789');
      const part = await h.call('_send_blob', { path: '~/f.txt', offset: 4, length: 3 });
      assert.equal(part.isError, false, JSON.stringify(part.payload));
      assert.equal(Buffer.from(part.payload.data, 'base64').toString(), '456');
      assert.equal(part.payload.bytes, 10);
      assert.equal(typeof part.payload.mtime_ms, 'number');
      const capped = await h.call('_send_blob', { path: file, max_bytes: 4 });
      assert.equal(capped.payload.phase, 'cap');
      writeFileSync(file, 'x'.repeat(65));
      const over = await h.call('_send_blob', { path: file });
      assert.match(over.payload.error, /65 bytes, over the transfer cap of 64 bytes .*nothing was read/);
      const relative = await h.call('_send_blob', { path: 'f.txt' });
      assert.match(relative.payload.error, /is relative/);
    } finally {
      await h.close();
      dir.remove();
    }
  });
});
