// The virtual Elite II as a process: `ultimate-tool virtual-device --product u64-elite2` prints its
// ports (the bench port included), runs an update file over its network interfaces and powers back.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { UltimateFtp } from '../../../../../engines/ultimate/ftp.js';
import { triggerRunUpdate, uploadUpdateFile } from '../../../../../engines/ultimate/riscv-apps/run-update-trigger.js';
import { RestClient } from '../../../../../engines/ultimate/rest.js';
import { buildExample } from '../../../../../examples/riscv/build.js';
import { binCommand } from '../../../../helpers/bin.js';

describe('ultimate-tool virtual-device --product u64-elite2', { timeout: 90_000 }, () => {
  const { command, args } = binCommand('ultimate-tool', [
    'virtual-device',
    '--product',
    'u64-elite2',
    '--no-vice',
    '--exit-on-stdin-close',
  ]);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let ports: { http: number; ftp: number; bench: number };

  before(async () => {
    let out = '';
    child.stdout.setEncoding('utf8');
    while (!out.includes('\n')) {
      const [chunk] = (await once(child.stdout, 'data')) as [string];
      out += chunk;
    }
    ports = JSON.parse(out.slice(0, out.indexOf('\n'))) as typeof ports;
  });
  after(async () => {
    child.stdin.end();
    if (child.exitCode === null) await once(child, 'exit');
  });

  it('prints a bench port, says Elite II, runs the ends program and recovers by the bench', async () => {
    assert.equal(typeof ports.bench, 'number');
    const rest = new RestClient({ baseUrl: `http://127.0.0.1:${ports.http}`, timeoutMs: 5000 });
    assert.match((await rest.info()).product, /Elite II/);
    const ftp = new UltimateFtp({ host: '127.0.0.1', port: ports.ftp, timeoutMs: 5000 });
    const path = await uploadUpdateFile(ftp, 'ends', (await buildExample('ends')).ue2);
    await ftp.close();
    await triggerRunUpdate(rest, path);
    const waited = (await (await fetch(`http://127.0.0.1:${ports.bench}/bench/wait-stopped?timeout_ms=20000`)).json()) as {
      run: { status: string; exitCode: number; uart: string };
    };
    assert.deepEqual([waited.run.status, waited.run.exitCode, waited.run.uart], ['exited', 42, 'BYE\n']);
    await assert.rejects(rest.version());
    await fetch(`http://127.0.0.1:${ports.bench}/bench/power-cycle`, { method: 'POST' });
    assert.equal(await rest.version(), '0.1');
  });
});
