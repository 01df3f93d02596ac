// start_native_health_check: completes a pending post-recovery C64 health gate of a standing
// intent, and nothing else. It is built so that it CANNOT perform FTP or another Run Update: it
// gets a HealthGateDevice — probe, REST writemem/readmem and run_prg, the ordinary run path of the
// test jobs — and no FTP client, no update file and no trigger. Its request body is a closed
// object, so a request that asks for anything more is refused before it runs.
import type { UltimateDevice } from '../../../../engines/ultimate/index.js';
import type { Job } from '../../api/schemas.js';
import { ServiceError } from '../../http/service-error.js';
import { IllegalIntentTransition } from './intent-state.js';
import { type NativeContext, newNativeJob, openDevice, saveJob } from './native-context.js';
import type { NativeIntent } from './native-records.js';
import { requireBoundIdentity } from './native-runs.js';

/** Everything the health check may do to a device. */
export interface HealthGateDevice {
  runPrg(prg: Uint8Array): Promise<unknown>;
  writeMemory(address: number, bytes: Uint8Array): Promise<unknown>;
  readMemory(address: number, length: number): Promise<Uint8Array>;
}

function healthGateDevice(d: UltimateDevice): HealthGateDevice {
  return {
    runPrg: (prg) => d.rest.runPrg({ bytes: prg }),
    writeMemory: (a, b) => d.rest.writeMemory(a, b),
    readMemory: (a, l) => d.rest.readMemory(a, l),
  };
}

/** Where the health program reports: "HCOK" and the sum 1..10 ($37). */
export const HEALTH_REPORT_ADDRESS = 0xc3f0;
export const HEALTH_EXPECTED = Uint8Array.of(0x48, 0x43, 0x4f, 0x4b, 0x37);

/**
 * The C64 health program (hand-assembled 6510, load address $0801): a BASIC line `10 SYS2061`,
 * then: sum 1..10 in A, store it at $C3F4, "HCOK" at $C3F0, $80 (pass) to the debug register
 * $D7FF, and loop. A C64 that runs it after the power cycle has working RAM, CPU and loader.
 */
export const HEALTH_PRG = Uint8Array.of(
  0x01,
  0x08, // load address $0801
  0x0b,
  0x08,
  0x0a,
  0x00,
  0x9e,
  0x32,
  0x30,
  0x36,
  0x31,
  0x00,
  0x00,
  0x00, // 10 SYS2061
  0xa9,
  0x00, // $080D LDA #0
  0xa2,
  0x0a, // LDX #10
  0x86,
  0xfb, // $0811 STX $FB
  0x18, // CLC
  0x65,
  0xfb, // ADC $FB
  0xca, // DEX
  0xd0,
  0xf8, // BNE $0811
  0x8d,
  0xf4,
  0xc3, // STA $C3F4
  0xa9,
  0x48,
  0x8d,
  0xf0,
  0xc3, // "H" → $C3F0
  0xa9,
  0x43,
  0x8d,
  0xf1,
  0xc3, // "C"
  0xa9,
  0x4f,
  0x8d,
  0xf2,
  0xc3, // "O"
  0xa9,
  0x4b,
  0x8d,
  0xf3,
  0xc3, // "K"
  0xa9,
  0x80,
  0x8d,
  0xff,
  0xd7, // $80 → $D7FF
  0x4c,
  0x35,
  0x08, // $0835 JMP $0835
);

const HEALTH_TIMEOUT_MS = 5000;
const POLL_MS = 20;

