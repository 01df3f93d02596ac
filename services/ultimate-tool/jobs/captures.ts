// Debug-stream captures: the two-step local-receiver contract (docs/ultimate/CAPTURES.md).
//
// prepare (consumes the probe, touches nothing on the device) → the caller reviews the pinned
// identity, stream configuration and limits → start with the confirmed counts (or cancel, which
// needs no hardware). The service itself is the receiver: it binds receiver_ipv4 and records the
// stream with the device layer's verified capture file (DebugStreamCapture), builds the timeline
// index (buildCaptureIndex) and commits one immutable run that registers both.
//
// Why counts are checked before the preparation is consumed: a mistyped confirmation must cost
// nothing. Why an ambiguous stream start is never retried: when the device did not answer the
// start, nobody knows whether it streams; a second start would be a second, unconfirmed mutation.
import { randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import { sha256File } from '../../../common/index.js';
import { DebugStreamCapture, type CaptureSummary } from '../../../engines/ultimate/index.js';
import { UltimateDevice } from '../../../engines/ultimate/index.js';
import { UltimateError } from '../../../engines/ultimate/index.js';
import type {
  CapturePrepareRequestSchema,
  CaptureStartRequestSchema,
  RunRecord,
  RunStatus,
  SourceLinkedPrepareRequestSchema,
  SourceLinkedStartRequestSchema,
  SupportingArtifact,
} from '../api/schemas.js';
import { buildFailureMessage, runCleanBuild } from '../builds/build.js';
import { EvidenceWriter } from '../runs/evidence.js';
import { type JobHandle, type JobRecord, type JobRunner, newJobRecord } from './job-runner.js';
import { expectationsOf, newRunRecord } from './run-record.js';
import { type Manifest, expectedPassValue } from '../project/manifest.js';
import { PROBE_TTL_MS, checkProbe, identityOf, sameIdentity } from '../safety/probes.js';
import { type EndStateReading, readEndState } from '../runs/end-state.js';
import { recordCrashState } from '../runs/crash-state.js';
import { ServiceError } from '../http/service-error.js';
import type { StoredPreparation } from '../store/store.js';
import { type CrashState, type DebugWait, type EndStateMoment, HANDOFF, type InstalledCrashHook } from '../targets/connection.js';
import { readHarnessCrash } from '../targets/harness-crash.js';
import { waitOfTraceEnd } from '../targets/trace-end.js';
import { JUDGE_STREAM_MODE, UltimateConnection } from '../targets/ultimate-target.js';
import { type JudgedExpectation, endingValue, hex8, judgeRun, judgementObservations, writesObservation } from '../runs/run-judge.js';
import { runProtocolFor } from '../runs/run-protocol.js';
import { Ca65DebugInfo } from '../timeline/ca65-debug-info.js';
import { buildCaptureIndex } from '../timeline/capture-index.js';
import { type CaptureJudgement, judgeCapture } from '../timeline/capture-judge.js';
import { findProgramStart } from '../timeline/program-start-scan.js';
import { writesInCapture } from '../timeline/register-writes.js';
import type { StreamProduct } from '../timeline/timeline-page.js';
import { prgLoadRange } from '../targets/program-start.js';

/** The only test a source-linked capture runs today (the contract names it). */
export const SOURCE_LINKED_TESTS = ['timeline-probe'] as const;
export const CAPTURE_FILE = 'debug-stream-capture.bin';
export const CAPTURE_INDEX_FILE = 'debug-stream-index.bin';
/**
 * The mode every run is judged in ("6510 & VIC": two entries per φ2 clock, the VIC's half first),
 * so a capture's timeline and its judge count the clocks the VIC takes for bad lines and sprites,
 * as every other run does (issue 35.4, one clock). "6510 Only" would leave them out.
 */
export const DEBUG_STREAM_MODE = JUDGE_STREAM_MODE;

export interface CaptureLimits {
  /** Bound on datagrams per capture (180 clocks each: ~5,474 per second of bus time on a U64). */
  maxDatagrams: number;
  /** Bound on the capture's wall time. */
  maxDurationMs: number;
}

/** ~16 s of bus time in "6510 & VIC" (~5,474 datagrams/s, ~130 MB); the wall-time bound is 30 s. */
export const DEFAULT_CAPTURE_LIMITS: CaptureLimits = { maxDatagrams: 90_000, maxDurationMs: 30_000 };

export interface CaptureContext {
  jobs: JobRunner;
  loadManifest: () => Promise<Manifest>;
  limits: CaptureLimits;
  now: () => number;
}

type PrepareBody = z.infer<typeof CapturePrepareRequestSchema>;
type SourcePrepareBody = z.infer<typeof SourceLinkedPrepareRequestSchema>;
type StartBody = z.infer<typeof CaptureStartRequestSchema>;
type SourceStartBody = z.infer<typeof SourceLinkedStartRequestSchema>;

/** Where the device's stream will come from: the bus layout differs per product. */
function streamProduct(identity: Record<string, unknown>): 'u64' | 'u2plus' {
  return /ultimate-ii/i.test(String(identity.product ?? '')) ? 'u2plus' : 'u64';
}

function localIpv4Addresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a): a is NonNullable<typeof a> => !!a && a.family === 'IPv4')
    .map((a) => a.address);
}

