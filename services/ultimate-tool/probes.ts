// Probe handles for the physical-device safety rules: five minutes, single use, pinned to the
// identity the device reported. Stored in the service store so "consumed" survives a restart.
import { randomUUID } from 'node:crypto';
import type { ProbeSnapshot } from '../../engines/ultimate/device.js';
import type { Probe } from './api-schemas.js';
import { ServiceError } from './service-error.js';
import type { ServiceStore, StoredProbe } from './store.js';

export const PROBE_TTL_MS = 5 * 60 * 1000;

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
  const p = store.getProbe(probeId);
  if (!p) throw new ServiceError('probe_unknown', `no probe ${JSON.stringify(probeId)}; obtain one with POST /v13/probes`, 422);
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