/** Runs the health program and waits (bounded) for its report. */
export async function runHealthProgram(dev: HealthGateDevice): Promise<{ passed: boolean; report: string }> {
  await dev.writeMemory(HEALTH_REPORT_ADDRESS, new Uint8Array(HEALTH_EXPECTED.length));
  await dev.runPrg(HEALTH_PRG);
  const deadline = performance.now() + HEALTH_TIMEOUT_MS;
  let last: Uint8Array;
  for (;;) {
    last = await dev.readMemory(HEALTH_REPORT_ADDRESS, HEALTH_EXPECTED.length);
    if (Buffer.from(last).equals(Buffer.from(HEALTH_EXPECTED))) return { passed: true, report: Buffer.from(last).toString('hex') };
    if (performance.now() >= deadline) return { passed: false, report: Buffer.from(last).toString('hex') };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function eligible(ctx: NativeContext, intentId: string, runId: string, deviceHost: string): NativeIntent {
  const intent = ctx.native.getIntent(intentId);
  if (!intent) throw new ServiceError('not-found', `no native intent ${intentId}`, 404);
  if (intent.mode !== 'standing')
    throw new ServiceError('health_check_not_applicable', `intent ${intentId} is one-shot; only a standing intent has a health gate`, 409);
  if (deviceHost !== intent.identity.device_host)
    throw new ServiceError(
      'host_mismatch',
      `device_host ${JSON.stringify(deviceHost)} is not the bound host ${intent.identity.device_host}`,
      409,
    );
  if (intent.state !== 'suspended' || intent.health_gate !== 'pending')
    throw new ServiceError(
      'health_gate_not_pending',
      `intent ${intentId} is ${intent.state} with health gate ${intent.health_gate}; a health check completes only a pending gate`,
      409,
      { state: intent.state, health_gate: intent.health_gate },
    );
  const run = ctx.native.getRun(runId);
  if (!run || run.intent_id !== intentId)
    throw new ServiceError('run_not_eligible', `native run ${runId} is not a run of intent ${intentId}`, 409);
  if (intent.last_run_id !== runId)
    throw new ServiceError('run_not_eligible', `native run ${runId} is not the intent's latest run (${intent.last_run_id})`, 409);
  if (run.state !== 'completed' && run.state !== 'failed' && run.state !== 'refused')
    throw new ServiceError('run_not_eligible', `native run ${runId} is ${run.state}; only a finished run opens a health gate`, 409);
  return intent;
}

export async function startNativeHealthCheck(
  ctx: NativeContext,
  intentId: string,
  runId: string,
  deviceHost: string,
): Promise<{ job: Job }> {
  eligible(ctx, intentId, runId, deviceHost);
  const { job } = await ctx.jobs.submit({
    kind: 'health-check',
    job: newNativeJob(ctx, 'native-health-check', { intent_id: intentId, native_run_id: runId }),
    targets: ['ultimate'],
    // Admitted under the lease: eligibility and the bound identity again, then the answer.
    admit: async (h) => {
      const device = openDevice(ctx);
      try {
        const intent = eligible(ctx, intentId, runId, deviceHost);
        await requireBoundIdentity(device, intent);
        h.safePoint();
      } catch (e) {
        await device.close();
        throw e;
      }
      h.phase('running the C64 health program');
      return device;
    },
    body: async (h, device) => {
      try {
        const result = await runHealthProgram(healthGateDevice(device));
        h.job.health = { ...result, expected: Buffer.from(HEALTH_EXPECTED).toString('hex') };
        if (!result.passed) {
          saveJob(h, 'health check failed', {
            ok: false,
            error: { code: 'health_check_failed', message: `the C64 health program reported ${result.report}; the intent stays suspended` },
          });
          return;
        }
        try {
          ctx.native.transition(intentId, { kind: 'health-passed', runId, nowMs: ctx.now() }, new Date(ctx.now()).toISOString());
        } catch (e) {
          if (!(e instanceof IllegalIntentTransition)) throw e;
          saveJob(h, 'health check passed but the intent changed meanwhile', {
            ok: false,
            error: { code: 'health_gate_not_pending', message: e.message },
          });
          return;
        }
        saveJob(h, 'health check passed', { ok: true });
      } catch (e) {
        saveJob(h, 'health check failed', {
          ok: false,
          error: {
            code: 'health_check_failed',
            message: `the health check could not complete: ${(e as Error).message}; the intent stays suspended`,
          },
        });
      } finally {
        await device.close().catch(() => undefined);
      }
    },
  });
  return { job };
}
