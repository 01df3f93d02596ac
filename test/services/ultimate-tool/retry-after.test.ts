// `Retry-After` on 429 answers (issue 21): the HTTP front sets it from the error's
// details.retry_after_ms, rounded up to whole seconds (RFC 9110 delay-seconds). probe_rate_limited
// carries the figure and so the header; queue_full carries none (its wait is not known when it is
// refused; http/http-front.ts says why) and so no header. The OpenAPI document declares the header
// on the 429 answers. A real service over real HTTP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PROBE_RATE } from '../../../services/ultimate-tool/safety/probes.js';
import { type Harness, startHarness } from './harness.js';

let h: Harness;

before(async () => {
  h = await startHarness({ service: { maxJobsPerTarget: 1 } });
});
after(async () => {
  await h?.close();
});

async function post(path: string, body: unknown): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const r = await fetch(`${h.svc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() };
}

test('probe_rate_limited: Retry-After is the body’s retry_after_ms in whole seconds, rounded up', async () => {
  for (let i = 0; i < PROBE_RATE.burst; i++) await h.probe();
  const r = await post('/v13/probes', {});
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'probe_rate_limited');
  const ms = r.body.error.details.retry_after_ms as number;
  assert.ok(ms > 0 && ms <= PROBE_RATE.refillMs, `retry_after_ms ${ms}`);
  assert.match(r.retryAfter ?? '', /^[1-9][0-9]*$/, 'delay-seconds: a positive integer');
  assert.equal(Number(r.retryAfter), Math.ceil(ms / 1000));
  assert.ok(Number(r.retryAfter) * 1000 >= ms, 'a client waiting the header’s seconds is never early');
});

test('queue_full: answered without Retry-After (no honest wait is known), other errors without it too', async () => {
  const running = await post('/v13/jobs', { test: 'sum-passes', targets: ['vice'], repeat: 20 });
  assert.equal(running.status, 201, JSON.stringify(running.body));
  try {
    const full = await post('/v13/jobs', { test: 'sum-passes', targets: ['vice'] });
    assert.equal(full.status, 429, JSON.stringify(full.body));
    assert.equal(full.body.error.code, 'queue_full');
    assert.equal(full.body.error.details.retry_after_ms, undefined);
    assert.equal(full.retryAfter, null);
  } finally {
    await post(`/v13/jobs/${running.body.job.job_id}/cancel`, {});
    await h.waitJob(running.body.job.job_id);
  }
  const notFound = await fetch(`${h.svc.url}/v13/jobs/nope`);
  assert.equal(notFound.status, 404);
  assert.equal(notFound.headers.get('retry-after'), null);
});

test('the OpenAPI document declares Retry-After on the 429 answers of the routes that can give one', async () => {
  const doc = (await h.get('/v13/openapi.json')).body;
  const probe = doc.paths['/v13/probes'].post.responses['429'];
  assert.ok(probe, 'POST /v13/probes has a 429 answer');
  assert.equal(probe.headers['Retry-After'].schema.type, 'integer');
  assert.match(probe.description, /probe_rate_limited/);
  const jobs = doc.paths['/v13/jobs'].post.responses['429'];
  assert.match(jobs.description, /queue_full/);
  assert.match(jobs.headers['Retry-After'].description, /not with queue_full/);
  // A route with no 429 code declares no 429 answer.
  assert.equal(doc.paths['/v13/runs/{run_id}'].get.responses['429'], undefined);
});
