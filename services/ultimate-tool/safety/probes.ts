// Probe handles for the physical-device safety rules: five minutes, single use, pinned to the
// identity the device reported. Stored in the service store so "consumed" survives a restart.
// Bounded both ways: every probe touches the device, so they are rate-limited (a token
// bucket on the service's clock), and a probe row is pruned a while after it expired, so the
// table holds at most what the rate allows in that window — never one row per probe ever made.
import { randomUUID } from 'node:crypto';
import type { ProbeSnapshot } from '../../../engines/ultimate/index.js';
import type { Probe } from '../api/schemas.js';
import { ServiceError } from '../http/service-error.js';
import { CorruptRowError, type ServiceStore, type StoredProbe } from '../store/store.js';

export const PROBE_TTL_MS = 5 * 60 * 1000;

/**
 * At most `burst` probes at once, then one more every `refillMs` (20 a minute sustained): far
 * above a person reviewing each probe before a job, far below a loop hammering the device.
 */
export const PROBE_RATE = { burst: 20, refillMs: 3_000 } as const;

/**
 * How long an expired probe is kept: a job that arrives late still hears `probe_expired` (not
 * `probe_unknown`) for this long, then the row is pruned.
 */
export const PROBE_KEEP_AFTER_EXPIRY_MS = 10 * 60 * 1000;

/** The most probe rows the table can hold: what the rate admits while a row lives, plus the burst. */
export const PROBE_ROWS_BOUND = PROBE_RATE.burst + Math.ceil((PROBE_TTL_MS + PROBE_KEEP_AFTER_EXPIRY_MS) / PROBE_RATE.refillMs) + 1;

/**
 * The probe rate limit: a token bucket on the service's clock (the tests' clock moves it). A probe
 * refused here touches nothing; the error says when the next one is admitted.
 */
export class ProbeRateLimiter {
  #tokens: number = PROBE_RATE.burst;
  #atMs: number | undefined;

  /** Takes one token, or throws `probe_rate_limited` (429) with the wait. */
  take(nowMs: number): void {
    if (this.#atMs === undefined) this.#atMs = nowMs;
    // A clock moved backwards refills nothing (and takes nothing back).
    const elapsed = Math.max(0, nowMs - this.#atMs);
    const refilled = Math.floor(elapsed / PROBE_RATE.refillMs);
    if (refilled > 0) {
      this.#tokens = Math.min(PROBE_RATE.burst, this.#tokens + refilled);
      this.#atMs = this.#tokens === PROBE_RATE.burst ? nowMs : this.#atMs + refilled * PROBE_RATE.refillMs;
    } else if (nowMs < this.#atMs) this.#atMs = nowMs;
    if (this.#tokens > 0) {
      this.#tokens--;
      return;
    }
    const retryAfterMs = Math.max(1, this.#atMs + PROBE_RATE.refillMs - nowMs);
    const retryAt = new Date(nowMs + retryAfterMs).toISOString();
    throw new ServiceError(
      'probe_rate_limited',
      `too many probes: at most ${PROBE_RATE.burst} at once and one more every ${PROBE_RATE.refillMs / 1000} s (each probe touches the device); retry in ${Math.ceil(retryAfterMs / 1000)} s, at ${retryAt} — nothing was sent to the device`,
      429,
      { retry_after_ms: retryAfterMs, retry_at: retryAt, burst: PROBE_RATE.burst, refill_ms: PROBE_RATE.refillMs },
    );
  }
}

/** Stores a new probe and prunes the rows that expired more than PROBE_KEEP_AFTER_EXPIRY_MS ago. */
export function keepProbe(store: ServiceStore, p: StoredProbe, nowMs: number): void {
  store.putProbe(p);
  store.pruneProbes(nowMs - PROBE_KEEP_AFTER_EXPIRY_MS);
}

/** The identity fields a job must find unchanged before its first mutation. */
export function identityOf(s: ProbeSnapshot): Record<string, string | boolean | null> {
  return {
    host: s.host,
    product: s.product,
    firmware_version: s.firmwareVersion,
    fpga_version: s.fpgaVersion,
    core_version: s.coreVersion ?? null,
    api_version: s.apiVersion,
    hostname: s.hostname,
    unique_id: s.uniqueId ?? null,
    virtual: s.virtual,
  };
}

export function sameIdentity(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => a[k] !== b[k]);
}

export const CAPABILITIES = ['run_prg', 'readmem', 'debug_register', 'reu_write', 'debug_stream'];

export function probeView(p: StoredProbe): Probe {
  const id = p.snapshot as Record<string, string | boolean | null>;
  return {
    probe_id: p.probe_id,
    expires_at: new Date(p.expires_at_ms).toISOString(),
    strict_gate: p.strict_gate,
    identity: id,
    firmware: String(id.firmware_version ?? ''),
    core: String(id.core_version ?? id.fpga_version ?? ''),
    capabilities: CAPABILITIES,
    emulation: id.virtual === true,
  };
}

export function newProbe(snapshot: ProbeSnapshot, strictGate: boolean, nowMs: number): StoredProbe {
  return {
    probe_id: randomUUID(),
    created_at_ms: nowMs,
    expires_at_ms: nowMs + PROBE_TTL_MS,
    strict_gate: strictGate,
    consumed_at_ms: null,
    consumed_by_job: null,
    snapshot: identityOf(snapshot),
  };
}

/**
 * Checks a probe for a job and returns it; nothing is consumed here (the caller consumes it
 * only after every other check passed).
 */
export function checkProbe(store: ServiceStore, probeId: string | undefined, strictGate: boolean, nowMs: number): StoredProbe {
  if (probeId === undefined)
    throw new ServiceError('probe_unknown', 'a job with the ultimate target needs probe_id from POST /v13/probes (probe_ultimate)', 422);
  let p: StoredProbe | undefined;
  try {
    p = store.getProbe(probeId);
  } catch (e) {
    if (!(e instanceof CorruptRowError)) throw e;
    throw new ServiceError(
      'probe_unknown',
      `probe ${JSON.stringify(probeId)} cannot be used: its stored row is corrupted (not a readable probe), so it authorizes nothing; obtain a new probe`,
      422,
      { reason: 'corrupt-row' },
    );
  }
  if (!p)
    throw new ServiceError(
      'probe_unknown',
      `no probe ${JSON.stringify(probeId)} (a probe is forgotten ${PROBE_KEEP_AFTER_EXPIRY_MS / 60_000} minutes after it expires); obtain one with POST /v13/probes`,
      422,
    );
  if (p.consumed_at_ms !== null)
    throw new ServiceError(
      'probe_consumed',
      `probe ${probeId} was already used by job ${p.consumed_by_job}; a probe authorizes one job`,
      422,
      {
        consumed_by_job: p.consumed_by_job,
      },
    );
  if (nowMs >= p.expires_at_ms)
    throw new ServiceError(
      'probe_expired',
      `probe ${probeId} expired at ${new Date(p.expires_at_ms).toISOString()} (probes last five minutes)`,
      422,
      {
        expires_at: new Date(p.expires_at_ms).toISOString(),
      },
    );
  if (strictGate && !p.strict_gate)
    throw new ServiceError(
      'probe_strictness_mismatch',
      `strict_gate is true but probe ${probeId} was requested without strict_gate; request a probe with {"strict_gate": true}`,
      422,
    );
  return p;
}