/** Binds receiver_ipv4:0 once, to prove the address is this machine's and to pick the UDP port. */
async function reserveReceiverPort(address: string): Promise<number> {
  if (!localIpv4Addresses().includes(address))
    throw new ServiceError(
      'receiver_unavailable',
      `receiver_ipv4 ${address} is not an address of this machine (its IPv4 addresses: ${localIpv4Addresses().join(', ')}); the service receives the stream itself`,
      400,
    );
  const s = dgram.createSocket('udp4');
  try {
    return await new Promise<number>((resolve, reject) => {
      s.once('error', reject);
      s.bind(0, address, () => resolve(s.address().port));
    });
  } catch (e) {
    throw new ServiceError('receiver_unavailable', `cannot bind a UDP receiver on ${address}: ${(e as Error).message}`, 400);
  } finally {
    s.close();
  }
}

/** The device did not answer (or answered nonsense): nobody knows whether the command took effect. */
function ambiguous(e: unknown): boolean {
  return !(e instanceof UltimateError) || e.kind === 'timeout' || e.kind === 'network' || e.kind === 'protocol';
}

export class CaptureService {
  constructor(readonly ctx: CaptureContext) {}

  /**
   * Removes snapshot folders no preparation can use any more (settled, expired, or never stored
   * because the process died between build and commit). Called when the service starts.
   */
  async sweep(): Promise<number> {
    const root = join(this.#store.dir, 'preparations');
    const names = await readdir(root).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const p = this.#store.getPreparation(name);
      if (p?.state === 'prepared' && this.ctx.now() < p.expires_at_ms) continue;
      await rm(join(root, name), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  get #store() {
    return this.ctx.jobs.ctx.store;
  }

  #ultimate() {
    const u = this.ctx.jobs.ctx.ultimate;
    if (!u)
      throw new ServiceError('target_unavailable', 'the ultimate target is not configured; a debug-stream capture needs the device', 503);
    return u;
  }

  // ---- prepare ----

  async prepareDebugStream(body: PrepareBody): Promise<Record<string, unknown>> {
    this.#ultimate();
    const now = this.ctx.now();
    const probe = checkProbe(this.#store, body.probe_id, body.strict_gate, now);
    const port = await reserveReceiverPort(body.receiver_ipv4);
    return this.#commitPreparation('debug_stream', body, probe, port, null, [], {});
  }

  async prepareSourceLinked(body: SourcePrepareBody): Promise<Record<string, unknown>> {
    this.#ultimate();
    if (!(SOURCE_LINKED_TESTS as readonly string[]).includes(body.test))
      throw new ServiceError(
        'invalid-request',
        `test ${JSON.stringify(body.test)} cannot be captured source-linked; supported: ${SOURCE_LINKED_TESTS.join(', ')}`,
        400,
      );
    const manifest = await this.ctx.loadManifest();
    const test = manifest.tests.find((t) => t.name === body.test);
    if (!test) throw new ServiceError('invalid-request', `the project has no test ${JSON.stringify(body.test)}`, 400);
    const now = this.ctx.now();
    const probe = checkProbe(this.#store, body.probe_id, body.strict_gate, now);
    const port = await reserveReceiverPort(body.receiver_ipv4);

    // The clean candidate build and its snapshot happen now, so the caller reviews exactly what
    // will run; the probe is consumed only once everything checked out.
    const preparationId = randomUUID();
    const build = await runCleanBuild(this.ctx.jobs.ctx.projectRoot, manifest, { storeDir: this.#store.dir });
    if (!build.ok) throw new ServiceError('build_failed', `the clean candidate build failed: ${buildFailureMessage(build)}`, 409);
    const artifact = build.artifacts.get(test.artifact);
    if (!artifact) throw new ServiceError('build_failed', `the build left no artifact ${test.artifact}`, 409);
    const dbg = artifact.symbols.find((s) => s.format === 'ld65-dbg');
    if (!dbg)
      throw new ServiceError(
        'analysis_inputs_invalid',
        `artifact ${test.artifact} declares no ld65 debug info file (symbols with format "ld65-dbg", from ld65 --dbgfile): a source-linked capture needs one`,
        409,
      );
    let info: Ca65DebugInfo;
    try {
      info = Ca65DebugInfo.parse(Buffer.from(dbg.bytes).toString('utf8'));
    } catch (e) {
      throw new ServiceError(
        'analysis_inputs_invalid',
        `${dbg.path} is not a parseable ld65 debug info file: ${(e as Error).message}`,
        409,
      );
    }
    if (info.lineCount === 0)
      throw new ServiceError('analysis_inputs_invalid', `${dbg.path} has no source lines (assemble with ca65 -g)`, 409);

    const dir = this.#preparationDir(preparationId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const files: StoredPreparation['snapshot_files'] = [];
    const base = (p: string) => p.split('/').pop() ?? p;
    const keep = async (role: string, format: string, path: string, bytes: Uint8Array) => {
      const name = base(path);
      await writeFile(join(dir, name), bytes, { mode: 0o600 });
      const { sha256, size } = await sha256File(join(dir, name));
      files.push({ role, format, name, size, sha256 });
    };
    await keep('prg', 'c64-prg', artifact.prg.path, artifact.prg.bytes);
    for (const s of artifact.symbols)
      await keep(
        s.format === 'ld65-map' || s.format === '64tass-map' ? 'map' : s.format === 'ld65-dbg' ? 'dbg' : 'labels',
        s.format,
        s.path,
        s.bytes,
      );
    const prerequisites = {
      build: { status: 'succeeded', clean_copy: true, command: build.command, duration_ms: Math.round(build.durationMs) },
      artifact: { name: artifact.name, sha256: artifact.prg.sha256, size: artifact.prg.bytes.length },
      analysis: {
        debug_info: { name: base(dbg.path), format: 'ld65-dbg', lines: info.lineCount, symbols: info.symbolCount, parsed: true },
        snapshot: files,
      },
      test: { name: test.name, observe: test.observe, expect: test.expect, budget: test.budget },
    };
    try {
      return await this.#commitPreparation('source_linked', body, probe, port, test.name, files, { prerequisites }, preparationId);
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      throw e;
    }
  }

  #preparationDir(id: string): string {
    return join(this.#store.dir, 'preparations', id);
  }

  async #commitPreparation(
    kind: StoredPreparation['kind'],
    body: PrepareBody,
    probe: { probe_id: string; snapshot: Record<string, unknown> },
    port: number,
    test: string | null,
    files: StoredPreparation['snapshot_files'],
    extra: Record<string, unknown>,
    preparationId: string = randomUUID(),
  ): Promise<Record<string, unknown>> {
    const now = this.ctx.now();
    const limits = this.ctx.limits;
    const view: Record<string, unknown> = {
      preparation_id: preparationId,
      kind,
      state: 'prepared',
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + PROBE_TTL_MS).toISOString(),
      strict_gate: body.strict_gate,
      target: 'ultimate',
      identity: probe.snapshot,
      emulation: probe.snapshot.virtual === true,
      device_touched: false,
      stream_configuration: {
        stream: 'debug',
        debug_stream_mode: DEBUG_STREAM_MODE,
        destination: `${body.receiver_ipv4}:${port}`,
        destination_address: body.receiver_ipv4,
        destination_port: port,
        stream_product: streamProduct(probe.snapshot),
      },
      limits: { max_datagrams: limits.maxDatagrams, max_duration_ms: limits.maxDurationMs },
      confirmations_required:
        kind === 'source_linked'
          ? { confirmed_reset_count: 1, confirmed_stream_start_count: 1, confirmed_stream_stop_count: 1 }
          : { confirmed_stream_start_count: 1, confirmed_stream_stop_count: 1 },
      mutations_at_start:
        kind === 'source_linked'
          ? [
              `set Data Streams / Debug Stream Mode to "${DEBUG_STREAM_MODE}"`,
              `start the debug stream toward ${body.receiver_ipv4}:${port}`,
              'reset and run the test program once',
              'stop the debug stream',
            ]
          : [
              `set Data Streams / Debug Stream Mode to "${DEBUG_STREAM_MODE}"`,
              `start the debug stream toward ${body.receiver_ipv4}:${port}`,
              'stop the debug stream',
            ],
      ...(test ? { test } : {}),
      ...extra,
    };
    if (!this.#store.consumeProbe(probe.probe_id, preparationId, now))
      throw new ServiceError('probe_consumed', `probe ${probe.probe_id} was just used by another job or preparation`, 422);
    this.#store.putPreparation({
      preparation_id: preparationId,
      kind,
      state: 'prepared',
      created_at_ms: now,
      expires_at_ms: now + PROBE_TTL_MS,
      settled_at_ms: null,
      probe_id: probe.probe_id,
      strict_gate: body.strict_gate,
      receiver_ipv4: body.receiver_ipv4,
      snapshot: probe.snapshot,
      view,
      test,
      snapshot_files: files,
    });
    return view;
  }

  // ---- cancel ----

  async cancel(preparationId: string): Promise<Record<string, unknown>> {
    const p = this.#settle(preparationId, 'cancelled', null);
    await rm(this.#preparationDir(preparationId), { recursive: true, force: true });
    return { ...p.view, state: 'cancelled', device_touched: false, cancelled_at: new Date(p.settled_at_ms ?? 0).toISOString() };
  }

  /** Looks the preparation up, checks its kind, and moves it out of `prepared` (once). */
  #settle(id: string, to: 'started' | 'cancelled', kind: StoredPreparation['kind'] | null): StoredPreparation {
    const found = this.#store.getPreparation(id);
    if (!found) throw new ServiceError('not-found', `no capture preparation ${id}`, 404);
    if (kind !== null && found.kind !== kind)
      throw new ServiceError(
        'invalid-request',
        `preparation ${id} is a ${found.kind} preparation; start it with the ${found.kind === 'source_linked' ? 'source-linked' : 'debug-stream'} start`,
        400,
      );
    if (found.state !== 'prepared')
      throw new ServiceError('preparation_settled', `preparation ${id} was already ${found.state}; prepare again`, 409, {
        state: found.state,
      });
    const now = this.ctx.now();
    if (to === 'started' && now >= found.expires_at_ms)
      throw new ServiceError(
        'preparation_expired',
        `preparation ${id} expired at ${new Date(found.expires_at_ms).toISOString()} (it lasts as long as its probe); prepare again`,
        422,
      );
    const r = this.#store.settlePreparation(id, to, now);
    if ('found' in r)
      throw new ServiceError('preparation_settled', `preparation ${id} was just ${r.found ?? 'removed'}`, 409, { state: r.found });
    return r;
  }

  // ---- start: a capture job ----

  /**
   * Queues the capture as a job (answered at once with the queued job; GET /v13/jobs/{id} follows
   * it). The counts are checked and the preparation consumed only after the queue bound, so a
   * refused start costs nothing; the job records one run and its `capture` when it ends.
   */
  async startDebugStream(preparationId: string, body: StartBody): Promise<JobRecord> {
    checkCounts(body, false);
    return this.#submit(preparationId, 'debug_stream', (h, p) => this.#debugStreamJob(h, p));
  }

  async startSourceLinked(preparationId: string, body: SourceStartBody): Promise<JobRecord> {
    checkCounts(body, true);
    return this.#submit(preparationId, 'source_linked', (h, p) => this.#sourceLinkedJob(h, p));
  }

  async #submit(
    preparationId: string,
    kind: StoredPreparation['kind'],
    run: (h: JobHandle, p: StoredPreparation) => Promise<void>,
  ): Promise<JobRecord> {
    const known = this.#store.getPreparation(preparationId);
    if (!known) throw new ServiceError('not-found', `no capture preparation ${preparationId}`, 404);
    let p: StoredPreparation | undefined;
    const { job } = await this.ctx.jobs.submit({
      kind: 'capture',
      job: newJobRecord(randomUUID(), new Date(this.ctx.now()).toISOString(), {
        test: known.test ?? 'debug-stream-capture',
        targets: ['ultimate'],
        strict_gate: known.strict_gate,
        total_runs: 1,
        phase: 'queued: waiting for the ultimate target lease',
        extra: { kind: 'capture', preparation_id: preparationId, capture: null },
      }),
      targets: ['ultimate'],
      precheck: () => {
        p = this.#settle(preparationId, 'started', kind);
      },
      body: async (h) => {
        h.job.progress.datagrams = 0;
        h.job.progress.max_datagrams = this.ctx.limits.maxDatagrams;
        try {
          await run(h, p!);
        } finally {
          await rm(this.#preparationDir(preparationId), { recursive: true, force: true });
        }
      },
    });
    return job;
  }

  async #debugStreamJob(h: JobHandle, p: StoredPreparation): Promise<void> {
    const device = await this.#openChecked(h, p);
    try {
      const runId = randomUUID();
      const ev = new EvidenceWriter(this.#store.runDir(runId));
      const started = new Date(this.ctx.now()).toISOString();
      const { summary } = await this.#capture(
        h,
        p,
        device,
        ev,
        async () => undefined,
        async (cap) => {
          await cap.boundReached;
        },
      );
      const verified = await this.#registerCapture(ev, summary);
      const status: RunStatus = verified.ok && summary.datagrams > 0 ? 'passed' : verified.ok ? 'failed' : 'error';
      const reason = !verified.ok
        ? `the capture did not verify: ${verified.reason}`
        : summary.datagrams === 0
          ? 'the capture verified but holds no datagram: nothing arrived from the device'
          : `captured and verified ${summary.datagrams} datagrams (${summary.missing} lost in ${summary.gaps} gaps); truncation: ${summary.truncation}`;
      const record = this.#record(h, p, runId, started, {
        test: 'debug-stream-capture',
        status,
        reason,
        expectations: { capture: 'a verified debug-stream capture (checksummed file, timeline index)' },
        observations: { debug_stream: captureObservation(p, summary, verified) },
        supporting: [],
        evidence: ev,
        candidate: { artifact_sha256: null, artifact_name: 'none', build: {} },
      });
      await ev.sync();
      h.job.capture = captureView(p, runId, summary);
      h.commitRun(record);
    } finally {
      await device.close();
    }
  }

  async #sourceLinkedJob(h: JobHandle, p: StoredPreparation): Promise<void> {
    const manifest = await this.ctx.loadManifest();
    const test = manifest.tests.find((t) => t.name === p.test);
    if (!test) throw new ServiceError('manifest_invalid', `the project no longer has test ${p.test}`, 409);
    const dir = this.#preparationDir(p.preparation_id);
    // The snapshot must still be what was reviewed at prepare.
    for (const f of p.snapshot_files) {
      const got = await sha256File(join(dir, f.name)).catch(() => null);
      if (!got || got.sha256 !== f.sha256)
        throw new ServiceError(
          'analysis_inputs_invalid',
          `the prepared snapshot ${f.name} changed or vanished since prepare; prepare again`,
          409,
        );
    }
    const prgFile = p.snapshot_files.find((f) => f.role === 'prg');
    if (!prgFile) throw new ServiceError('analysis_inputs_invalid', 'the preparation has no program snapshot', 409);
    const prg = await readFile(join(dir, prgFile.name));
    const device = await this.#openChecked(h, p);
    try {
      const runId = randomUUID();
      const ev = new EvidenceWriter(this.#store.runDir(runId));
      const runDir = await ev.folder();
      const supporting: SupportingArtifact[] = [];
      for (const f of p.snapshot_files) {
        await copyFile(join(dir, f.name), join(runDir, f.name));
        const media = f.role === 'prg' ? 'application/x-c64-prg' : 'text/plain; charset=utf-8';
        const e = await ev.adopt(f.name, media);
        if (e.sha256 !== f.sha256) throw new ServiceError('analysis_inputs_invalid', `snapshot ${f.name} changed while copied`, 409);
        supporting.push({ role: f.role as SupportingArtifact['role'], format: f.format, name: f.name, size: e.size, sha256: e.sha256 });
      }
      const started = new Date(this.ctx.now()).toISOString();
      const conn = new UltimateConnection({
        device,
        identity: p.snapshot,
        emulation: p.snapshot.virtual === true,
        strictGate: p.strict_gate,
      });
      let polled: DebugWait | null = null;
      let runError: string | null = null as string | null;
      // RAM is filled (the power-on pattern every run starts from) before the stream starts: the
      // capture holds the run from its reset on, not the DMA writes (at full speed those alone
      // would spend a short capture's datagram limit before the program's first cycle).
      const prepared = async () => {
        try {
          await conn.start(prg); // RAM fill only: the one confirmed reset comes with waitDebugResult (run_prg)
        } catch (e) {
          runError = `the test run failed before capturing: ${(e as Error).message}`;
        }
      };
      const protocol = runProtocolFor(test);
      const { summary } = await this.#capture(h, p, device, ev, prepared, async (cap) => {
        if (runError !== null) return;
        try {
          polled = await conn.waitDebugResult(performance.now() + test.budget.time_ms, protocol);
        } catch (e) {
          runError = `the test run failed while capturing: ${(e as Error).message}`;
          return;
        }
        await streamTail(cap);
      });
      const p0 = polled as DebugWait | null;
      const polledValue = endingValue(p0);
      // Post-stop evidence: the pass marker (the harness's RAM mirror of $D7FF), then the end state
      // (screen, memory expectations) read exactly as an ordinary run reads it (runs/end-state.ts).
      // A failed read does not lose the capture: the run is recorded with status error.
      let mirror = -1;
      let end: EndStateReading | null = null;
      try {
        mirror = (await conn.readMemory(HANDOFF.resultMirror, 1))[0] ?? 0;
        end = await readEndState(conn, test, ev);
      } catch (e) {
        runError ??= `the post-stop evidence could not be read: ${(e as Error).message}`;
      }
      const expected = expectedPassValue(test) ?? HANDOFF.pass;
      const marker = {
        read_after_stream_stop: true,
        address_hex: '$03FF',
        value: mirror < 0 ? null : mirror,
        value_hex: mirror < 0 ? null : hex8(mirror),
        expected,
        expected_hex: hex8(expected),
        matched: mirror === expected,
        debug_register: polledValue,
      };
      await ev.add('pass-marker.json', 'application/json', Buffer.from(`${JSON.stringify(marker, null, 2)}\n`));
      const verified = await this.#registerCapture(ev, summary);
      // The exact markers are the capture's own $D7FF writes: REST polling beside the capture misses
      // writes that follow each other within a poll. The polled list stays only when the trace holds
      // fewer (a capture cut by its bound).
      const polledValues = p0?.writes.map((x) => x.value) ?? [];
      let progress = p0 === null || p0.outcome === 'timeout' ? polledValues : polledValues.slice(0, -1);
      let judged: CaptureJudgement | null = null;
      if (verified.ok) {
        const traced = await this.#tracedRegisterWrites(ev, p, prg);
        if (traced) progress = mergeMarkers(traced, progress, polledValue);
        // The trace was cut before the run's end when a capture bound stopped it, or when the run ended
        // (the polled result) and the trace does not hold that end.
        judged = await this.#judgeCapture(ev, p, prg, protocol, summary.truncation !== 'none' || (p0 !== null && p0.outcome !== 'timeout'));
      }
      // THE judge (runs/run-judge.ts), as for every run: the run's end and writes from the capture's
      // own trace (the polled result where the trace holds no end), the end state, and the pass marker.
      let wait: DebugWait | null = null;
      let crashState: Record<string, unknown> | null = null;
      if (p0 !== null && runError === null) {
        try {
          wait = await captureWait(judged, p0, (cycle) => readHarnessCrash((a, n) => conn.readMemory(a, n), cycle));
          crashState = await recordCrashState(conn, test, wait, ev);
        } catch (e) {
          runError = `the post-stop evidence could not be read: ${(e as Error).message}`;
        }
      }
      const j = wait
        ? judgeRun(test, {
            wait,
            range: prgLoadRange(prg),
            screen: end?.screen ?? null,
            memory: end?.memoryChecks ?? [],
            extra: [passMarkerCheck(marker)],
          })
        : null;
      let status: RunStatus;
      let reason: string;
      if (runError !== null || j === null) {
        status = 'error';
        reason = runError ?? 'the test run gave no observation';
      } else if (!verified.ok) {
        status = 'error';
        reason = `the capture did not verify: ${verified.reason}`;
      } else {
        status = j.status;
        reason = j.reason;
      }
      const finalValue = endingValue(wait) ?? polledValue;
      const dbg = supporting.find((s) => s.role === 'dbg');
      const record = this.#record(h, p, runId, started, {
        test: test.name,
        status,
        reason,
        expectations: expectationsOf(test),
        observations: {
          observe: test.observe,
          debug_register: finalValue,
          debug_register_hex: finalValue === null ? null : hex8(finalValue),
          progress_markers: progress,
          ...writesOfCapture(judged, p0?.crashHook),
          pass_marker: marker,
          screen_text: end?.lines ?? [],
          debug_stream: { ...captureObservation(p, summary, verified), source_linked: true, debug_info: dbg?.name ?? null },
          memory: end?.memory ?? [],
          end_state: CAPTURE_END_STATE,
          ...(j ? judgementObservations(j) : {}),
        },
        screenMatch: end?.screenMatch ?? null,
        crashState: crashState as RunRecord['crash_state'],
        supporting,
        evidence: ev,
        candidate: {
          artifact_sha256: supporting.find((s) => s.role === 'prg')?.sha256 ?? null,
          artifact_name: test.artifact,
          build: { ...((p.view.prerequisites as Record<string, unknown>)?.build as Record<string, unknown>), snapshot_at_prepare: true },
        },
      });
      await ev.sync();
      h.job.capture = { ...captureView(p, runId, summary), source_linked: true };
      h.commitRun(record);
    } finally {
      await device.close();
    }
  }

  /**
   * Under the job's ultimate lease: re-probes the identity (nothing is written when it changed),
   * then the safe step before the first mutation — a cancel stops the job here.
   */
  async #openChecked(h: JobHandle, p: StoredPreparation): Promise<UltimateDevice> {
    const u = this.#ultimate();
    h.phase('ultimate: checking the device identity against the probe');
    const device = new UltimateDevice(u.device);
    try {
      let now: Record<string, unknown> | undefined;
      let lastErr: unknown;
      for (let attempt = 0; attempt < (p.strict_gate ? 1 : 3) && !now; attempt++) {
        try {
          now = identityOf(await device.probe());
        } catch (e) {
          lastErr = e;
        }
      }
      if (!now)
        throw new ServiceError(
          'target_unavailable',
          `the device did not answer the identity re-probe: ${(lastErr as Error)?.message}`,
          503,
        );
      if (p.snapshot.virtual === true) now.virtual = true;
      const changed = sameIdentity(p.snapshot, now);
      if (changed.length)
        throw new ServiceError(
          'identity_changed',
          `the device identity changed since the probe (${changed.join(', ')}); nothing was written to it — probe and prepare again`,
          409,
          { changed },
        );
      h.safePoint();
      return device;
    } catch (e) {
      await device.close();
      throw e;
    }
  }

  /**
   * Binds the receiver, sets the stream mode, runs `beforeStream` (which must not throw), starts
   * the stream (once), runs `during`, stops the stream (once) and finishes the capture file in the
   * run folder.
   */
  async #capture(
    h: JobHandle,
    p: StoredPreparation,
    device: UltimateDevice,
    ev: EvidenceWriter,
    beforeStream: () => Promise<void>,
    during: (cap: DebugStreamCapture) => Promise<void>,
  ): Promise<{ summary: CaptureSummary }> {
    const port = Number((p.view.stream_configuration as Record<string, unknown>).destination_port);
    const file = join(await ev.folder(), CAPTURE_FILE);
    let cap: DebugStreamCapture;
    try {
      cap = await DebugStreamCapture.open({
        file,
        bindAddress: p.receiver_ipv4,
        port,
        maxDatagrams: this.ctx.limits.maxDatagrams,
        maxDurationMs: this.ctx.limits.maxDurationMs,
        credit: this.ctx.jobs.ctx.ultimate?.streamCredit,
      });
    } catch (e) {
      throw new ServiceError(
        'receiver_unavailable',
        `cannot receive on ${p.receiver_ipv4}:${port}: ${(e as Error).message}; nothing was sent to the device`,
        400,
      );
    }
    const destination = `${p.receiver_ipv4}:${port}`;
    try {
      await device.rest.setConfigItem('Data Streams', 'Debug Stream Mode', DEBUG_STREAM_MODE);
    } catch (e) {
      await cap.finish().catch(() => undefined);
      throw new ServiceError(
        'capture_failed',
        `the device refused the debug stream mode: ${(e as Error).message}; the stream was not started`,
        502,
      );
    }
    await beforeStream();
    try {
      await device.rest.streamStart('debug', destination);
    } catch (e) {
      await cap.finish().catch(() => undefined);
      if (!ambiguous(e))
        throw new ServiceError('capture_failed', `the device refused to start the debug stream: ${(e as Error).message}`, 502, {
          stream_started: false,
        });
      // Was it started? Unknown. Not retried; the one confirmed stop is sent so a stream that did
      // start does not run on.
      let stop: string;
      try {
        await device.rest.streamStop('debug');
        stop = 'sent and acknowledged';
      } catch (e2) {
        stop = `sent, failed: ${(e2 as Error).message}`;
      }
      throw new ServiceError(
        'capture_ambiguous',
        `the debug stream start got no clear answer (${(e as Error).message}): the stream may or may not have started; it was not retried, and the confirmed stop was ${stop}`,
        502,
        { stream_started: 'unknown', retried: false, stop },
      );
    }
    // Datagrams received so far, served live on the job (and as MCP progress by the adapter).
    h.phase('capturing the debug stream');
    const counting = setInterval(() => {
      h.job.progress.datagrams = cap.recorded;
    }, 100);
    let duringError: unknown;
    try {
      await during(cap);
    } catch (e) {
      duringError = e;
    } finally {
      clearInterval(counting);
    }
    let stopError: unknown;
    try {
      await device.rest.streamStop('debug');
    } catch (e) {
      stopError = e;
    }
    const summary = await cap.finish().catch((e: unknown) => e as Error);
    if (!(summary instanceof Error)) h.job.progress.datagrams = summary.datagrams;
    if (stopError !== undefined) {
      const message = `the debug stream stop failed (${(stopError as Error).message}): the device may still be streaming to ${destination}; not retried`;
      const details = {
        stream_started: true,
        stream_stopped: ambiguous(stopError) ? 'unknown' : false,
        retried: false,
        datagrams: summary instanceof Error ? null : summary.datagrams,
      };
      if (ambiguous(stopError)) throw new ServiceError('capture_ambiguous', message, 502, details);
      throw new ServiceError('capture_failed', message, 502, details);
    }
    if (duringError !== undefined) throw duringError;
    if (summary instanceof Error)
      throw new ServiceError('capture_failed', `the capture file could not be finished: ${summary.message}`, 502);
    return { summary };
  }

  /** Verifies the finished capture by indexing it, and registers the capture and its index. */
  async #registerCapture(
    ev: EvidenceWriter,
    summary: CaptureSummary,
  ): Promise<{ ok: true; records: number } | { ok: false; reason: string }> {
    await ev.adopt(CAPTURE_FILE, 'application/octet-stream');
    try {
      const { index, summary: s } = await buildCaptureIndex(summary.file);
      await ev.add(CAPTURE_INDEX_FILE, 'application/octet-stream', index);
      return { ok: true, records: s.records };
    } catch (e) {
      return { ok: false, reason: (e as Error).message };
    }
  }

  /** The program's $D7FF writes in the run's verified capture, or null when the capture cannot be read back. */
  async #tracedRegisterWrites(ev: EvidenceWriter, p: StoredPreparation, prg: Uint8Array): Promise<number[] | null> {
    const index = ev.entries.find((e) => e.name === CAPTURE_INDEX_FILE);
    const range = prgLoadRange(prg);
    if (!index || !range) return null;
    const cfg = p.view.stream_configuration as Record<string, unknown>;
    const product: StreamProduct = cfg.stream_product === 'u2plus' ? 'u2plus' : 'u64';
    const capturePath = join(ev.dir, CAPTURE_FILE);
    const indexPath = join(ev.dir, CAPTURE_INDEX_FILE);
    try {
      const programStart = await findProgramStart(capturePath, indexPath, range, product);
      return await writesInCapture(
        {
          capturePath,
          indexPath,
          indexSha256: index.sha256,
          product,
          programStart,
          ...(typeof cfg.debug_stream_mode === 'string' ? { streamMode: cfg.debug_stream_mode } : {}),
        },
        HANDOFF.debugRegister,
      );
    } catch {
      return null;
    }
  }

  /** The judge's observation read back from the run's verified capture (timeline/capture-judge.ts); null when it cannot be read. */
  async #judgeCapture(
    ev: EvidenceWriter,
    p: StoredPreparation,
    prg: Uint8Array,
    protocol: ReturnType<typeof runProtocolFor>,
    endExpected: boolean,
  ) {
    const cfg = p.view.stream_configuration as Record<string, unknown>;
    const product: StreamProduct = cfg.stream_product === 'u2plus' ? 'u2plus' : 'u64';
    try {
      return await judgeCapture(join(ev.dir, CAPTURE_FILE), join(ev.dir, CAPTURE_INDEX_FILE), prg, protocol, product, endExpected);
    } catch {
      return null;
    }
  }

  #record(
    h: JobHandle,
    p: StoredPreparation,
    runId: string,
    started: string,
    r: {
      test: string;
      status: RunStatus;
      reason: string;
      expectations: Record<string, unknown>;
      observations: Record<string, unknown>;
      supporting: SupportingArtifact[];
      evidence: EvidenceWriter;
      candidate: RunRecord['candidate'];
      screenMatch?: RunRecord['screen_match'];
      crashState?: RunRecord['crash_state'];
    },
  ): RunRecord {
    return newRunRecord({
      runId,
      jobId: h.job.job_id,
      test: r.test,
      target: 'ultimate',
      identity: p.snapshot,
      emulation: p.snapshot.virtual === true,
      candidate: r.candidate,
      startedAt: started,
      finishedAt: new Date(this.ctx.now()).toISOString(),
      expectations: r.expectations,
      observations: r.observations,
      status: r.status,
      statusReason: r.reason,
      supporting: r.supporting,
      evidence: r.evidence.entries,
      screenMatch: r.screenMatch ?? null,
      crashState: r.crashState ?? null,
    });
  }
}

