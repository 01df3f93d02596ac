// The latch, proven by killing the service PROCESS (SIGKILL) at each ambiguous step: the virtual
// Elite II holds the FTP STOR (after its data arrived) or the Run Update request (before the route)
// at a point the test controls; the test waits for the device to reach it, kills the service,
// lets the device go on, restarts the service on the same store, and checks: the run is
// `uncertain`, the intent `suspended` (never re-run), and the device saw each step at most once.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { VirtualUltimate, type WatchedStep, stepsFor } from '../../../../../engines/ultimate/virtual/index.js';
import { copyProject, http, type Json } from './harness.js';

const script = fileURLToPath(new URL('./service-process.ts', import.meta.url));

async function startService(cfg: Json): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve((JSON.parse(buf.slice(0, nl)) as { url: string }).url);
    });
    proc.once('exit', (code) => reject(new Error(`service process exited ${code}`)));
  });
  return { proc, url };
}

async function kill9(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
}

const POINTS: Array<{ name: string; hold: WatchedStep; stateAtKill: string; expected: { 'ftp-stor': number; 'run-update': number } }> = [
  {
    name: 'between the latch and the FTP creation',
    hold: 'ftp-stor',
    stateAtKill: 'latched',
    expected: { 'ftp-stor': 1, 'run-update': 0 },
  },
  {
    name: 'between the upload and the Run Update write',
    hold: 'run-update',
    stateAtKill: 'uploaded',
    expected: { 'ftp-stor': 1, 'run-update': 1 },
  },
  {
    name: 'after the Run Update write, while the output is collected on the lab bench',
    hold: 'bench-wait',
    stateAtKill: 'triggered',
    expected: { 'ftp-stor': 1, 'run-update': 1 },
  },
];

for (const point of POINTS) {
  describe(`kill -9 of the service ${point.name}`, { timeout: 120_000 }, () => {
    let dev: VirtualUltimate;
    let work: string;
    const procs: ChildProcess[] = [];
    before(async () => {
      dev = await VirtualUltimate.start({ product: 'u64-elite2', benchPort: 0 });
      work = mkdtempSync(join(tmpdir(), 'native-crash-'));
    });
    after(async () => {
      stepsFor(dev).releaseAll();
      for (const p of procs) if (p.exitCode === null && p.signalCode === null) await kill9(p);
      await dev.stop();
      rmSync(work, { recursive: true, force: true });
    });

    it('leaves the run uncertain and the intent suspended, and the device saw each step at most once', async () => {
      const cfg = {
        project: copyProject(work),
        store: join(work, 'store'),
        http: dev.ports.http,
        ftp: dev.ports.ftp,
        dma: dev.ports.dma,
        bench: dev.ports.bench,
      };
      const first = await startService(cfg);
      procs.push(first.proc);
      const prep = await http(first.url, 'POST', '/v13/native/preparations', { program: 'utr2-echo' });
      assert.equal(prep.status, 201, JSON.stringify(prep.body));
      const probe = await http(first.url, 'POST', '/v13/probes', {});
      const intent = await http(first.url, 'POST', '/v13/native/intents', {
        preparation_id: prep.body.preparation.preparation_id,
        probe_id: probe.body.probe.probe_id,
        mode: 'standing',
        confirmed_standing_authorization: true,
      });
      assert.equal(intent.status, 201, JSON.stringify(intent.body));
      const intentId = intent.body.intent.intent_id as string;

      const hold = stepsFor(dev).hold(point.hold);
      const started = await http(first.url, 'POST', '/v13/native/runs', { intent_id: intentId, device_host: '127.0.0.1' });
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const runId = started.body.native_run.native_run_id as string;
      await hold.reached;
      const atKill = await http(first.url, 'GET', `/v13/native/runs/${runId}`);
      assert.equal(atKill.body.native_run.state, point.stateAtKill);
      assert.equal((await http(first.url, 'GET', `/v13/native/intents/${intentId}`)).body.intent.state, 'suspended');

      await kill9(first.proc);
      hold.release();

      const second = await startService(cfg);
      procs.push(second.proc);
      const run = (await http(second.url, 'GET', `/v13/native/runs/${runId}`)).body.native_run;
      assert.equal(run.state, 'uncertain');
      assert.equal(run.steps.at(-1).step, 'recovered');
      assert.match(run.outcome.reason, new RegExp(`service stopped while the run was ${point.stateAtKill}`));
      const after = (await http(second.url, 'GET', `/v13/native/intents/${intentId}`)).body.intent;
      assert.equal(after.state, 'suspended');
      assert.equal(after.health_gate, 'none');
      const job = (await http(second.url, 'GET', `/v13/jobs/${started.body.job.job_id}`)).body.job;
      assert.equal(job.state, 'failed');

      // Never re-run: not by the restart, not by asking again, not through a health check.
      const again = await http(second.url, 'POST', '/v13/native/runs', { intent_id: intentId, device_host: '127.0.0.1' });
      assert.equal(again.body.error.code, 'intent_not_active');
      const hc = await http(second.url, 'POST', '/v13/native/health-checks', {
        intent_id: intentId,
        run_id: runId,
        device_host: '127.0.0.1',
      });
      assert.equal(hc.body.error.code, 'health_gate_not_pending');
      const c = stepsFor(dev).counts;
      assert.deepEqual({ 'ftp-stor': c['ftp-stor'], 'run-update': c['run-update'] }, point.expected);
      await kill9(second.proc);
    });
  });
}
