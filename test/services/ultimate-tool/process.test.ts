// The real `ultimate-tool serve` process: kill -9 in the middle of a job and restart (no
// half-written record; the interrupted job becomes `failed` with a clear reason), the device
// password never appears in a response, a log line or the store, and `virtual-vice` refuses
// flags it does not know.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { binCommand } from '../../helpers/bin.js';
import { exampleProject, virtualViceCommand } from './harness.js';

const work = mkdtempSync(join(tmpdir(), 'ultimate-serve-proc-'));
after(() => rmSync(work, { recursive: true, force: true }));

function copyProject(name: string, edit?: (m: any) => void): string {
  const dir = join(work, name);
  cpSync(exampleProject, dir, { recursive: true, filter: (s) => !s.includes('/build') && !s.endsWith('.ultimate-tool') });
  if (edit) {
    const m = JSON.parse(readFileSync(join(dir, 'ultimate-tool.json'), 'utf8'));
    edit(m);
    writeFileSync(join(dir, 'ultimate-tool.json'), JSON.stringify(m));
  }
  return dir;
}

interface Served {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stdout: () => string;
}

async function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const { command, args: base } = binCommand('ultimate-tool', ['serve', '--port', '0', ...args]);
  const child = spawn(command, base, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(JSON.parse(line).url);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return { child, url, stderr: () => err, stdout: () => out };
}

