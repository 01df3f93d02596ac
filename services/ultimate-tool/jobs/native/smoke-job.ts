// start_riscv_smoke_job (legacy bounded smoke): runs the built-in smoke program (CRC32, a sieve,
// libgcc multiply/divide; its sources embedded in smoke-sources.ts, generated from examples/riscv,
// so nothing is read from examples/ at run time) once on an Elite II under the ordinary
// probe rules — a valid single-use probe, consumed here, and confirmed_run_update_count = 1 — with
// a strict time bound on its output. It needs no intent: the probe is its one-time authorization.
// The device stays native afterwards until it is power-cycled.
import { buildRiscvProgram } from '../../../../engines/ultimate/index.js';
import { triggerRunUpdate, uploadUpdateFile } from '../../../../engines/ultimate/index.js';
import { packUe2FromElf } from '../../../../engines/ultimate/index.js';
import type { Job } from '../../api/schemas.js';
import { identityOf, checkProbe, sameIdentity } from '../../safety/probes.js';
import { ServiceError } from '../../http/service-error.js';
import { type NativeContext, isAmbiguous, newNativeJob, openDevice, saveJob } from './native-context.js';
import { isElite2 } from './native-identity.js';
import { SMOKE_SOURCES } from './smoke-sources.js';

export const SMOKE_EXPECTED_LINE = 'SMOKE crc=cbf43926 primes=00000234 OK';
/** The strict bound on the smoke program's output (it needs a few milliseconds). */
export const SMOKE_TIME_BOUND_MS = 10_000;

let smokeUe2: Promise<Uint8Array> | undefined;

/** The smoke program's update file, built once per process from its embedded sources. */
export function builtInSmokeUe2(): Promise<Uint8Array> {
  smokeUe2 ??= (async () => packUe2FromElf((await buildRiscvProgram({ sources: { ...SMOKE_SOURCES }, flags: ['-O2'] })).elf))();
  smokeUe2.catch(() => {
    smokeUe2 = undefined;
  });
  return smokeUe2;
}

export async function startSmokeJob(
  ctx: NativeContext,
  req: { probe_id: string; device_host: string; confirmed_run_update_count: number },
): Promise<{ job: Job }> {
  const probe = checkProbe(ctx.store, req.probe_id, false, ctx.now());
  if (req.confirmed_run_update_count !== 1)
    throw new ServiceError(
      'confirmed_count_mismatch',
      `confirmed_run_update_count must be 1: the smoke job performs exactly one Run Update; got ${req.confirmed_run_update_count}`,
      422,
      { expected_run_update_count: 1 },
    );
  const snap = probe.snapshot;
  if (req.device_host !== snap.host)
    throw new ServiceError(
      'host_mismatch',
      `device_host ${JSON.stringify(req.device_host)} is not the probed host ${String(snap.host)}`,
      409,
    );
  if (!isElite2(String(snap.product ?? '')))
    throw new ServiceError(
      'not_elite2',
      `the probed device is ${String(snap.product)}; only an Ultimate 64 Elite II runs .UE2 programs`,
      409,
    );
  let ue2: Uint8Array;
  try {
    ue2 = await builtInSmokeUe2();
  } catch (e) {
    throw new ServiceError('native_preparation_failed', `building the smoke program failed: ${(e as Error).message}`, 409);
  }
  const record = newNativeJob(ctx, 'riscv-smoke', { probe_id: req.probe_id, time_bound_ms: SMOKE_TIME_BOUND_MS });
  const { job } = await ctx.jobs.submit({
    kind: 'smoke',
    job: record,
    targets: ['ultimate'],
    precheck: () => {
      if (!ctx.store.consumeProbe(probe.probe_id, record.job_id, ctx.now()))
        throw new ServiceError('probe_consumed', `probe ${probe.probe_id} was just used by another job`, 422);
    },
    body: async (h) => {
      const job = h.job;
      const device = openDevice(ctx);
      try {
        const changed = sameIdentity(snap, identityOf(await device.probe()));
        if (changed.length) {
          saveJob(h, 'refused', {
            ok: false,
            error: {
              code: 'identity_changed',
              message: `the device identity changed since the probe (${changed.join(', ')}); nothing was written`,
            },
          });
          return;
        }
        h.safePoint();
        saveJob(h, 'uploading the smoke program');
        let stage = 'FTP creation of the update file';
        try {
          const path = await uploadUpdateFile(device.ftp, `smoke-${job.job_id.slice(0, 8)}`, ue2);
          stage = 'the Run Update write';
          saveJob(h, 'Run Update write');
          await triggerRunUpdate(device.rest, path);
        } catch (e) {
          const code = isAmbiguous(e) ? 'smoke_uncertain' : 'smoke_refused';
          saveJob(h, 'failed', { ok: false, error: { code, message: `${stage}: ${(e as Error).message}; not retried` } });
          return;
        }
        saveJob(h, 'smoke program started: reading its output on the lab bench');
        if (!ctx.bench) {
          saveJob(h, 'finished without output', {
            ok: false,
            error: { code: 'smoke_unverified', message: 'no lab bench is configured (--bench-url): the output could not be read' },
          });
          return;
        }
        const report = await ctx.bench.waitStopped(SMOKE_TIME_BOUND_MS);
        const uart = await ctx.bench.uart();
        const passed = uart.split(/\r?\n/).includes(SMOKE_EXPECTED_LINE);
        (job as Record<string, unknown>).smoke = {
          passed,
          expected_line: SMOKE_EXPECTED_LINE,
          uart: uart.slice(0, 4096),
          program_status: typeof report === 'object' ? report.status : report,
          exit_code: typeof report === 'object' ? (report.exitCode ?? null) : null,
          device_note: 'the device runs native code until it is power-cycled',
        };
        saveJob(
          h,
          passed ? 'smoke passed' : 'smoke failed',
          passed
            ? { ok: true }
            : {
                ok: false,
                error: {
                  code: report === 'still-running' ? 'smoke_time_bound' : 'smoke_failed',
                  message:
                    report === 'still-running'
                      ? `the smoke program did not finish within ${SMOKE_TIME_BOUND_MS} ms`
                      : `the output does not carry "${SMOKE_EXPECTED_LINE}"`,
                },
              },
        );
      } finally {
        await device.close().catch(() => undefined);
      }
    },
  });
  return { job };
}