/**
 * Datagrams the capture keeps recording after the polled result: the stream reaches the receiver
 * behind the machine (the virtual device's send queue and this process's drain timer; a loaded
 * machine showed the last 2-4 of timeline-probe's markers missing when the stream stopped at the
 * poll). 2,000 datagrams are 360,000 clocks of "6510 & VIC" (~0.37 s of bus time).
 */
export const STREAM_TAIL_DATAGRAMS = 2000;
/** The tail's wall-time bound: a stream that stalls does not hold the job. */
const STREAM_TAIL_MS = 3000;

async function streamTail(cap: DebugStreamCapture): Promise<void> {
  const until = cap.recorded + STREAM_TAIL_DATAGRAMS;
  const deadline = performance.now() + STREAM_TAIL_MS;
  let bound = false;
  void cap.boundReached.then(() => {
    bound = true;
  });
  while (!bound && cap.recorded < until && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

/** When a capture run's end state (memory, screen, the pass marker) is read. */
export const CAPTURE_END_STATE: EndStateMoment = {
  cycle: null,
  at: 'after the debug stream stopped (the machine still running)',
  exact: false,
  how: 'REST readmem after the stream stopped: the pass marker, the screen, then the memory expectations',
};

/**
 * The judge's observation of a capture run. The capture's own trace is the exact observation: when
 * it holds the run's end (a verdict, a crash, budget.cycles passed, a halt) the run is judged from
 * it, writes and cycles included, as a run watched live on the stream. When it holds none — the
 * time budget ran out with the whole run in the trace, its exact writes stand with the timeout;
 * a capture bound (or the stream's stop) cut it before the end, the polled end stands, with the
 * trace's writes and the polled ones after them, and no cycles (the end's cycle is not in the trace).
 */
export async function captureWait(
  judged: CaptureJudgement | null,
  polled: DebugWait,
  harnessCrash: (cycle: number | null) => Promise<CrashState>,
): Promise<DebugWait> {
  const common = { endState: CAPTURE_END_STATE };
  // A crash the trace saw is the trace's (bus-trace-v1), even when the polling installed the DMA crash hook.
  if (judged?.end)
    return waitOfTraceEnd(
      { ...common, writes: judged.writes, writesExact: judged.writesExact, cycleSource: judged.cycleSource },
      judged.end,
      judged.started,
      judged.cycleSource !== null,
      harnessCrash,
    );
  if (judged && !judged.cutBeforeEnd && polled.outcome === 'timeout')
    return {
      ...common,
      writes: judged.writes,
      writesExact: judged.writesExact,
      cycleSource: judged.cycleSource,
      outcome: 'timeout',
      started: judged.started || polled.started,
    };
  const values = mergeMarkers(
    judged?.writes.map((w) => w.value) ?? [],
    polled.writes.map((w) => w.value),
    null,
  );
  return { ...polled, ...common, writes: values.map((value) => ({ value, cycle: 0 })), writesExact: false, cycleSource: null };
}

/** The post-stop pass marker as a judged check: a capture run passes only when it holds too. */
export function passMarkerCheck(m: {
  value: number | null;
  value_hex: string | null;
  expected_hex: string;
  matched: boolean;
}): JudgedExpectation {
  const what = "$03FF (the harness's RAM mirror of $D7FF) read after the stream stopped";
  return {
    expectation: 'pass_marker',
    held: m.value === null ? null : m.matched,
    reason:
      m.value === null
        ? `${what} could not be read`
        : m.matched
          ? `${what} is ${m.value_hex}, as expected`
          : `${what} is ${m.value_hex}, expected ${m.expected_hex}`,
  };
}

function checkCounts(body: StartBody & { confirmed_reset_count?: number }, withReset: boolean): void {
  const wrong: string[] = [];
  if (body.confirmed_stream_start_count !== 1) wrong.push(`confirmed_stream_start_count ${body.confirmed_stream_start_count}`);
  if (body.confirmed_stream_stop_count !== 1) wrong.push(`confirmed_stream_stop_count ${body.confirmed_stream_stop_count}`);
  if (withReset && body.confirmed_reset_count !== 1) wrong.push(`confirmed_reset_count ${body.confirmed_reset_count}`);
  if (wrong.length)
    throw new ServiceError(
      'confirmed_count_mismatch',
      `${wrong.join(', ')}: a capture starts the stream once, stops it once${withReset ? ' and resets the device once' : ''}; every count must be exactly 1 (the preparation was not consumed)`,
      422,
      {
        expected: withReset
          ? { confirmed_reset_count: 1, confirmed_stream_start_count: 1, confirmed_stream_stop_count: 1 }
          : { confirmed_stream_start_count: 1, confirmed_stream_stop_count: 1 },
      },
    );
}

function captureObservation(
  p: StoredPreparation,
  s: CaptureSummary,
  verified: { ok: true; records: number } | { ok: false; reason: string },
): Record<string, unknown> {
  const cfg = p.view.stream_configuration as Record<string, unknown>;
  return {
    capture: CAPTURE_FILE,
    index: verified.ok ? CAPTURE_INDEX_FILE : null,
    verified: verified.ok,
    verification_error: verified.ok ? null : verified.reason,
    stream_product: cfg.stream_product,
    debug_stream_mode: cfg.debug_stream_mode,
    destination: cfg.destination,
    limits: p.view.limits,
    datagrams: s.datagrams,
    gaps: s.gaps,
    missing_datagrams: s.missing,
    out_of_order: s.outOfOrder,
    malformed: s.malformed,
    dropped_after_bound: s.droppedAfterBound,
    truncation: s.truncation,
    truncated: s.truncation !== 'none',
    duration_ms: Math.round(s.durationMs),
    capture_sha256: s.sha256,
  };
}

/**
 * observations.debug_register_writes of a capture run, as every run records them (runs/run-judge.ts
 * writesObservation): the values and cycles the judge's bus-trace observer counts in the capture.
 */
function writesOfCapture(j: CaptureJudgement | null, crashHook?: InstalledCrashHook): Record<string, unknown> {
  const hook = crashHook ? { crashHook } : {};
  if (!j)
    return writesObservation(
      { writes: [], writesExact: false, cycleSource: null, ...hook },
      'the capture could not be read back: no writes observed from it',
    );
  const note = j.cutBeforeEnd
    ? 'the trace stops before the run ended (a capture bound, or the stream stopped before its end arrived): later writes are not in it'
    : 'the capture lost datagrams after the program started, or never saw it start: writes may be missing';
  return {
    ...writesObservation({ ...j, ...hook }, note),
    ...(!j.sawVicHalves ? { cycle_note: 'the stream shows no VIC half-cycles ("6510 Only"): no exact clocks' } : {}),
  };
}

function captureView(p: StoredPreparation, runId: string, s: CaptureSummary): Record<string, unknown> {
  return {
    preparation_id: p.preparation_id,
    run_id: runId,
    datagrams: s.datagrams,
    truncation: s.truncation,
    stream_started: true,
    stream_stopped: true,
  };
}

/**
 * The progress markers of a capture run: the capture's own writes (exact, but only up to where a
 * capture bound cut it), then the polled values that came after the capture's last write (polling
 * may miss writes, never invents them, so the polled list is a subsequence of the true one). The
 * final verdict write is not a marker.
 */
export function mergeMarkers(traced: readonly number[], polled: readonly number[], verdict: number | null): number[] {
  let k = 0;
  for (const v of traced) if (k < polled.length && polled[k] === v) k++;
  const all = [...traced, ...polled.slice(k)];
  return verdict !== null && all.at(-1) === verdict && traced.at(-1) === verdict ? all.slice(0, -1) : all;
}
