// A stream start without a clear answer is never retried: the device sits behind a loopback proxy
// that forwards the start to the virtual Ultimate 64 (so the stream really starts) and then cuts
// the connection before any answer. The service must report capture_ambiguous, send the one
// confirmed stop, and never send a second start. A start the device refuses is capture_failed.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { closeServer, listenLoopback } from '../../../../../common/index.js';
import { UltimateToolService } from '../../../../../services/ultimate-tool/index.js';
import { VirtualUltimate } from '../../../../../engines/ultimate/virtual/index.js';
import { faultsFor } from '../../../../../engines/ultimate/virtual/device/fault-injection.js';
import { exampleProject } from '../../harness.js';

const work = mkdtempSync(join(tmpdir(), 'ultimate-captures-ambiguous-'));
let dev: VirtualUltimate;
let proxy: http.Server;
let svc: UltimateToolService;
const seen: string[] = [];
let cutStart = true;

before(async () => {
  cpSync(exampleProject, join(work, 'project'), { recursive: true, filter: (s) => !s.includes('/build') });
  dev = await VirtualUltimate.start({});
  proxy = http.createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push(`${req.method} ${path.split('?')[0]}`);
    const up = http.request({ host: '127.0.0.1', port: dev.ports.http, method: req.method, path, headers: req.headers }, (r) => {
      if (cutStart && path.startsWith('/v1/streams/debug:start')) {
        r.resume();
        req.socket.destroy(); // the device acted, the answer never arrives
        return;
      }
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  const port = await listenLoopback(proxy, 0, '127.0.0.1');
  svc = await UltimateToolService.start({
    projectDir: join(work, 'project'),
    storeDir: join(work, 'store'),
    port: 0,
    vice: null,
    ultimate: { device: { baseUrl: `http://127.0.0.1:${port}`, ftpPort: dev.ports.ftp, dmaPort: dev.ports.dma }, virtualDevice: true },
    captureLimits: { maxDatagrams: 200, maxDurationMs: 3000 },
  });
});

after(async () => {
  await svc?.stop();
  await closeServer(proxy);
  await dev?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function post(path: string, body: unknown) {
  const r = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
}

/** A capture start queues a capture job; what went wrong at the device is the job's error. */
async function failedCapture(id: string): Promise<any> {
  const r = await post(`/v13/captures/debug-stream/preparations/${id}/start`, {
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  for (;;) {
    const res = await fetch(`${svc.url}/v13/jobs/${r.body.job.job_id}`);
    const { job } = (await res.json()) as any;
    if (job.state !== 'queued' && job.state !== 'running') {
      assert.equal(job.state, 'failed', JSON.stringify(job));
      return job;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function prepared(): Promise<string> {
  const probe = await post('/v13/probes', {});
  const prep = await post('/v13/captures/debug-stream/preparations', { probe_id: probe.body.probe.probe_id, receiver_ipv4: '127.0.0.1' });
  assert.equal(prep.status, 201, JSON.stringify(prep.body));
  return prep.body.preparation.preparation_id;
}

test('an unanswered stream start: capture_ambiguous, not retried, the confirmed stop sent', { timeout: 60_000 }, async () => {
  const id = await prepared();
  seen.length = 0;
  const r = await failedCapture(id);
  assert.equal(r.error.code, 'capture_ambiguous');
  assert.equal(r.error.details.stream_started, 'unknown');
  assert.equal(r.error.details.retried, false);
  assert.equal(seen.filter((s) => s.startsWith('PUT /v1/streams/debug:start')).length, 1, seen.join(', '));
  assert.equal(seen.filter((s) => s.startsWith('PUT /v1/streams/debug:stop')).length, 1, seen.join(', '));
  assert.equal(dev.streamer.active, false, 'the stream that did start was stopped');
  // The preparation was consumed: it is never started a second time.
  const again = await post(`/v13/captures/debug-stream/preparations/${id}/start`, {
    confirmed_stream_start_count: 1,
    confirmed_stream_stop_count: 1,
  });
  assert.equal(again.body.error.code, 'preparation_settled');
});

test('a refused stream start is capture_failed (the device said no: nothing streams)', { timeout: 60_000 }, async () => {
  cutStart = false;
  const id = await prepared();
  faultsFor(dev).failNext({ method: 'PUT', path: '/v1/streams/debug:start', status: 503 });
  const r = await failedCapture(id);
  assert.equal(r.error.code, 'capture_failed');
  assert.equal(r.error.details.stream_started, false);
  assert.equal(dev.streamer.active, false);
});
