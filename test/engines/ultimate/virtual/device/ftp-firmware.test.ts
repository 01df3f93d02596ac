// The virtual FTP server's firmware-3.15 control-connection reaper (configurable, here short), and
// that a finished transfer leaves no timer behind.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { waitFor } from '../../helpers.js';
import { VirtualFtpServer } from '../../../../../engines/ultimate/virtual/device/ftp-server.js';
import { VirtualFs } from '../../../../../engines/ultimate/virtual/device/virtual-fs.js';
import { UltimateFtp } from '../../../../../engines/ultimate/index.js';

interface Raw {
  send(line: string): Promise<string>;
  /** The next reply without sending anything (e.g. the 226 after a transfer). */
  next(): Promise<string>;
  closed(): boolean;
  close(): void;
}

async function rawSession(port: number): Promise<Raw> {
  const s = net.connect({ host: '127.0.0.1', port });
  let buf = '';
  let closed = false;
  const replies: string[] = [];
  const waiters: Array<(reply: string) => void> = [];
  s.setEncoding('latin1');
  s.on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 2);
      if (!/^\d{3} /.test(line)) continue;
      const w = waiters.shift();
      if (w) w(line);
      else replies.push(line);
    }
  });
  s.on('close', () => {
    closed = true;
  });
  s.on('error', () => undefined);
  const next = () => {
    const r = replies.shift();
    return r !== undefined ? Promise.resolve(r) : new Promise<string>((res) => waiters.push(res));
  };
  await next(); // greeting
  return {
    send(line) {
      s.write(`${line}\r\n`);
      return next();
    },
    next,
    closed: () => closed,
    close: () => s.destroy(),
  };
}

function pasvPort(reply: string): number {
  const m = /\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)/.exec(reply);
  assert.ok(m, `a PASV reply: ${reply}`);
  return Number(m[5]) * 256 + Number(m[6]);
}

describe('FTP control idle reaper (firmware 3.15, 300 s; configurable)', () => {
  test('a control connection without commands is closed after the idle time; one whose transfer runs longer is not', {
    timeout: 30_000,
  }, async () => {
    const server = new VirtualFtpServer({ fs: new VirtualFs(), controlIdleMs: 400 });
    const port = await server.listen(0);
    try {
      // A session in the middle of an upload whose data connection stays open.
      const busy = await rawSession(port);
      assert.match(await busy.send('USER u'), /^331 /);
      assert.match(await busy.send('PASS p'), /^230 /);
      const dataPort = pasvPort(await busy.send('PASV'));
      const data = net.connect({ host: '127.0.0.1', port: dataPort });
      await new Promise<void>((r) => data.once('connect', () => r()));
      assert.match(await busy.send('STOR /Temp/slow.bin'), /^150 /);
      data.write(Buffer.alloc(100, 1));
      // A second, idle session opened after the upload began: its reaping proves that more than
      // the idle time has passed since the busy session's last command.
      const idle = await rawSession(port);
      await waitFor(
        'the idle session to be reaped',
        () => idle.closed(),
        (c) => c,
      );
      assert.equal(busy.closed(), false, 'a running transfer is not idle');
      data.end(Buffer.alloc(100, 2));
      assert.match(await busy.next(), /^226 /);
      assert.match(await busy.send('SIZE /Temp/slow.bin'), /^213 200$/);
      // Then, with nothing more to do, the busy session is reaped too.
      await waitFor(
        'the finished session to be reaped',
        () => busy.closed(),
        (c) => c,
      );
    } finally {
      await server.close();
    }
  });

  test('null disables the reaper (firmware 3.14): the session outlives another server’s reaping', { timeout: 30_000 }, async () => {
    const never = new VirtualFtpServer({ fs: new VirtualFs(), controlIdleMs: null });
    const reaping = new VirtualFtpServer({ fs: new VirtualFs(), controlIdleMs: 300 });
    const neverPort = await never.listen(0);
    const reapingPort = await reaping.listen(0);
    try {
      const kept = await rawSession(neverPort);
      const reaped = await rawSession(reapingPort);
      await waitFor(
        'the 3.15 session to be reaped',
        () => reaped.closed(),
        (c) => c,
      );
      assert.equal(kept.closed(), false);
      assert.match(await kept.send('USER u'), /^331 /);
      kept.close();
    } finally {
      await never.close();
      await reaping.close();
    }
  });
});

describe('the FTP client after the device reaped its idle control connection', () => {
  test('the next operation reconnects and succeeds', { timeout: 30_000 }, async () => {
    const server = new VirtualFtpServer({ fs: new VirtualFs(), controlIdleMs: 300 });
    const port = await server.listen(0);
    const ftp = new UltimateFtp({ host: '127.0.0.1', port, timeoutMs: 10_000 });
    try {
      await ftp.upload('/Temp/a.bin', Uint8Array.of(1, 2, 3));
      await waitFor(
        'the reaper to close the client connection',
        () => server.sessionCount,
        (n) => n === 0,
      );
      assert.deepEqual([...(await ftp.download('/Temp/a.bin'))], [1, 2, 3]);
    } finally {
      await ftp.close();
      await server.close();
    }
  });
});

describe('FTP passive transfer timers', () => {
  test('a finished passive transfer leaves no pending timer (the accept timeout is cleared)', { timeout: 30_000 }, async () => {
    const server = new VirtualFtpServer({ fs: new VirtualFs(), controlIdleMs: null });
    const port = await server.listen(0);
    const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    try {
      const s = await rawSession(port);
      await s.send('USER u');
      await s.send('PASS p');
      const before = timeouts();
      for (let i = 0; i < 3; i++) {
        const dataPort = pasvPort(await s.send('PASV'));
        const data = net.connect({ host: '127.0.0.1', port: dataPort });
        data.resume();
        const ended = new Promise<void>((r) => data.once('close', () => r()));
        assert.match(await s.send('LIST /'), /^150 /);
        assert.match(await s.next(), /^226 /);
        await ended;
      }
      assert.equal(timeouts(), before, 'three LISTs left no timer behind');
      s.close();
    } finally {
      await server.close();
    }
  });
});
