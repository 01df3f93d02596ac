// `ultimate-tool virtual-device` as a process: one JSON line of ports on stdout, --help, bad
// arguments, and a clean stop on SIGTERM.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { binCommand } from '../../../helpers/bin.js';
import { UltimateDevice } from '../../../../engines/ultimate/index.js';

describe('ultimate-tool virtual-device', () => {
  test('--help prints usage and exits 0', () => {
    const { command, args } = binCommand('ultimate-tool', ['virtual-device', '--help']);
    const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0);
    assert.match(r.stdout, /--http-port/);
    assert.match(r.stdout, /emulation, not hardware/);
  });

  test('bad arguments exit 64 (EX_USAGE) with a message naming the problem', () => {
    for (const bad of [['--http-port', '70000'], ['--speed', 'fast'], ['--frobnicate'], ['--product', 'c128'], ['--firmware', '9.9']]) {
      const { command, args } = binCommand('ultimate-tool', ['virtual-device', ...bad]);
      const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 64, bad.join(' '));
      assert.match(r.stderr, new RegExp(bad[0]!.replace(/^--/, '')));
      assert.equal(r.stdout, '');
    }
    const { command, args } = binCommand('ultimate-tool', ['no-such-command']);
    assert.equal(spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 }).status, 64);
  });

  test('prints its ports as one JSON line, serves REST on loopback, and stops on SIGTERM', async () => {
    const { command, args } = binCommand('ultimate-tool', ['virtual-device', '--password', 'cli-pw', '--no-vice']);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const rl = createInterface({ input: child.stdout! });
        rl.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
        setTimeout(() => reject(new Error('no ports line within 30 s')), 30_000).unref();
      });
      const ports = JSON.parse(line) as { host: string; http: number; ftp: number; dma: number; vice: number | null };
      assert.equal(ports.host, '127.0.0.1');
      assert.equal(ports.vice, null);
      for (const p of [ports.http, ports.ftp, ports.dma]) assert.ok(Number.isInteger(p) && p > 0);
      const device = new UltimateDevice({
        host: ports.host,
        httpPort: ports.http,
        ftpPort: ports.ftp,
        dmaPort: ports.dma,
        password: 'cli-pw',
      });
      const probe = await device.probe();
      assert.equal(probe.virtual, true);
      await device.close();
    } finally {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  });

  test('refuses to bind a non-loopback address', () => {
    const { command, args } = binCommand('ultimate-tool', ['virtual-device', '--host', '0.0.0.0']);
    const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /loopback only/);
  });
});
