// FTP with basic-ftp against the virtual device's server: the firmware's roots and command set,
// refused commands (502), the zero-byte rule, path containment and the password.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startRig, type Rig } from './helpers.js';
import { UltimateFtp, UltimateError } from '../../../engines/ultimate/index.js';

/** A raw control connection, to see the server's exact replies. */
async function rawSession(port: number): Promise<{ send(line: string): Promise<string>; close(): void }> {
  const s = net.connect({ host: '127.0.0.1', port });
  let buf = '';
  const waiters: Array<(reply: string) => void> = [];
  let lines: string[] = [];
  s.setEncoding('latin1');
  s.on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 2);
      lines.push(line);
      // A reply ends with "nnn " (multi-line replies start with "nnn-"): hand over all its lines.
      if (/^\d{3} /.test(line)) {
        waiters.shift()?.(lines.join('\r\n'));
        lines = [];
      }
    }
  });
  const next = () => new Promise<string>((r) => waiters.push(r));
  await next(); // greeting
  return {
    send(line: string) {
      const p = next();
      s.write(`${line}\r\n`);
      return p;
    },
    close() {
      s.destroy();
    },
  };
}

describe('FTP against the virtual device', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ password: 'pw' });
  });
  after(async () => {
    await rig.close();
  });

  test('the root lists the firmware roots', async () => {
    const names = (await rig.device.ftp.list('/')).map((e) => `${e.name}:${e.type}`).sort();
    assert.deepEqual(names, ['Flash:directory', 'SD:directory', 'Temp:directory', 'Usb0:directory', 'Usb1:directory']);
  });

  test('upload, size, download, mkdir, list, delete, rmdir', async () => {
    const ftp = rig.device.ftp;
    const data = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) & 0xff);
    await ftp.makeDirectory('/Usb1/games');
    await ftp.upload('/Usb1/games/big.bin', data);
    assert.equal(await ftp.size('/Usb1/games/big.bin'), 70_000);
    assert.deepEqual(await ftp.download('/Usb1/games/big.bin'), data);
    assert.deepEqual(await ftp.list('/Usb1/games'), [{ name: 'big.bin', type: 'file', size: 70_000 }]);
    await ftp.remove('/Usb1/games/big.bin');
    assert.deepEqual(await ftp.list('/Usb1/games'), []);
    await ftp.removeDirectory('/Usb1/games');
    assert.equal((await ftp.list('/Usb1')).length, 0);
  });

  test('a zero-byte upload is refused up front: the firmware would create no file', async () => {
    await assert.rejects(
      rig.device.ftp.upload('/Temp/empty.bin', new Uint8Array(0)),
      (e: unknown) => e instanceof UltimateError && e.kind === 'unsupported',
    );
    assert.equal(
      (await rig.device.ftp.list('/Temp')).some((e) => e.name === 'empty.bin'),
      false,
    );
  });

  test('missing files and bad paths are ftp errors with the reply code', async () => {
    await assert.rejects(
      rig.device.ftp.download('/Temp/none.bin'),
      (e: unknown) => e instanceof UltimateError && e.kind === 'ftp' && e.code === 550,
    );
    await assert.rejects(
      rig.device.ftp.upload('/outside.bin', Uint8Array.of(1)),
      (e: unknown) => e instanceof UltimateError && e.code === 550,
    );
    await assert.rejects(
      rig.device.ftp.upload('relative.bin', Uint8Array.of(1)),
      (e: unknown) => e instanceof UltimateError && e.kind === 'bad-input',
    );
  });

  test('the firmware command set: 502 for anything unknown, 530 before login, X-variants, MODE, SYST 214, containment of ..', async () => {
    const s = await rawSession(rig.virtual.ports.ftp);
    try {
      assert.match(await s.send('LIST'), /^530 /);
      // Before login only USER, PASS and QUIT (ftpd.cc): FEAT, SYST, NOOP too are 530.
      for (const c of ['FEAT', 'SYST', 'NOOP']) assert.match(await s.send(c), /^530 /, c);
      assert.match(await s.send('USER anyone'), /^331 /);
      assert.match(await s.send('PASS pw'), /^230 /);
      for (const c of [
        'EPSV',
        'EPRT |1|127.0.0.1|5000|',
        'REST 10',
        'APPE x',
        'MDTM /Temp',
        'STRU F',
        'OPTS UTF8 ON',
        'SITE CHMOD',
        'AUTH TLS',
      ]) {
        assert.match(await s.send(c), /^502 /, c);
      }
      assert.match(await s.send('XYZZY'), /^502 /);
      assert.match(await s.send('MODE S'), /^200 /);
      assert.match(await s.send('XMKD /Temp/xdir'), /^257 /);
      assert.match(await s.send('XRMD /Temp/xdir'), /^250 /);
      assert.match(await s.send('XPWD'), /^257 "\/"/);
      assert.match(await s.send('FEAT'), /^211-Features:\r\n MLST size\*;type\*;modify\*\r\n MLSD\r\n211 End/);
      assert.match(await s.send('CWD /Temp/../../..'), /^250 Directory changed to \/\./);
      assert.match(await s.send('PWD'), /^257 "\/"/);
      assert.match(await s.send('SYST'), /^214 UNIX system type\./);
      assert.match(await s.send('MKD /Temp/../../etc'), /^550 /);
    } finally {
      s.close();
    }
  });

  test('a client dropping the data connection mid-transfer does not take the server down; PORT only to the client', async () => {
    await rig.device.ftp.upload('/Temp/large.bin', new Uint8Array(4 * 1024 * 1024));
    const s = await rawSession(rig.virtual.ports.ftp);
    try {
      await s.send('USER u');
      await s.send('PASS pw');
      assert.match(await s.send('PORT 10,1,2,3,4,5'), /^500 /);
      const pasv = await s.send('PASV');
      const m = /\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)/.exec(pasv)!;
      const data = net.connect({ host: '127.0.0.1', port: Number(m[5]) * 256 + Number(m[6]) });
      await new Promise<void>((r) => data.once('connect', () => r()));
      const reply = s.send('RETR /Temp/large.bin');
      data.once('data', () => data.destroy());
      assert.match(await reply, /^(150|226|451|426)/);
      assert.match(await s.send('NOOP'), /^(200|226)/);
    } finally {
      s.close();
    }
    assert.equal(
      (await rig.device.ftp.list('/Temp')).some((e) => e.name === 'large.bin'),
      true,
    );
  });

  test('a wrong password is refused (forbidden)', async () => {
    const bad = new UltimateFtp({ host: '127.0.0.1', port: rig.virtual.ports.ftp, password: 'wrong', timeoutMs: 5000 });
    try {
      await assert.rejects(bad.list('/'), (e: unknown) => e instanceof UltimateError && e.kind === 'forbidden' && e.code === 530);
    } finally {
      await bad.close();
    }
  });
});

describe('FTP session cap (firmware 3.15)', () => {
  test('a fifth concurrent session is answered 421 and closed; the four others keep working', async () => {
    const rig = await startRig();
    const sessions: Array<{ send(line: string): Promise<string>; close(): void }> = [];
    try {
      for (let i = 0; i < 4; i++) sessions.push(await rawSession(rig.virtual.ports.ftp));
      const fifth = net.connect({ host: '127.0.0.1', port: rig.virtual.ports.ftp });
      let text = '';
      fifth.setEncoding('latin1');
      fifth.on('data', (d: string) => {
        text += d;
      });
      await new Promise<void>((r) => fifth.once('close', () => r()));
      assert.equal(text, '421 Too many FTP connections, try again later.\r\n');
      assert.match(await sessions[3]!.send('USER x'), /^331 /);
    } finally {
      for (const s of sessions) s.close();
      await rig.close();
    }
  });
});
