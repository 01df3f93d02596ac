// The virtual device's pinned ports with real sockets: a port held by another listener stops the
// start with an error naming the service and the port, and nothing the start had bound stays
// bound (later services never open); a pinned FTP passive range hands out only its own ports,
// skips a taken one, and answers 425 when none is free.
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { PortInUseError, VirtualUltimate } from '../../../../../engines/ultimate/virtual/index.js';
import { canBind, freePorts, occupyPort } from '../../../../helpers/ports.js';

async function expectPortInUse(start: Promise<VirtualUltimate>, role: string, port: number): Promise<void> {
  await assert.rejects(start, (e: unknown) => {
    assert.ok(e instanceof PortInUseError, `a PortInUseError, got ${String(e)}`);
    assert.equal(e.role, role);
    assert.equal(e.port, port);
    assert.equal(e.code, 'EADDRINUSE');
    assert.match(e.message, new RegExp(`${role} port 127\\.0\\.0\\.1:${port} is already in use`));
    return true;
  });
}

describe('virtual device: a pinned port that is taken', () => {
  test('DMA taken: the error names DMA and its port; REST and FTP, bound before it, are released', async () => {
    const taken = await occupyPort();
    const [http, ftp, vice] = await freePorts(3);
    try {
      await expectPortInUse(
        VirtualUltimate.start({ httpPort: http, ftpPort: ftp, dmaPort: taken.port, vicePort: vice, autoStart: false }),
        'DMA',
        taken.port,
      );
      for (const [name, port] of [
        ['REST', http],
        ['FTP', ftp],
        ['VICE monitor', vice],
      ] as const)
        assert.ok(await canBind(port!), `${name} port ${port} is free again`);
    } finally {
      await taken.release();
    }
  });

  test('VICE monitor taken: named; REST, FTP and DMA are released', async () => {
    const taken = await occupyPort();
    const [http, ftp, dma] = await freePorts(3);
    try {
      await expectPortInUse(
        VirtualUltimate.start({ httpPort: http, ftpPort: ftp, dmaPort: dma, vicePort: taken.port, autoStart: false }),
        'VICE monitor',
        taken.port,
      );
      for (const port of [http, ftp, dma]) assert.ok(await canBind(port!), `port ${port} is free again`);
    } finally {
      await taken.release();
    }
  });

  test('Elite II lab bench taken: named; every service before it, the VICE monitor included, is released', async () => {
    const taken = await occupyPort();
    const [http, ftp, dma, vice] = await freePorts(4);
    try {
      await expectPortInUse(
        VirtualUltimate.start({
          product: 'u64-elite2',
          httpPort: http,
          ftpPort: ftp,
          dmaPort: dma,
          vicePort: vice,
          benchPort: taken.port,
          autoStart: false,
        }),
        'lab bench',
        taken.port,
      );
      for (const port of [http, ftp, dma, vice]) assert.ok(await canBind(port!), `port ${port} is free again`);
    } finally {
      await taken.release();
    }
  });
});

/** A minimal FTP control session: one reply per command (the greeting is read first). */
async function ftpSession(port: number): Promise<{ send(line: string): Promise<string>; close(): void }> {
  const s = net.connect({ host: '127.0.0.1', port });
  s.setEncoding('latin1');
  let buf = '';
  const replies: string[] = [];
  const waiters: Array<(r: string) => void> = [];
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
  s.on('error', () => undefined);
  const next = () => (replies.length ? Promise.resolve(replies.shift()!) : new Promise<string>((r) => waiters.push(r)));
  assert.match(await next(), /^220 /);
  return {
    send: (line) => {
      s.write(`${line}\r\n`);
      return next();
    },
    close: () => s.destroy(),
  };
}

function pasvPort(reply: string): number {
  const m = /\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)/.exec(reply);
  assert.ok(m, `a 227 reply with an address: ${reply}`);
  return Number(m[5]) * 256 + Number(m[6]);
}

describe('virtual device: FTP passive data ports', () => {
  test('a pinned range: PASV hands out its ports in turn, skips a taken one, and a transfer goes through it', async () => {
    // Three consecutive free ports, the middle one then taken by another listener.
    let range: number[] = [];
    for (let attempt = 0; attempt < 20 && !range.length; attempt++) {
      const [p] = await freePorts(1);
      if (p! + 2 <= 65535 && (await canBind(p! + 1)) && (await canBind(p! + 2))) range = [p!, p! + 1, p! + 2];
    }
    assert.equal(range.length, 3, 'three consecutive free ports');
    const middle = await new Promise<net.Server>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(range[1], '127.0.0.1', () => resolve(s));
    });
    const device = await VirtualUltimate.start({ ftpPassivePorts: { from: range[0]!, to: range[2]! }, vicePort: null, autoStart: false });
    try {
      const ftp = await ftpSession(device.ports.ftp);
      assert.match(await ftp.send('USER u'), /^331 /);
      assert.match(await ftp.send('PASS p'), /^230 /);
      assert.equal(pasvPort(await ftp.send('PASV')), range[0]);
      // The next PASV closes the first channel and moves on, past the taken port.
      assert.equal(pasvPort(await ftp.send('PASV')), range[2]);
      const dataPort = pasvPort(await ftp.send('PASV'));
      assert.equal(dataPort, range[0], 'round robin back to the start of the range');
      const data = net.connect({ host: '127.0.0.1', port: dataPort });
      await new Promise<void>((r) => data.once('connect', () => r()));
      assert.match(await ftp.send('STOR /Temp/pinned.bin'), /^150 /);
      data.end(Buffer.from('through a pinned data port'));
      assert.match(await ftp.send('NOOP'), /^226 /);
      assert.equal(Buffer.from(device.fs.read(device.fs.resolve('/', '/Temp/pinned.bin'))).toString(), 'through a pinned data port');
      ftp.close();
    } finally {
      await device.stop();
      await new Promise<void>((r) => middle.close(() => r()));
    }
  });

  test('every port of the range taken: PASV answers 425 naming the range, and the session goes on', async () => {
    const taken = await occupyPort();
    const device = await VirtualUltimate.start({ ftpPassivePorts: { from: taken.port, to: taken.port }, vicePort: null, autoStart: false });
    try {
      const ftp = await ftpSession(device.ports.ftp);
      assert.match(await ftp.send('USER u'), /^331 /);
      assert.match(await ftp.send('PASS p'), /^230 /);
      assert.equal(
        await ftp.send('PASV'),
        `425 Cannot open passive data connection: no free passive data port in ${taken.port}-${taken.port}.`,
      );
      assert.match(await ftp.send('PWD'), /^257 /);
      ftp.close();
    } finally {
      await device.stop();
      await taken.release();
    }
  });
});
