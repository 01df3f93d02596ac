// A reliability finding: 2,000 probes were accepted in 4.3 s, each touching the device,
// and all 2,000 rows were kept. Probes are now rate-limited (429 probe_rate_limited saying when to
// retry, nothing sent to the device) and a probe row is pruned a while after it expired.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { faultsFor } from '../../../engines/ultimate/virtual/device/fault-injection.js';
import { ServiceError } from '../../../services/ultimate-tool/http/service-error.js';
import {
  PROBE_KEEP_AFTER_EXPIRY_MS,
  PROBE_RATE,
  PROBE_ROWS_BOUND,
  PROBE_TTL_MS,
  ProbeRateLimiter,
} from '../../../services/ultimate-tool/safety/probes.js';
import { type Harness, startHarness } from './harness.js';

function refusal(limiter: ProbeRateLimiter, nowMs: number): ServiceError {
  try {
    limiter.take(nowMs);
  } catch (e) {
    assert.ok(e instanceof ServiceError);
    return e;
  }
  return assert.fail(`a probe at ${nowMs} was admitted`);
}

describe('the probe rate limit (token bucket on the service clock)', () => {
  it('admits the burst, then refuses with 429 probe_rate_limited and the exact wait; one more per refill', () => {
    const l = new ProbeRateLimiter();
    const t0 = 1_000_000;
    for (let i = 0; i < PROBE_RATE.burst; i++) l.take(t0);
    const e = refusal(l, t0 + 1000);
    assert.equal(e.code, 'probe_rate_limited');
    assert.equal(e.status, 429);
    assert.equal(e.details?.retry_after_ms, PROBE_RATE.refillMs - 1000);
    assert.equal(e.details?.retry_at, new Date(t0 + PROBE_RATE.refillMs).toISOString());
    assert.match(e.message, /too many probes: at most 20 at once and one more every 3 s .*retry in 2 s/);
    l.take(t0 + PROBE_RATE.refillMs);
    refusal(l, t0 + PROBE_RATE.refillMs);
    // A long pause refills the burst, never more.
    const later = t0 + 100 * PROBE_RATE.refillMs;
    for (let i = 0; i < PROBE_RATE.burst; i++) l.take(later);
    refusal(l, later);
  });

  it('a clock moved backwards refills nothing', () => {
    const l = new ProbeRateLimiter();
    for (let i = 0; i < PROBE_RATE.burst; i++) l.take(5_000_000);
    refusal(l, 4_000_000);
    refusal(l, 4_000_000 + PROBE_RATE.refillMs - 1);
    l.take(4_000_000 + PROBE_RATE.refillMs);
  });
});

describe('POST /v13/probes is bounded', { timeout: 600_000 }, () => {
  let h: Harness;
  // The service's clock, moved by the tests only (a loaded machine cannot refill the bucket).
  let now = Date.UTC(2026, 0, 1);
  before(async () => {
    h = await startHarness({ service: { now: () => now } });
  });
  after(() => h?.close());

  const probeRows = (): number => {
    const db = new Database(join(h.store, 'service.sqlite3'), { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM probes').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it('over HTTP: the burst is admitted, the next probe is 429 with retry_after_ms and reaches no device; after the wait it is admitted', async () => {
    for (let i = 0; i < PROBE_RATE.burst; i++) await h.probe();
    // Armed fault: a request reaching the device would be answered by it (and counted).
    const faults = faultsFor(h.dev);
    faults.failNext({ times: 1 });
    const injected = faults.injected;
    now += 1000;
    const r = await h.post('/v13/probes', {});
    assert.equal(r.status, 429, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'probe_rate_limited');
    assert.equal(r.body.error.details.retry_after_ms, PROBE_RATE.refillMs - 1000);
    assert.match(r.body.error.message, /retry in 2 s, at .*nothing was sent to the device/);
    assert.equal(faults.injected, injected, 'the refused probe sent nothing to the device');
    now += r.body.error.details.retry_after_ms;
    assert.match(await h.probe(), /^[0-9a-f-]{36}$/);
    assert.equal(faults.injected, injected + 1, 'the admitted probe reached the device (the armed fault, then a retry)');
  });

  it('2,000 probes at the allowed rate do not keep 2,000 rows: expired ones are pruned', async () => {
    for (let i = 0; i < 2000; i++) {
      now += PROBE_RATE.refillMs;
      await h.probe();
    }
    const rows = probeRows();
    assert.ok(rows <= PROBE_ROWS_BOUND, `${rows} probe rows kept, bound ${PROBE_ROWS_BOUND}`);
    // The rows kept are those not yet PROBE_KEEP_AFTER_EXPIRY_MS past their expiry: none pruned early.
    const window = PROBE_TTL_MS + PROBE_KEEP_AFTER_EXPIRY_MS;
    assert.equal(rows, window / PROBE_RATE.refillMs + 1);
  });

  it('an expired probe still answers probe_expired until it is pruned, then probe_unknown', async () => {
    now += PROBE_RATE.refillMs;
    const id = await h.probe();
    const job = { test: 'sum-passes', targets: ['ultimate'], probe_id: id, confirmed_reset_count: 1, confirmed_reu_write_count: 0 };
    now += PROBE_TTL_MS + 1;
    const expired = await h.post('/v13/jobs', job);
    assert.equal(expired.body.error.code, 'probe_expired');
    now += PROBE_KEEP_AFTER_EXPIRY_MS;
    await h.probe(); // pruning happens when a probe is stored
    const unknown = await h.post('/v13/jobs', job);
    assert.equal(unknown.body.error.code, 'probe_unknown');
    assert.match(unknown.body.error.message, /forgotten 10 minutes after it expires/);
  });
});
