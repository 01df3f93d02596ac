// start_native_run: the one path by which this service makes an Elite II run native code.
//
//   checks (no device writes): the intent is active, not expired, not exhausted; the host is the
//     bound host; under the target lease the device is re-probed and must show the exact bound
//     identity; the stored update file must still hash to the bound UE2 SHA-256.
//   LATCH 1 (one fsync'd transaction): the run record (state latched, new id, new UTR2 token) is
//     inserted and the intent leaves `active` — BEFORE the FTP creation.
//   FTP creation of /Temp/<name>.ue2  → run `uploaded` (fsync'd).
//   the token goes to the C64 mailbox (REST writemem).
//   LATCH 2 (fsync'd): the step `trigger-latched` is recorded and the intent re-read — a revoke that
//     arrived meanwhile stops the run here — BEFORE the final Run Update write.
//   the Run Update write → run `triggered`; the output is collected on the lab bench and the token
//     must come back as `UTR2 <token> OK`.
// Any ambiguous failure (no answer, broken connection) makes the run `uncertain` and the intent
// `suspended` — never retried. A restart finds latched/uploaded/triggered runs and does the same
// (NativeStore.recover).
import { randomBytes, randomUUID } from 'node:crypto';
import type { UltimateDevice } from '../../../../engines/ultimate/index.js';
import { placeUtr2Token, triggerRunUpdate, uploadUpdateFile } from '../../../../engines/ultimate/index.js';
import type { Job } from '../../api/schemas.js';
import { EvidenceWriter } from '../../runs/evidence.js';
import { identityOf } from '../../safety/probes.js';
import { ServiceError } from '../../http/service-error.js';
import { IllegalIntentTransition, isExhausted, isExpired } from './intent-state.js';
import type { JobHandle } from '../job-runner.js';
import { type NativeContext, isAmbiguous, isoNow, newNativeJob, openDevice, saveJob } from './native-context.js';
import { boundIdentityOf, identityDifferences } from './native-identity.js';
import type { NativeIntent, NativeRun, NativeRunState } from './native-records.js';

/** A fresh token per invocation: visible, unguessable, UART-safe. */
export function newUtr2Token(): string {
  return `T${randomBytes(10).toString('hex')}`;
}

export function tokenEchoLine(token: string): string {
  return `UTR2 ${token} OK`;
}

function refuseInactive(intent: NativeIntent): never {
  throw new ServiceError(
    'intent_not_active',
    `intent ${intent.intent_id} is ${intent.state}${intent.state_reason ? `: ${intent.state_reason}` : ''}; a native run needs an active intent`,
    409,
    { state: intent.state, health_gate: intent.health_gate },
  );
}

/** Pre-latch checks of the intent itself (state, expiry, run count, host). Expiry/exhaustion are recorded. */
export function checkIntentUsable(ctx: NativeContext, intent: NativeIntent, deviceHost: string): void {
  if (intent.state !== 'active') refuseInactive(intent);
  const record = (kind: 'expire' | 'exhaust'): never => {
    try {
      refuseInactive(ctx.native.transition(intent.intent_id, { kind }, isoNow(ctx)));
    } catch (e) {
      // Another request recorded it (or moved the intent) first: refuse with what is stored now.
      if (e instanceof IllegalIntentTransition) refuseInactive(ctx.native.getIntent(intent.intent_id)!);
      throw e;
    }
  };
  if (isExpired(intent, ctx.now())) record('expire');
  if (isExhausted(intent)) record('exhaust');
  if (deviceHost !== intent.identity.device_host)
    throw new ServiceError(
      'host_mismatch',
      `device_host ${JSON.stringify(deviceHost)} is not the host this intent is bound to (${intent.identity.device_host})`,
      409,
      { bound_host: intent.identity.device_host },
    );
}

/** Re-probes the device and requires the exact bound identity (nothing is written to it). */
export async function requireBoundIdentity(device: UltimateDevice, intent: NativeIntent): Promise<void> {
  let now: ReturnType<typeof boundIdentityOf>;
  try {
    now = boundIdentityOf(identityOf(await device.probe()));
  } catch (e) {
    throw new ServiceError(
      'target_unavailable',
      `the device did not answer the identity re-probe (${(e as Error).message}); if it runs native code it must be power-cycled first`,
      503,
    );
  }
  const changed = identityDifferences(intent.identity, now);
  if (changed.length)
    throw new ServiceError(
      'identity_changed',
      `the device identity differs from the one intent ${intent.intent_id} is bound to (${changed.join(', ')}); nothing was written to it`,
      409,
      { changed, bound: intent.identity, found: now },
    );
}

