// A full test job on the virtual Ultimate 64 (clean build of the example with acme, identity
// re-probe, upload + reset + run, observe, evidence, record), split by phase. The service's own
// share is everything but the assembler and the device; the assembler run alone (the peer, in the
// same run) shows what a build costs without the service around it.
//
//   node --import tsx bench/ultimate-service/job-phases.ts [jobs]
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UltimateToolService } from '../../services/ultimate-tool/index.js';

const jobs = Number(process.argv[2] ?? 8);
const example = join(import.meta.dirname, '..', '..', 'examples', 'c64-project');
const work = mkdtempSync(join(tmpdir(), 'ultimate-bench-job-'));
const project = join(work, 'project');
cpSync(example, project, { recursive: true, filter: (s) => !s.includes('/build') && !s.endsWith('.ultimate-tool') });
// The device runs in its own process, so this process's CPU time is the service's (and the
// little HTTP client's) alone: a load-robust measure next to the wall-clock split.
const devProc = spawn(
  process.execPath,
  ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'bin', 'ultimate-tool.ts'), 'virtual-device', '--exit-on-stdin-close'],
  // stdin is a pipe held by this process: the device exits with us even if we are killed.
  { stdio: ['pipe', 'pipe', 'ignore'] },
);
const ports = await new Promise<{ http: number; ftp: number; dma: number }>((resolve) => {
  let buf = '';
  devProc.stdout!.on('data', (b: Buffer) => {
    buf += b.toString();
    if (buf.includes('\n')) resolve(JSON.parse(buf.split('\n')[0]!));
  });
});
const dev = {
  ports,
  async stop() {
    const gone = new Promise((r) => devProc.once('exit', r));
    devProc.stdin!.end();
    devProc.kill('SIGTERM');
    const force = setTimeout(() => devProc.kill('SIGKILL'), 3000);
    await gone;
    clearTimeout(force);
  },
};
const svc = await UltimateToolService.start({
  projectDir: project,
  storeDir: join(work, 'store'),
  port: 0,
  vice: null,
  ultimate: {
    device: { baseUrl: `http://127.0.0.1:${dev.ports.http}`, ftpPort: dev.ports.ftp, dmaPort: dev.ports.dma },
    virtualDevice: true,
  },
});
const post = async (p: string, b: unknown) =>
  (
    await fetch(`${svc.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) })
  ).json() as Promise<any>;
const get = async (p: string) => (await fetch(`${svc.url}${p}`)).json() as Promise<any>;

const rows: Array<Record<string, number>> = [];
try {
  for (let i = 0; i < jobs + 1; i++) {
    const probe = (await post('/v13/probes', {})).probe.probe_id;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const { job } = await post('/v13/jobs', {
      test: 'sum-passes',
      targets: ['ultimate'],
      probe_id: probe,
      confirmed_reset_count: 1,
      confirmed_reu_write_count: 0,
    });
    let j: any;
    for (;;) {
      j = (await get(`/v13/jobs/${job.job_id}`)).job;
      if (j.state !== 'queued' && j.state !== 'running') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    void t0;
    // The job's own timestamps (service clock, ms): the client's polling interval does not count.
    const wall = Date.parse(j.finished_at) - Date.parse(j.created_at);
    const cpu = process.cpuUsage(cpu0);
    if (j.state !== 'finished') throw new Error(JSON.stringify(j));
    const run = (await get(`/v13/runs/${j.run_ids[0]}`)).run;
    if (run.status !== 'passed') throw new Error(run.status_reason);
    const t = run.timings;
    const device = (t.identity_probe_ms ?? 0) + t.device_ms;
    const outside = wall - (t.identity_probe_ms ?? 0) - t.build_ms - t.run_total_ms;
    const snapshot = t.run_total_ms - t.load_ms - t.execute_ms - t.observe_ms - t.record_ms;
    if (i > 0)
      rows.push({
        outside,
        snapshot,
        cpu: (cpu.user + cpu.system) / 1000,
        wall,
        assembler: t.build_command_ms,
        build_total: t.build_ms,
        device,
        ...t,
        service: wall - t.build_command_ms - device,
      });
  }
  // The peer: the same assembler step alone, in a fresh copy, in the same run.
  const peer: number[] = [];
  for (let i = 0; i < jobs; i++) {
    const dir = join(work, `peer${i}`);
    cpSync(project, dir, { recursive: true, filter: (s) => !s.includes('/build') && !s.includes('.ultimate-tool') });
    const t = performance.now();
    execFileSync('make', ['--no-print-directory'], { cwd: dir, stdio: 'ignore' });
    peer.push(performance.now() - t);
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const col = (k: string) => med(rows.map((r) => r[k] ?? 0));
  console.log(`${jobs} jobs (after one warm-up), test sum-passes on the virtual Ultimate 64; medians in ms`);
  const phases: Array<[string, string]> = [
    ['job wall (created_at → finished_at)', 'wall'],
    ['  identity re-probe (device)', 'identity_probe_ms'],
    ['  clean build total (copy + acme + snapshot)', 'build_total'],
    ['    of which the assembler (make + acme)', 'assembler'],
    ['  snapshot artifacts + build logs into the run', 'snapshot'],
    ['  load: debugreg clear + run_prg upload/reset', 'load_ms'],
    ['  execute: waiting for $D7FF', 'execute_ms'],
    ['  observe: screen/colour/memory reads, PNG, evidence', 'observe_ms'],
    ['  record: compose + fsync evidence', 'record_ms'],
    ['  outside the run: queue, lease, job state commits', 'outside'],
    ['  device total (all device calls)', 'device'],
    ['service own share (wall - assembler - device)', 'service'],
    ['service CPU time in this process (user+system)', 'cpu'],
  ];
  for (const [name, k] of phases) console.log(name.padEnd(54), col(k).toFixed(1).padStart(8));
  console.log('peer: the assembler alone (make in a fresh copy)'.padEnd(54), med(peer).toFixed(1).padStart(8));
  console.log(
    `service share / job wall: ${(col('service') / col('wall')).toFixed(2)}; assembler in the job / assembler alone: ${(col('assembler') / med(peer)).toFixed(2)}`,
  );
} finally {
  await svc.stop();
  await dev.stop();
  rmSync(work, { recursive: true, force: true });
}