async function stopServe(s: Served, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const gone = new Promise((r) => s.child.once('exit', r));
  s.child.kill(signal);
  await gone;
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: JSON.parse(text), text };
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('ultimate-tool serve as a process', { timeout: 240_000 }, () => {
  it('kill -9 mid-job, restart: the interrupted job is failed with a reason, no half-written run, earlier runs intact', async () => {
    const project = copyProject('killed', (m) => {
      m.tests.find((t: any) => t.name === 'hang-times-out').budget.time_ms = 120_000;
    });
    const store = join(work, 'killed-store');
    const args = ['--project', project, '--store', store, '--virtual-device', '--no-vice'];
    const first = await serve(args);
    let doneRun: string;
    let killedJob: string;
    try {
      const probe1 = (await call(first.url, 'POST', '/v13/probes', {})).body.probe.probe_id;
      const ok = await call(first.url, 'POST', '/v13/jobs', {
        test: 'sum-passes',
        targets: ['ultimate'],
        probe_id: probe1,
        confirmed_reset_count: 1,
        confirmed_reu_write_count: 0,
      });
      const okJob = await waitFor('the first job', async () => {
        const j = (await call(first.url, 'GET', `/v13/jobs/${ok.body.job.job_id}`)).body.job;
        return j.state === 'finished' ? j : undefined;
      });
      doneRun = okJob.run_ids[0];
      const probe2 = (await call(first.url, 'POST', '/v13/probes', {})).body.probe.probe_id;
      const hang = await call(first.url, 'POST', '/v13/jobs', {
        test: 'hang-times-out',
        targets: ['ultimate'],
        probe_id: probe2,
        confirmed_reset_count: 1,
        confirmed_reu_write_count: 0,
      });
      killedJob = hang.body.job.job_id;
      await waitFor('the hang job to be running its run', async () => {
        const j = (await call(first.url, 'GET', `/v13/jobs/${killedJob}`)).body.job;
        return j.state === 'running' && /run 1 of 1/.test(j.progress.phase) ? j : undefined;
      });
    } finally {
      await stopServe(first, 'SIGKILL');
    }
    assert.equal(first.child.signalCode, 'SIGKILL');
    const second = await serve(args);
    try {
      const job = (await call(second.url, 'GET', `/v13/jobs/${killedJob}`)).body.job;
      assert.equal(job.state, 'failed');
      assert.equal(job.error.code, 'interrupted');
      assert.match(job.error.message, /stopped .* while this job was queued or running/);
      assert.deepEqual(job.run_ids, []);
      const runs = (await call(second.url, 'GET', '/v13/runs?limit=100')).body.runs;
      assert.deepEqual(
        runs.map((r: any) => r.run_id),
        [doneRun],
      );
      const run = (await call(second.url, 'GET', `/v13/runs/${doneRun}`)).body.run;
      assert.equal(run.status, 'passed');
      const png = await call(second.url, 'GET', `/v13/runs/${doneRun}/evidence/screenshot.png`);
      assert.equal(png.status, 200);
      // Only the committed run's evidence folder is left.
      assert.deepEqual(readdirSync(join(store, 'runs')), [doneRun]);
      assert.equal((await call(second.url, 'GET', '/v13/jobs/active')).body.job, null);
    } finally {
      await stopServe(second);
    }
  });

  it('kill -9 of the service while a vice run is going: the emulator it launched goes away too', async () => {
    const project = copyProject('vice-killed', (m) => {
      m.tests.find((t: any) => t.name === 'hang-times-out').budget.time_ms = 120_000;
    });
    const s = await serve([
      '--project',
      project,
      '--store',
      join(work, 'vice-killed-store'),
      '--vice-command',
      virtualViceCommand().join(' '),
    ]);
    let emulator: number;
    try {
      const job = (await call(s.url, 'POST', '/v13/jobs', { test: 'hang-times-out', targets: ['vice'] })).body.job;
      await waitFor('the vice run', async () => {
        const j = (await call(s.url, 'GET', `/v13/jobs/${job.job_id}`)).body.job;
        return /vice: run 1/.test(j.progress.phase) ? j : undefined;
      });
      const children = spawnSync('pgrep', ['-P', String(s.child.pid)], { encoding: 'utf8' })
        .stdout.trim()
        .split('\n')
        .filter(Boolean);
      assert.equal(children.length, 1, `expected the one emulator child, got ${children.join(',')}`);
      emulator = Number(children[0]);
      assert.match(readFileSync(`/proc/${emulator}/cmdline`, 'utf8'), /virtual-vice/);
    } finally {
      await stopServe(s, 'SIGKILL');
    }
    await waitFor('the orphaned emulator to exit', async () => {
      try {
        process.kill(emulator, 0);
        return undefined;
      } catch {
        return true;
      }
    });
  });

  it('C64U_PASSWORD never appears in responses, logs, stdout or the store', async () => {
    const secret = 'pw-Zq81-never-to-be-seen';
    const project = copyProject('secret');
    const store = join(work, 'secret-store');
    const s = await serve(['--project', project, '--store', store, '--virtual-device', '--vice-command', virtualViceCommand().join(' ')], {
      C64U_PASSWORD: secret,
      MCP_ENGINES_LOG: 'debug',
    });
    const texts: string[] = [];
    try {
      const rec = async (m: string, p: string, b?: unknown) => {
        const r = await call(s.url, m, p, b);
        texts.push(r.text);
        return r;
      };
      await rec('GET', '/v13/targets');
      await rec('GET', '/v13/project');
      const probe = (await rec('POST', '/v13/probes', {})).body.probe;
      texts.push(JSON.stringify(probe));
      const job = await rec('POST', '/v13/jobs', {
        test: 'brk-crash',
        targets: ['vice', 'ultimate'],
        probe_id: probe.probe_id,
        confirmed_reset_count: 1,
        confirmed_reu_write_count: 0,
      });
      const done = await waitFor('the job', async () => {
        const j = await rec('GET', `/v13/jobs/${job.body.job.job_id}`);
        return ['finished', 'failed'].includes(j.body.job.state) ? j.body.job : undefined;
      });
      assert.equal(done.state, 'finished', JSON.stringify(done));
      for (const id of done.run_ids) {
        const run = (await rec('GET', `/v13/runs/${id}`)).body.run;
        assert.equal(run.status, 'crashed', 'the password-protected device was reachable with the password');
        for (const e of run.evidence) await rec('GET', `/v13/runs/${id}/evidence/${e.name}`);
      }
      await rec('GET', '/v13/runs?limit=5');
      await rec('POST', '/v13/jobs', { bad: true });
      await rec('GET', '/v13/openapi.json');
    } finally {
      await stopServe(s);
    }
    const haystacks = [...texts, s.stdout(), s.stderr()];
    const files: string[] = [];
    const walk = (d: string) => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(store);
    for (const f of files) haystacks.push(readFileSync(f).toString('latin1'));
    assert.ok(files.length > 10);
    for (const h of haystacks) assert.equal(h.includes(secret), false);
    assert.match(s.stdout(), /"url":"http:\/\/127\.0\.0\.1:\d+"/);
  });

  it('serve and virtual-vice refuse bad command lines with exit 64 and a message', () => {
    const run = (args: string[], env: Record<string, string> = {}) => {
      const { command, args: a } = binCommand('ultimate-tool', args);
      return spawnSync(command, a, { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
    };
    const unknown = run(['virtual-vice', '-binarymonitor', '-fullscreen']);
    assert.equal(unknown.status, 64);
    assert.match(unknown.stderr, /unknown option "-fullscreen"/);
    const noMonitor = run(['virtual-vice']);
    assert.equal(noMonitor.status, 64);
    assert.match(noMonitor.stderr, /-binarymonitor is required/);
    const remote = run(['virtual-vice', '-binarymonitor', '-binarymonitoraddress', 'ip4://10.0.0.1:6502']);
    assert.equal(remote.status, 64);
    assert.match(remote.stderr, /loopback only/);
    const badPort = run(['serve', '--port', 'x']);
    assert.equal(badPort.status, 64);
    assert.match(badPort.stderr, /--port expects an integer/);
    const both = run(['serve', '--virtual-device'], { C64U_HOST: '127.0.0.1' });
    assert.equal(both.status, 64);
    assert.match(both.stderr, /--virtual-device and C64U_HOST/);
    const noProject = run(['serve', '--project', join(work, 'missing'), '--port', '0']);
    assert.equal(noProject.status, 1);
    assert.match(noProject.stderr, /ultimate-tool\.json/);
  });
});