export async function startNativeRun(
  ctx: NativeContext,
  intentId: string,
  deviceHost: string,
): Promise<{ native_run: NativeRun; job: Job }> {
  const first = ctx.native.getIntent(intentId);
  if (!first) throw new ServiceError('not-found', `no native intent ${intentId}`, 404);
  checkIntentUsable(ctx, first, deviceHost);
  // Admitted under the lease: the answer comes once LATCH 1 is on disk (or the refusal before it).
  const { job, admitted } = await ctx.jobs.submit({
    kind: 'native-run',
    job: newNativeJob(ctx, `native-run:${first.program}`, { intent_id: intentId }),
    targets: ['ultimate'],
    admit: (h) => latchNativeRun(ctx, h, intentId, deviceHost),
    body: async (h, { device, intent, run, ue2 }) => {
      try {
        await afterLatch(ctx, device, intent, run, ue2, h);
      } catch (e) {
        // Something of ours broke after the latch: what reached the device is unknown.
        ctx.logger.error(`native run ${run.native_run_id}: ${(e as Error)?.stack ?? String(e)}`);
        const current = ctx.native.getRun(run.native_run_id);
        if (current && ['latched', 'uploaded', 'triggered'].includes(current.state))
          finish(
            ctx,
            current,
            'uncertain',
            { verdict: 'uncertain', reason: `internal error after the latch: ${(e as Error)?.message}` },
            h,
          );
      } finally {
        await device.close().catch(() => undefined);
      }
    },
  });
  return { native_run: structuredClone(admitted.run), job };
}

/**
 * Under the lease, every check again (the intent may have changed while the request waited), the
 * identity re-probe, the UE2 hash — then LATCH 1. The job's safe step is before the latch.
 */
async function latchNativeRun(
  ctx: NativeContext,
  h: JobHandle,
  intentId: string,
  deviceHost: string,
): Promise<{ device: UltimateDevice; intent: NativeIntent; run: NativeRun; ue2: Uint8Array }> {
  const job = h.job;
  let device: UltimateDevice | undefined;
  try {
    let intent = ctx.native.getIntent(intentId)!;
    checkIntentUsable(ctx, intent, deviceHost);
    device = openDevice(ctx);
    await requireBoundIdentity(device, intent);
    const stored = await ctx.native.getUe2(intent.ue2_sha256);
    if (!stored)
      throw new ServiceError(
        'ue2_changed',
        `the prepared update file no longer hashes to ${intent.ue2_sha256} (changed or missing); prepare the program again and create a new intent`,
        409,
      );
    h.safePoint();
    const runId = randomUUID();
    const token = newUtr2Token();
    const now = isoNow(ctx);
    const run: NativeRun = {
      native_run_id: runId,
      intent_id: intentId,
      job_id: job.job_id,
      program: intent.program,
      ue2_sha256: intent.ue2_sha256,
      utr2_token: token,
      device_file: `/Temp/utr2-${runId.slice(0, 8)}.ue2`,
      state: 'latched',
      steps: [{ step: 'latched', at: now }],
      started_at: now,
      finished_at: null,
      outcome: null,
      evidence: [],
    };
    job.native_run_id = runId;
    // LATCH 1: the run exists and the intent is out of `active`, on disk, before any device write.
    try {
      intent = ctx.native.transition(intentId, { kind: 'latch', runId }, now, { insert: run });
    } catch (e) {
      if (e instanceof IllegalIntentTransition) refuseInactive(ctx.native.getIntent(intentId)!);
      throw e;
    }
    job.state = 'running';
    job.started_at = now;
    h.phase('native run latched: uploading the update file');
    return { device, intent, run, ue2: stored };
  } catch (e) {
    await device?.close();
    throw e;
  }
}

/** Ends the run (immutable from here) and moves the intent accordingly, in one fsync'd transaction. */
function finish(ctx: NativeContext, run: NativeRun, state: NativeRunState, outcome: Record<string, unknown>, job: JobHandle): void {
  const now = isoNow(ctx);
  const done: NativeRun = { ...run, state, finished_at: now, outcome, steps: [...run.steps, { step: 'finished', at: now, detail: state }] };
  Object.assign(run, done);
  const event =
    state === 'uncertain'
      ? { kind: 'uncertain' as const, runId: run.native_run_id, reason: String(outcome.reason ?? 'unknown') }
      : { kind: 'settle' as const, runId: run.native_run_id };
  try {
    ctx.native.transition(run.intent_id, event, now, { update: done });
  } catch (e) {
    if (!(e instanceof IllegalIntentTransition)) throw e;
    // The intent was revoked meanwhile: it stays revoked; the run is still recorded.
    ctx.native.putRun(done);
  }
  const ok = state === 'completed';
  const code = state === 'uncertain' ? 'native_run_uncertain' : state === 'refused' ? 'native_run_refused' : 'native_run_failed';
  saveJob(job, `native run ${state}`, { ok, ...(ok ? {} : { error: { code, message: String(outcome.reason ?? state) } }) });
}

