// The one place an intent changes state. Every change is an event; the table says from which
// states the event is legal, and `applyIntentEvent` refuses anything else — so no route, runner or
// recovery can move an intent in a way the flow does not allow (docs/ultimate/NATIVE.md).
//
//   active ──latch──▶ suspended(in flight) ──settle──▶ consumed            (one-shot)
//                                          └─settle──▶ suspended(gate pending) ──health-passed──▶ active | expired | exhausted
//                                          └─uncertain▶ suspended(gate none; only revoke leaves it)
//   active ──expire──▶ expired      active ──exhaust──▶ exhausted      any ──revoke──▶ revoked
import type { HealthGate, IntentState, NativeIntent } from './native-records.js';

export type IntentEvent =
  | { kind: 'latch'; runId: string }
  | { kind: 'settle'; runId: string }
  | { kind: 'uncertain'; runId: string; reason: string }
  | { kind: 'health-passed'; runId: string; nowMs: number }
  | { kind: 'expire' }
  | { kind: 'exhaust' }
  | { kind: 'revoke' };

const LEGAL_FROM: Record<IntentEvent['kind'], readonly IntentState[]> = {
  latch: ['active'],
  settle: ['suspended'],
  uncertain: ['suspended'],
  'health-passed': ['suspended'],
  expire: ['active'],
  exhaust: ['active'],
  revoke: INTENT_ALL(),
};

function INTENT_ALL(): IntentState[] {
  return ['active', 'suspended', 'revoked', 'expired', 'exhausted', 'consumed'];
}

export class IllegalIntentTransition extends Error {
  override readonly name = 'IllegalIntentTransition';
  constructor(
    readonly intent: NativeIntent,
    readonly event: IntentEvent['kind'],
  ) {
    super(
      `intent ${intent.intent_id} is ${intent.state}${intent.state_reason ? ` (${intent.state_reason})` : ''}; "${event}" is not allowed from there`,
    );
  }
}

/** True when the intent has passed its expiry at `nowMs`. */
export function isExpired(intent: NativeIntent, nowMs: number): boolean {
  return intent.expires_at !== null && nowMs >= Date.parse(intent.expires_at);
}

export function isExhausted(intent: NativeIntent): boolean {
  return intent.max_runs !== null && intent.runs_started >= intent.max_runs;
}

/** The intent after `event` (a new object), or IllegalIntentTransition. */
export function applyIntentEvent(intent: NativeIntent, event: IntentEvent, nowIso: string): NativeIntent {
  if (!LEGAL_FROM[event.kind].includes(intent.state)) throw new IllegalIntentTransition(intent, event.kind);
  const to = (state: IntentState, reason: string | null, gate: HealthGate = intent.health_gate): NativeIntent => ({
    ...intent,
    state,
    state_reason: reason,
    health_gate: gate,
    updated_at: nowIso,
  });
  switch (event.kind) {
    case 'latch':
      return {
        ...to('suspended', `native run ${event.runId} is in flight`, 'none'),
        runs_started: intent.runs_started + 1,
        last_run_id: event.runId,
      };
    case 'settle':
      if (intent.last_run_id !== event.runId || intent.health_gate !== 'none') throw new IllegalIntentTransition(intent, event.kind);
      return intent.mode === 'one-shot'
        ? to('consumed', `the one-shot intent ran once (native run ${event.runId})`, 'none')
        : to(
            'suspended',
            `native run ${event.runId} finished; the device runs native code until it is recovered: power-cycle it, then pass the C64 health check`,
            'pending',
          );
    case 'uncertain':
      return to(
        'suspended',
        `native run ${event.runId} is uncertain (${event.reason}); it is never retried — review the device, revoke this intent and create a new one`,
        'none',
      );
    case 'health-passed': {
      if (intent.health_gate !== 'pending' || intent.last_run_id !== event.runId) throw new IllegalIntentTransition(intent, event.kind);
      if (isExpired(intent, event.nowMs)) return to('expired', `health check passed after the expiry ${intent.expires_at}`, 'passed');
      if (isExhausted(intent)) return to('exhausted', `health check passed; all ${intent.max_runs} run(s) are used`, 'passed');
      return to('active', null, 'passed');
    }
    case 'expire':
      return to('expired', `expired at ${intent.expires_at}`, intent.health_gate);
    case 'exhaust':
      return to('exhausted', `all ${intent.max_runs} run(s) are used`, intent.health_gate);
    case 'revoke':
      return intent.state === 'revoked' ? intent : to('revoked', 'revoked by the user', intent.health_gate);
  }
}
