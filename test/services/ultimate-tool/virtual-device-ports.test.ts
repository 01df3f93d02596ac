// `ultimate-tool serve --virtual-device --virtual-device-ports …` as a user runs it (the real bin,
// real sockets): the flag's syntax errors name what was expected; a pinned port held by another
// program stops the start with its role, its port and what to do, before anything listens; pinned
// free ports are opened exactly there and each answers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseServeArgs } from '../../../services/ultimate-tool/cli.js';
import { binCommand } from '../../helpers/bin.js';
import { canBind, freePorts, occupyPort } from '../../helpers/ports.js';
import { exampleProject } from './harness.js';

const work = mkdtempSync(join(tmpdir(), 'ultimate-serve-ports-'));
after(() => rmSync(work, { recursive: true, force: true }));
const project = join(work, 'project');
cpSync(exampleProject, project, { recursive: true, filter: (s) => !s.includes('/build') && !s.endsWith('.ultimate-tool') });

describe('--virtual-device-ports syntax', () => {
  const refused = (args: string[], message: RegExp) =>
    assert.throws(
      () => parseServeArgs(['--virtual-device', ...args]),
      (e: Error) => {
        assert.match(e.message, message);
        return true;
      },
    );

  test('each key pins its service; keys left out stay the system’s choice', () => {
    const parsed = parseServeArgs([
      '--virtual-device',
      '--virtual-device-ports',
      'rest=7001,ftp=7002,ftp-data=7100-7109,dma=7003,vice=7004',
    ]);
    assert.ok(parsed !== 'help');
    assert.deepEqual(parsed.virtualDevicePorts, { rest: 7001, ftp: 7002, ftpData: { from: 7100, to: 7109 }, dma: 7003, vice: 7004 });
    const some = parseServeArgs(['--virtual-device', '--virtual-device-ports=dma=7003']);
    assert.ok(some !== 'help');
    assert.deepEqual(some.virtualDevicePorts, { dma: 7003 });
  });

  test('an unknown key, a non-number, out of range, a duplicate: each says what was expected', () => {
    refused(
      ['--virtual-device-ports', 'http=7001'],
      /unknown key "http"; expected KEY=PORT pairs .* rest, ftp, ftp-data, dma, vice, bench, PORT 1\.\.65535/,
    );
    refused(['--virtual-device-ports', 'rest=web'], /rest expects a port 1\.\.65535, got "web"/);
    refused(['--virtual-device-ports', 'rest=0'], /rest expects a port 1\.\.65535, got "0"/);
    refused(['--virtual-device-ports', 'ftp=65536'], /ftp expects a port 1\.\.65535, got "65536"/);
    refused(['--virtual-device-ports', 'dma=-1'], /dma expects a port 1\.\.65535, got "-1"/);
    refused(['--virtual-device-ports', 'vice=7004,vice=7005'], /vice is given twice/);
    refused(['--virtual-device-ports', 'rest=7001,,ftp=7002'], /empty item/);
    refused(['--virtual-device-ports', 'rest'], /"rest" is not KEY=PORT/);
    refused(['--virtual-device-ports', 'rest=7001', '--virtual-device-ports', 'ftp=7002'], /given twice; give every port in one list/);
  });

  test('one port for two services, ranges, and flags that do not fit together are refused', () => {
    refused(['--virtual-device-ports', 'rest=7001,dma=7001'], /port 7001 is given to both rest= and dma=/);
    refused(['--port', '7001', '--virtual-device-ports', 'rest=7001'], /port 7001 is given to both the service \(--port\) and rest=/);
    refused(['--virtual-device-ports', 'rest=7001', '--port', '7001'], /the service \(--port\) and rest=/);
    refused(['--virtual-device-ports', 'ftp-data=7109-7100'], /ftp-data range 7109-7100 is reversed/);
    refused(['--virtual-device-ports', 'ftp-data=7100'], /ftp-data expects a range LOW-HIGH/);
    refused(['--virtual-device-ports', 'ftp=7105,ftp-data=7100-7109'], /ftp-data range 7100-7109 contains port 7105 of ftp=/);
    refused(['--virtual-device-ports', 'bench=7006'], /bench is the lab bench of an Elite II; it needs --virtual-product u64-elite2/);
    assert.throws(
      () => parseServeArgs(['--virtual-device-ports', 'rest=7001']),
      /pins the ports of --virtual-device; add --virtual-device/,
    );
    const elite = parseServeArgs(['--virtual-device', '--virtual-product', 'u64-elite2', '--virtual-device-ports', 'bench=7006']);
    assert.ok(elite !== 'help');
    assert.deepEqual(elite.virtualDevicePorts, { bench: 7006 });
  });
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ultimate-tool serve` to its exit (a start that fails), or until its JSON line (then `stop`). */
function serve(args: string[]): { exited: Promise<Exit>; info: Promise<Record<string, any>>; stop(): void } {
  const { command, args: base } = binCommand('ultimate-tool', [
    'serve',
    '--project',
    project,
    '--store',
    join(work, `store-${Math.random().toString(36).slice(2)}`),
    '--no-vice',
    '--virtual-device',
    ...args,
  ]);
  const child = spawn(command, base, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  let resolveInfo!: (v: Record<string, any>) => void;
  let rejectInfo!: (e: Error) => void;
  const info = new Promise<Record<string, any>>((res, rej) => {
    resolveInfo = res;
    rejectInfo = rej;
  });
  info.catch(() => undefined);
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
    if (stdout.includes('\n')) resolveInfo(JSON.parse(stdout.split('\n')[0]!));
  });
  const exited = new Promise<Exit>((res) =>
    child.once('exit', (code) => {
      rejectInfo(new Error(`serve exited with ${code}: ${stderr}`));
      res({ code, stdout, stderr });
    }),
  );
  return { exited, info, stop: () => child.kill('SIGTERM') };
}

describe('serve with pinned ports (real process, real sockets)', { timeout: 120_000 }, () => {
  test('a pinned port held by another program: exit 1 naming the role, the port and what to do; nothing stays bound', async () => {
    const taken = await occupyPort();
    const [rest, dma, vice] = await freePorts(3);
    try {
      const run = serve(['--port', '0', '--virtual-device-ports', `rest=${rest},ftp=${taken.port},dma=${dma},vice=${vice}`]);
      const { code, stdout, stderr } = await run.exited;
      assert.equal(code, 1);
      assert.equal(stdout, '', 'no startup line: the service never listened');
      assert.match(
        stderr,
        new RegExp(
          `cannot start: the virtual device's FTP port ${taken.port} \\(--virtual-device-ports ftp=${taken.port}\\) is already in use by another program; ` +
            'stop the program that holds it, or pin another port with ftp=N, or leave ftp out to let the system choose one',
        ),
      );
      for (const port of [rest, dma, vice]) assert.ok(await canBind(port!), `port ${port} is free`);
    } finally {
      await taken.release();
    }
  });

  test("the service's own --port held by another program: named with --port, the device's pinned ports released", async () => {
    const taken = await occupyPort();
    const [rest, ftp] = await freePorts(2);
    try {
      const { code, stdout, stderr } = await serve(['--port', String(taken.port), '--virtual-device-ports', `rest=${rest},ftp=${ftp}`])
        .exited;
      assert.equal(code, 1);
      assert.equal(stdout, '');
      assert.match(
        stderr,
        new RegExp(
          `the service's port ${taken.port} \\(--port\\) is already in use by another program; .*--port N \\(0 = any free port\\)`,
        ),
      );
      for (const port of [rest, ftp]) assert.ok(await canBind(port!), `port ${port} is free`);
    } finally {
      await taken.release();
    }
  });

  test('bad syntax through the real command line: exit 64 with the message and the usage', async () => {
    const { code, stderr } = await serve(['--virtual-device-ports', 'rest=7001,tftp=69']).exited;
    assert.equal(code, 64);
    assert.match(stderr, /--virtual-device-ports: unknown key "tftp"/);
    assert.match(stderr, /usage: ultimate-tool serve/);
  });

  test('pinned free ports are opened exactly there, reported on the startup line, and each answers', async () => {
    // A one-port passive range: the PASV must land on it.
    const [rest, ftp, dma, vice, dataFrom] = await freePorts(5);
    const dataTo = dataFrom;
    const run = serve([
      '--port',
      '0',
      '--virtual-device-ports',
      `rest=${rest},ftp=${ftp},ftp-data=${dataFrom}-${dataTo},dma=${dma},vice=${vice}`,
    ]);
    try {
      const info = await run.info;
      assert.deepEqual(info.virtual_device_ports, { rest, ftp, ftp_data: [dataFrom, dataTo], dma, vice });
      // REST: the virtual device's /v1/info.
      const answer = (await (await fetch(`http://127.0.0.1:${rest}/v1/info`)).json()) as { product: string };
      assert.match(answer.product, /virtual/);
      // FTP: the greeting, a login, and a passive data port from the pinned range.
      const reply = await ftpPasv(ftp!);
      assert.equal(reply.greeting.slice(0, 4), '220 ');
      assert.equal(reply.pasvPort, dataFrom);
      // DMA and the VICE monitor accept connections on exactly their ports.
      for (const port of [dma, vice]) await connectOnce(port!);
    } finally {
      run.stop();
      assert.equal((await run.exited).code, 0);
    }
  });
});

function connectOnce(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve();
    });
    s.once('error', reject);
  });
}

/** USER, PASS and PASV on a fresh FTP control connection; the greeting and the passive port. */
function ftpPasv(port: number): Promise<{ greeting: string; pasvPort: number }> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.setEncoding('latin1');
    const lines: string[] = [];
    let buf = '';
    s.once('error', reject);
    s.on('data', (d: string) => {
      buf += d;
      for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        lines.push(line);
        if (lines.length === 1) s.write('USER u\r\n');
        else if (lines.length === 2) s.write('PASS p\r\n');
        else if (lines.length === 3) s.write('PASV\r\n');
        else {
          s.destroy();
          const m = /\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)/.exec(line);
          if (!m) return reject(new Error(`not a PASV answer: ${line}`));
          resolve({ greeting: lines[0]!, pasvPort: Number(m[5]) * 256 + Number(m[6]) });
        }
      }
    });
  });
}
