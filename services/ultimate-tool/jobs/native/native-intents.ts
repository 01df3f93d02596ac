// Native intents: the durable authorization to run one prepared program on one exact device.
// Creating one consumes a valid, unexpired, unused probe and binds exactly what that probe saw
// plus the UE2 hash; state changes go through intent-state.ts only.
import { randomUUID } from 'node:crypto';
import { checkProbe } from '../../safety/probes.js';
import { ServiceError } from '../../http/service-error.js';
import { type NativeContext, isoNow } from './native-context.js';
import { boundIdentityOf, isElite2 } from './native-identity.js';
import type { NativeIntent, NativeIntentRequest, NativeRunSummary } from './native-records.js';

export async function createNativeIntent(ctx: NativeContext, req: NativeIntentRequest): Promise<NativeIntent> {
  const prep = ctx.native.getPreparation(req.preparation_id);
  if (!prep)
    throw new ServiceError('not-found', `no native preparation ${req.preparation_id}; create one with POST /v13/native/preparations`, 404);
  const nowMs = ctx.now();
  if (req.expires_at !== undefined && Date.parse(req.expires_at) <= nowMs)
    throw new ServiceError('invalid-request', `expires_at ${req.expires_at} is not in the future`, 400);
  const probe = checkProbe(ctx.store, req.probe_id, false, nowMs);
  const identity = boundIdentityOf(probe.snapshot);
  if (!isElite2(identity.product))
    throw new ServiceError(
      'not_elite2',
      `the probed device is "${identity.product}"; native programs (.UE2 update files) run only on an Ultimate 64 Elite II`,
      409,
      { product: identity.product },
    );
  if (!(await ctx.native.getUe2(prep.ue2_sha256)))
    throw new ServiceError(
      'ue2_changed',
      `the prepared update file no longer hashes to ${prep.ue2_sha256}; prepare the program again`,
      409,
    );
  const intentId = randomUUID();
  if (!ctx.store.consumeProbe(probe.probe_id, `native-intent:${intentId}`, nowMs))
    throw new ServiceError('probe_consumed', `probe ${probe.probe_id} was just used by another request`, 422);
  const now = isoNow(ctx);
  const intent: NativeIntent = {
    intent_id: intentId,
    preparation_id: prep.preparation_id,
    program: prep.program,
    ue2_sha256: prep.ue2_sha256,
    mode: req.mode,
    state: 'active',
    state_reason: null,
    health_gate: 'none',
    identity,
    probe_id: probe.probe_id,
    created_at: now,
    updated_at: now,
    expires_at: req.expires_at === undefined ? null : new Date(req.expires_at).toISOString(),
    max_runs: req.mode === 'one-shot' ? 1 : (req.max_runs ?? null),
    runs_started: 0,
    last_run_id: null,
  };
  ctx.native.insertIntent(intent);
  return intent;
}

export function getNativeIntent(ctx: NativeContext, id: string): NativeIntent & { runs: NativeRunSummary[] } {
  const intent = ctx.native.getIntent(id);
  if (!intent) throw new ServiceError('not-found', `no native intent ${id}`, 404);
  return { ...intent, runs: ctx.native.runsOf(id) };
}

export function revokeNativeIntent(ctx: NativeContext, id: string): NativeIntent {
  if (!ctx.native.getIntent(id)) throw new ServiceError('not-found', `no native intent ${id}`, 404);
  return ctx.native.transition(id, { kind: 'revoke' }, isoNow(ctx));
}
