// Benchmark: what routing costs. A trivial eval sent to the local toplevel vs the same eval routed
// with `host` to a remote topup over SSH on loopback (real sshd from the test fixture), through the
// same client and the same local topup; and push_file of a 16 MiB file vs scp of the same file to
// the same sshd (reference).
// Run: node --import tsx bench/topup-routing/routing.ts [evals=300]
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { McpClient, parseToolPayload } from '../../src/index.js';
import { spawnStdio } from '../../transports/index.js';
import { startSshd } from '../../test/helpers/sshd.js';
import { binCommand } from '../../test/helpers/bin.js';

const evals = Number(process.argv[2] ?? 300);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

const sshd = await startSshd();
const { command, args } = binCommand('topup');
const env = { ...process.env, HOME: sshd.clientHome } as NodeJS.ProcessEnv;
delete env.SSH_AUTH_SOCK;
const { transport } = spawnStdio(command, args, { env, stderr: 'ignore' });
const client = new McpClient({ name: 'bench', version: '1' });
try {
  await client.connect(transport, { timeoutMs: 60_000 });
  const started = await client.callTool('start_session', { host: sshd.hostAlias });
  if (started.isError) throw new Error(`start_session failed: ${JSON.stringify(parseToolPayload(started))}`);

  const source = '1 + 1;;';
  const call = async (routed: boolean) => {
    const t0 = performance.now();
    const r = await client.callTool('eval', routed ? { source, host: sshd.hostAlias } : { source });
    const dt = performance.now() - t0;
    const p = parseToolPayload(r) as { value_repr?: string; error?: unknown };
    if (r.isError || p.error) throw new Error(`eval failed: ${JSON.stringify(p)}`);
    return dt;
  };
  for (let i = 0; i < 30; i++) {
    await call(false);
    await call(true);
  }
  const local: number[] = [];
  const routed: number[] = [];
  for (let i = 0; i < evals; i++) {
    // Interleaved so both see the same machine load.
    local.push(await call(false));
    routed.push(await call(true));
  }
  const ml = median(local);
  const mr = median(routed);
  console.log(`eval "${source}" x${evals} (interleaved)`);
  console.log(`  local   median ${ml.toFixed(3)} ms  p90 ${pct(local, 90).toFixed(3)} ms`);
  console.log(`  routed  median ${mr.toFixed(3)} ms  p90 ${pct(routed, 90).toFixed(3)} ms  (over SSH, loopback)`);
  console.log(`  routed overhead: ${(mr - ml).toFixed(3)} ms median (goal < 2 ms); ratio routed/local ${(mr / ml).toFixed(2)}x`);

  const size = 16 * 1024 * 1024;
  const file = join(sshd.clientHome, 'bench-16MiB.bin');
  writeFileSync(file, randomBytes(size));
  const push: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const r = await client.callTool('push_file', { host: sshd.hostAlias, local_path: file, remote_path: `~/bench-${i}.bin` });
    const dt = performance.now() - t0;
    if (r.isError) throw new Error(`push_file failed: ${JSON.stringify(parseToolPayload(r))}`);
    push.push(dt);
  }
  // OpenSSH's own client expands ~ from the passwd entry, not $HOME: give it the key and known_hosts explicitly.
  const scp: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    execFileSync(
      'scp',
      [
        '-O',
        '-q',
        '-F',
        join(sshd.clientHome, '.ssh', 'config'),
        '-o',
        `UserKnownHostsFile=${join(sshd.clientHome, '.ssh', 'known_hosts')}`,
        '-o',
        'StrictHostKeyChecking=yes',
        '-i',
        join(sshd.clientHome, '.ssh', 'id_ed25519'),
        file,
        `${sshd.hostAlias}:${join(sshd.remoteHome, `scp-${i}.bin`)}`,
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    scp.push(performance.now() - t0);
  }
  const mbps = (ms: number) => size / 1e6 / (ms / 1000);
  console.log(`push_file 16 MiB x5: median ${median(push).toFixed(1)} ms = ${mbps(median(push)).toFixed(1)} MB/s (goal >= 30 MB/s)`);
  console.log(
    `scp -O    16 MiB x5: median ${median(scp).toFixed(1)} ms = ${mbps(median(scp)).toFixed(1)} MB/s (reference); push_file/scp time ratio ${(median(push) / median(scp)).toFixed(2)}x`,
  );
} finally {
  await client.close();
  await sshd.close();
}
