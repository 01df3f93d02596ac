// C64U_HOST with a port or a scheme (issue 35, part 6): `127.0.0.1:32893` and `http://host:port`
// reach the device's REST port end to end (before: `http://[127.0.0.1:32893]:80`, an internal
// error at the first probe); a malformed value stops the start naming what was expected.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { VirtualUltimate } from '../../../engines/ultimate/virtual/index.js';
import { DeviceAddressError, deviceAddress } from '../../../services/ultimate-tool/targets/device-address.js';
import { binCommand } from '../../helpers/bin.js';
import { bareProject } from './bare-service.js';

test('each way of writing the address becomes the right device options', () => {
  assert.deepEqual(deviceAddress('192.168.1.64'), { host: '192.168.1.64' });
  assert.deepEqual(deviceAddress('c64u.local'), { host: 'c64u.local' });
  assert.deepEqual(deviceAddress('127.0.0.1:32893'), { baseUrl: 'http://127.0.0.1:32893' });
  assert.deepEqual(deviceAddress('http://127.0.0.1:32893'), { baseUrl: 'http://127.0.0.1:32893' });
  assert.deepEqual(deviceAddress('http://c64u.local/'), { baseUrl: 'http://c64u.local' });
  assert.deepEqual(deviceAddress('fe80::1'), { host: 'fe80::1' });
  assert.deepEqual(deviceAddress('[fe80::1]'), { host: 'fe80::1' });
  assert.deepEqual(deviceAddress('[::1]:8080'), { baseUrl: 'http://[::1]:8080' });
  for (const [bad, why] of [
    ['127.0.0.1:99999', /port "99999" is not 1\.\.65535/],
    ['127.0.0.1:', /port "" is not 1\.\.65535/],
    ['ftp://host', /REST API is http \(or https\), not ftp:/],
    ['http://host/api', /scheme, host and port only/],
    ['host name', /is not an address/],
    ['a:b:zz-not-v6', /is not an IPv6 address/],
  ] as const)
    assert.throws(
      () => deviceAddress(bad),
      (e: unknown) => e instanceof DeviceAddressError && why.test(e.message),
      bad,
    );
});

for (const form of ['host:port', 'http://host:port'] as const) {
  test(`C64U_HOST as ${form}: the service probes the device on that port`, { timeout: 120_000 }, async () => {
    const dev = await VirtualUltimate.start({});
    const { work, project, store } = bareProject();
    const address = form === 'host:port' ? `127.0.0.1:${dev.ports.http}` : `http://127.0.0.1:${dev.ports.http}`;
    const { command, args } = binCommand('ultimate-tool', ['serve', '--project', project, '--store', store, '--port', '0', '--no-vice']);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, C64U_HOST: address } });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    try {
      const line = await new Promise<string>((res, rej) => {
        createInterface({ input: child.stdout }).once('line', res);
        child.once('exit', (c) => rej(new Error(`serve exited (${c}): ${stderr}`)));
      });
      const base = JSON.parse(line).url as string;
      const r = await fetch(`${base}/v13/probes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ strict_gate: false }),
      });
      const body = (await r.json()) as any;
      assert.equal(r.status, 201, JSON.stringify(body));
      assert.match(JSON.stringify(body.probe), /"virtual":true/);
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
    } finally {
      child.kill('SIGKILL');
      await dev.stop();
      rmSync(work, { recursive: true, force: true });
    }
  });
}

test('a malformed C64U_HOST stops the start with what was expected', () => {
  const { work, project } = bareProject();
  try {
    const { command, args } = binCommand('ultimate-tool', ['serve', '--project', project, '--port', '0', '--no-vice']);
    const r = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, C64U_HOST: '127.0.0.1:http' } });
    assert.equal(r.status, 64, r.stderr);
    assert.match(r.stderr, /C64U_HOST "127\.0\.0\.1:http": port "http" is not 1\.\.65535; expected a host name/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