function step(ctx: NativeContext, run: NativeRun, name: NativeRun['steps'][number]['step'], state?: NativeRunState, detail?: string): void {
  run.steps.push({ step: name, at: isoNow(ctx), ...(detail ? { detail } : {}) });
  if (state) run.state = state;
  ctx.native.putRun(run);
}

async function afterLatch(
  ctx: NativeContext,
  device: UltimateDevice,
  intent: NativeIntent,
  run: NativeRun,
  ue2: Uint8Array,
  job: JobHandle,
): Promise<void> {
  const failAt = (what: string, e: unknown): void => {
    const ambiguous = isAmbiguous(e);
    finish(
      ctx,
      run,
      ambiguous ? 'uncertain' : 'refused',
      {
        verdict: ambiguous ? 'uncertain' : 'refused_by_device',
        step: what,
        reason: `${what}: ${(e as Error)?.message ?? String(e)}${ambiguous ? ' — the device may or may not have acted on it; not retried' : ''}`,
      },
      job,
    );
  };
  // FTP creation of the update file.
  let path: string;
  try {
    path = await uploadUpdateFile(device.ftp, `utr2-${run.native_run_id.slice(0, 8)}`, ue2);
  } catch (e) {
    return failAt('FTP creation of the update file', e);
  }
  step(ctx, run, 'uploaded', 'uploaded', path);
  saveJob(job, 'update file uploaded: placing the UTR2 token');
  try {
    await placeUtr2Token(device.rest, run.utr2_token);
  } catch (e) {
    return failAt('placing the UTR2 token (REST writemem)', e);
  }
  // LATCH 2: recorded (fsync'd) and the intent re-read before the final Run Update write.
  step(ctx, run, 'token-placed');
  const now = ctx.native.getIntent(intent.intent_id);
  if (now?.state !== 'suspended' || now.last_run_id !== run.native_run_id) {
    finish(
      ctx,
      run,
      'refused',
      { verdict: 'stopped', reason: `the intent became ${now?.state ?? 'missing'} before the Run Update write; nothing ran` },
      job,
    );
    return;
  }
  step(ctx, run, 'trigger-latched');
  saveJob(job, 'Run Update write');
  let answer: Record<string, unknown>;
  try {
    answer = await triggerRunUpdate(device.rest, path);
  } catch (e) {
    return failAt('the Run Update write', e);
  }
  step(ctx, run, 'triggered', 'triggered');
  saveJob(job, 'native program started: collecting its output on the lab bench');
  await collectOutput(ctx, run, answer, job);
}

async function collectOutput(ctx: NativeContext, run: NativeRun, answer: Record<string, unknown>, job: JobHandle): Promise<void> {
  const ev = new EvidenceWriter(ctx.native.runDir(run.native_run_id));
  await ev.add('run-update-answer.json', 'application/json', Buffer.from(JSON.stringify(answer, null, 2)));
  const expected = tokenEchoLine(run.utr2_token);
  if (!ctx.bench) {
    await ev.sync();
    run.evidence = ev.entries;
    finish(
      ctx,
      run,
      'completed',
      {
        verdict: 'unverified',
        reason: 'no lab bench is configured (--bench-url): the native output was not collected',
        expected_line: expected,
      },
      job,
    );
    return;
  }
  let report: Awaited<ReturnType<NonNullable<NativeContext['bench']>['waitStopped']>> | undefined;
  let uart = '';
  let benchError: string | null = null;
  try {
    report = await ctx.bench.waitStopped(ctx.outputTimeoutMs);
    uart = await ctx.bench.uart();
  } catch (e) {
    benchError = (e as Error).message;
  }
  await ev.add('uart.txt', 'text/plain; charset=latin1', Buffer.from(uart, 'latin1'));
  if (report && typeof report === 'object') {
    const { uart: _u, ...rest } = report;
    await ev.add('native-report.json', 'application/json', Buffer.from(JSON.stringify(rest, null, 2)));
  }
  await ev.sync();
  run.evidence = ev.entries;
  step(ctx, run, 'output-collected', undefined, benchError ?? (typeof report === 'string' ? report : String(report?.status)));
  const echoed = uart.split(/\r?\n/).includes(expected);
  const stillRunning = report === 'still-running';
  finish(
    ctx,
    run,
    echoed ? 'completed' : 'failed',
    {
      verdict: echoed ? 'attributed' : 'token_missing',
      expected_line: expected,
      token_echoed: echoed,
      program_status: typeof report === 'object' ? report.status : (report ?? null),
      exit_code: typeof report === 'object' ? (report.exitCode ?? null) : null,
      ...(stillRunning ? { note: `the program still ran after ${ctx.outputTimeoutMs} ms` } : {}),
      reason: echoed
        ? `the output carries ${expected}: it is attributable to this invocation`
        : `the output does not carry ${expected}${benchError ? ` (lab bench: ${benchError})` : ''}`,
      device_note: 'the device runs native code until it is power-cycled',
    },
    job,
  );
}
