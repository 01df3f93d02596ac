// File-transfer rules on their own: env parsing, default and explicit paths, caps, base64 checks,
// and the blob tools acting on this machine's file system.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { transferPolicy, resolveTransferPath, decodeCapped, DEFAULT_XFER_MAX_BYTES } from '../../adapters/topup/routing/transfer-policy.js';
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
    assert.throws(() => transferPolicy({ TOPUP_XFER_MAX_BYTES: '12MB' }, '/h'), /TOPUP_XFER_MAX_BYTES is "12MB"; expected a positive whole number/);
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
  test('_recv_blob writes atomically under TOPUP_XFER_DIR; _send_blob reads back; the smaller cap applies', async () => {
    const dir = tempDir('topup-blob-');
    const h = await startHarness({ home: dir.path, env: { HOME: dir.path, TOPUP_XFER_MAX_BYTES: '64' } });
    try {
      const listed = await h.client.listTools();
      assert.equal(listed.some((t) => t.name.startsWith('_')), false, 'blob tools are not listed');
      const data = Buffer.from('some bytes\n');
      const recv = await h.call('_recv_blob', { name: '../../escape.txt', data: data.toString('base64') });
      assert.equal(recv.isError, false, JSON.stringify(recv.payload));
      // The default path uses the basename only: it cannot leave the transfer directory.
      assert.equal(recv.payload.path, join(dir.path, '.topup', 'xfer', 'escape.txt'));
      assert.deepEqual(readFileSync(recv.payload.path), data);
      assert.deepEqual(readdirSync(join(dir.path, '.topup', 'xfer')), ['escape.txt'], 'no .tmp file is left behind');

      const send = await h.call('_send_blob', { path: recv.payload.path });
      assert.equal(Buffer.from(send.payload.data, 'base64').toString(), 'some bytes\n');
      const capped = await h.call('_send_blob', { path: recv.payload.path, max_bytes: 4 });
      assert.equal(capped.isError, true);
      assert.equal(capped.payload.phase, 'cap');

      const big = join(dir.path, 'big.txt');
      writeFileSync(big, 'x'.repeat(65));
      const over = await h.call('_send_blob', { path: big });
      assert.equal(over.isError, true);
      assert.match(over.payload.error, /65 bytes, over the transfer cap of 64 bytes/);
      const overRecv = await h.call('_recv_blob', { name: 'big', data: Buffer.from('x'.repeat(65)).toString('base64') });
      assert.equal(overRecv.isError, true);
      assert.equal(overRecv.payload.phase, 'cap');
    } finally {
      await h.close();
      dir.remove();
    }
  });
});
