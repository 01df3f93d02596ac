// Benchmark: what a ProxyJump hop costs. Two real sshd instances on loopback (test fixture); the
// target host is configured twice in one client ~/.ssh/config — directly, and behind the other sshd
// as ProxyJump — and both aliases point at the same remote socket path on the same machine, served
// by two stand-in daemons (one per alias, separate sockets). Measured in the same run, interleaved:
// a routed call (`whoami` on the stand-in daemon: the routing and SSH cost without OCaml), and
// `restart_session` (a new SSH connection — through the jump: two — plus the MCP handshake, with
// the daemon kept).
// Run: node --import tsx bench/topup-routing/proxy-jump.ts [calls=300] [restarts=10]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSshd } from '../../test/helpers/sshd.js';
import { startHarness, standInWrapper, toolContext } from '../../test/adapters/topup/routing/harness.js';

const calls = Number(process.argv[2] ?? 300);
const restarts = Number(process.argv[3] ?? 10);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const jump = await startSshd({ remoteTopupScript: standInWrapper() });
const key = readFileSync(join(jump.clientHome, '.ssh', 'id_ed25519.pub'), 'utf8').trim();
const target = await startSshd({ remoteTopupScript: standInWrapper(), extraAuthorizedKeys: [key] });
const home = jump.clientHome;
mkdirSync(join(home, '.ssh'), { recursive: true });
const hostBlock = (alias: string, port: number, extra: string[] = []) =>
  [`Host ${alias}`, '  HostName 127.0.0.1', `  Port ${port}`, '  IdentityFile ~/.ssh/id_ed25519', ...extra].join('\n');
writeFileSync(
  join(home, '.ssh', 'config'),
  `${[hostBlock('jumpbox', jump.port), hostBlock('direct', target.port), hostBlock('behind', target.port, ['  ProxyJump jumpbox'])].join('\n')}\n`,
);
writeFileSync(join(home, '.ssh', 'known_hosts'), `${jump.knownHostsLine()}\n${target.knownHostsLine()}\n`);

const h = await startHarness({ home, env: { HOME: home }, ssh: { agentSocket: '' } });
try {
  for (const [host, socket] of [
    ['direct', '~/.topup/sockets/direct.sock'],
    ['behind', '~/.topup/sockets/behind.sock'],
  ] as const) {
    const r = await h.call('start_session', { host, remote_socket: socket });
    if (r.isError) throw new Error(`start_session ${host}: ${JSON.stringify(r.payload)}`);
  }
  const routed = async (host: string) => {
    const t0 = performance.now();
    await h.router.forward({ kind: 'host', host }, 'whoami', {}, toolContext());
    return performance.now() - t0;
  };
  for (let i = 0; i < 30; i++) {
    await routed('direct');
    await routed('behind');
  }
  const direct: number[] = [];
  const behind: number[] = [];
  for (let i = 0; i < calls; i++) {
    direct.push(await routed('direct'));
    behind.push(await routed('behind'));
  }
  const restart = async (host: string) => {
    const t0 = performance.now();
    const r = await h.call('restart_session', { host });
    if (r.isError) throw new Error(`restart_session ${host}: ${JSON.stringify(r.payload)}`);
    return performance.now() - t0;
  };
  const rDirect: number[] = [];
  const rBehind: number[] = [];
  for (let i = 0; i < restarts; i++) {
    rDirect.push(await restart('direct'));
    rBehind.push(await restart('behind'));
  }
  const [md, mb, rd, rb] = [median(direct), median(behind), median(rDirect), median(rBehind)];
  console.log(`routed call (stand-in whoami) x${calls}, interleaved`);
  console.log(`  direct       median ${md.toFixed(3)} ms`);
  console.log(`  via jump     median ${mb.toFixed(3)} ms   ratio ${(mb / md).toFixed(2)}x, +${(mb - md).toFixed(3)} ms`);
  console.log(`restart_session (daemon kept) x${restarts}, interleaved`);
  console.log(`  direct       median ${rd.toFixed(1)} ms`);
  console.log(`  via jump     median ${rb.toFixed(1)} ms   ratio ${(rb / rd).toFixed(2)}x`);
} finally {
  await h.close();
  await target.close();
  await jump.close();
}
