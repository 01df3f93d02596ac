// A native run end to end on the virtual Elite II (service and device in this process, real
// loopback HTTP/FTP): the answer at the latch (re-probe + latch 1), the run until `completed`
// (FTP creation, token, latch 2, Run Update, output on the lab bench), then power cycle and the
// C64 health check. The latch's own cost is measured by latch.ts; together they say what share of
// a run its two fsync'd commits are (docs/performance/ultimate-native-flow.md).
//
//   node --import tsx bench/ultimate-native-flow/run.ts [runs]
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UltimateToolService } from '../../services/ultimate-tool/index.js';
import { VirtualUltimate } from '../../engines/ultimate/virtual/index.js';

const runs = Number(process.argv[2] ?? 10);
const work = mkdtempSync(join(tmpdir(), 'native-run-bench-'));
const project = join(work, 'project');
cpSync(join(import.meta.dirname, '..', '..', 'examples', 'c64-project'), project, {
  recursive: true,
  filter: (s) => !s.includes('/build') && !s.endsWith('.ultimate-tool'),
});
const dev = await VirtualUltimate.start({ product: 'u64-elite2', benchPort: 0 });
const svc = await UltimateToolService.start({
  projectDir: project,
  storeDir: join(work, 'store'),
  port: 0,
  vice: null,
  ultimate: {
    device: { baseUrl: `http://127.0.0.1:${dev.ports.http}`, ftpPort: dev.ports.ftp, dmaPort: dev.ports.dma },
    virtualDevice: true,
  },
  benchUrl: `http://127.0.0.1:${dev.ports.bench}`,
});
const call = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(svc.url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await r.json()) as Record<string, any>;
};
const until = async <T>(fn: () => Promise<T | undefined>): Promise<T> => {
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 2));
  }
};
let t = performance.now();
const prep = (await call('POST', '/v13/native/preparations', { program: 'utr2-echo' })).preparation;
const prepareMs = performance.now() - t;
const probe = (await call('POST', '/v13/probes', {})).probe;
const intent = (
  await call('POST', '/v13/native/intents', {
    preparation_id: prep.preparation_id,
    probe_id: probe.probe_id,
    mode: 'standing',
    confirmed_standing_authorization: true,
  })
).intent;
const runMs: number[] = [];
const answerMs: number[] = [];
const healthMs: number[] = [];
for (let i = 0; i < runs; i++) {
  t = performance.now();
  const started = await call('POST', '/v13/native/runs', { intent_id: intent.intent_id, device_host: '127.0.0.1' });
  answerMs.push(performance.now() - t);
  const id = started.native_run.native_run_id;
  const run = await until(async () => {
    const r = (await call('GET', `/v13/native/runs/${id}`)).native_run;
    return ['latched', 'uploaded', 'triggered'].includes(r.state) ? undefined : r;
  });
  runMs.push(performance.now() - t);
  if (run.state !== 'completed') throw new Error(`run ${id} ${run.state}`);
  await (await fetch(`http://127.0.0.1:${dev.ports.bench}/bench/power-cycle`, { method: 'POST' })).arrayBuffer();
  t = performance.now();
  const hc = await call('POST', '/v13/native/health-checks', { intent_id: intent.intent_id, run_id: id, device_host: '127.0.0.1' });
  const job = await until(async () => {
    const j = (await call('GET', `/v13/jobs/${hc.job.job_id}`)).job;
    return j.state === 'running' || j.state === 'queued' ? undefined : j;
  });
  healthMs.push(performance.now() - t);
  if (job.state !== 'finished') throw new Error(`health check ${job.state}`);
}
const median = (a: number[]) => +[...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(1);
process.stdout.write(
  `${JSON.stringify({ runs, prepare_ms: +prepareMs.toFixed(1), run_answer_median_ms: median(answerMs), run_completed_median_ms: median(runMs), health_check_median_ms: median(healthMs) }, null, 2)}\n`,
);
await svc.stop();
await dev.stop();
rmSync(work, { recursive: true, force: true });
