// One run: start the program on a connected target, observe it the way the test says (debug
// register or screen), read the end state — screen, colour, memory expectations and, after a
// crash, its context — at the one moment the target reports (DebugWait.endState), and hand every
// observation to THE judge (run-judge.ts judgeRun), which alone decides the status. Evidence files
// are written through the EvidenceWriter; the caller commits the record that registers them.
import type { RunStatus } from '../api/schemas.js';
import type { EvidenceWriter } from './evidence.js';
import type { TestSpec } from '../project/manifest.js';
import { SCREEN_BYTES, SCREEN_RAM, matchScreen, screenLines } from './screen.js';
import { type ScreenMatchRecord, readEndState } from './end-state.js';
import { recordCrashState } from './crash-state.js';
import { CHECKPOINT_EVIDENCE_NAME } from '../analysis/checkpoint-comparison.js';
import { CheckpointRecorder } from '../targets/checkpoint-recorder.js';
import type { DebugWait, TargetConnection } from '../targets/connection.js';
import { prgLoadRange } from '../targets/program-start.js';
import { runProtocolFor, usesHarnessHandshake } from './run-protocol.js';
import { endingValue, hex8, judgeRun, judgementObservations, writesObservation } from './run-judge.js';

export interface RunOutcome {
  status: RunStatus;
  statusReason: string;
  observations: Record<string, unknown>;
  screenMatch: ScreenMatchRecord | null;
  crashState: Record<string, unknown> | null;
  timings: { load_ms: number; execute_ms: number; observe_ms: number };
}

export async function runTestOn(conn: TargetConnection, test: TestSpec, prg: Uint8Array, evidence: EvidenceWriter): Promise<RunOutcome> {
  const t0 = performance.now();
  const sys = test.start === 'run' ? undefined : test.start.sys;
  await conn.start(
    prg,
    test.prepare || sys !== undefined ? { fill: test.prepare?.fill ?? [], ...(sys !== undefined ? { sys } : {}) } : undefined,
  );
  const t1 = performance.now();
  const deadline = t1 + test.budget.time_ms;
  const observations: Record<string, unknown> = { observe: test.observe, ram_state: conn.ramState() };
  let screenBytes: Uint8Array | undefined;
  const spec = test.expect.screen_match;
  let wait: DebugWait | null = null;

  if (test.observe === 'debug_register') {
    // The checkpoint observer exists only for a test that has checkpoints.
    const checkpoints =
      test.memory_checkpoint_capture && test.checkpoints.length
        ? new CheckpointRecorder(test.checkpoints, usesHarnessHandshake(test))
        : undefined;
    const w = await conn.waitDebugResult(deadline, runProtocolFor(test, checkpoints));
    wait = w;
    const values = w.writes.map((x) => x.value);
    observations.progress_markers = endingValue(w) !== null ? values.slice(0, -1) : values;
    observations.protocol = test.verdict ? { verdict: test.verdict } : 'harness';
    observations.crash_policy = { jam: test.crash.jam, brk: test.crash.brk, outside_code: test.crash.outside_code ?? null };
    Object.assign(observations, writesObservation(w));
    observations.end_state = w.endState;
    // Where every cycle of the run counts from (docs/ultimate/SERVICE.md, "Where a program starts").
    if (w.programStart)
      observations.program_start = w.programStart === 'basic' ? 'basic-first-statement' : 'first-opcode-fetch-in-load-range';
    if (checkpoints) {
      await evidence.add(CHECKPOINT_EVIDENCE_NAME, 'application/json', Buffer.from(`${JSON.stringify(checkpoints.capture(), null, 2)}\n`));
      observations.memory_checkpoints = {
        evidence: CHECKPOINT_EVIDENCE_NAME,
        planned: test.checkpoints.length,
        captured: checkpoints.capturedCount,
        missing: checkpoints.missing(),
        acknowledgement_writes: checkpoints.acknowledgements,
        ...(checkpoints.handshake ? {} : { handshake: false, captured_at: 'the exact write of each marker' }),
      };
    }
    const ending = endingValue(w);
    if (ending !== null) {
      observations.debug_register = ending;
      observations.debug_register_hex = hex8(ending);
    } else if (w.outcome === 'crashed') {
      if (w.crash.kind === 'jam') observations.jam_pc = w.crash.pc;
    } else {
      observations.debug_register = w.writes.at(-1)?.value ?? null;
      if (w.outcome === 'timeout') observations.program_started = w.started;
      if (w.outcome === 'timeout' && w.halted) observations.jam_pc = w.halted.pc;
    }
  } else {
    // Screen observation: poll screen RAM until the expected text shows or the budget ends.
    const text = spec?.text ?? '';
    screenBytes = await conn.pollMemory(SCREEN_RAM, SCREEN_BYTES, deadline, (b) => matchScreen(screenLines(b), text, spec?.row) !== null);
    observations.end_state = {
      cycle: null,
      at: 'when screen RAM first showed the text (or the time budget ran out)',
      exact: false,
      how: 'polled screen RAM with the machine running; the rest read right after',
    };
  }
  const t2 = performance.now();

  // The end state: screen, colours, memory expectations, as the target reads them at its end moment.
  const end = await readEndState(conn, test, evidence, screenBytes);
  observations.memory = end.memory;
  observations.screen_text = end.lines;

  // THE judge: one decision from every observation.
  const j = judgeRun(test, { wait, range: prgLoadRange(prg), screen: end.screen, memory: end.memoryChecks });
  Object.assign(observations, judgementObservations(j));

  const crashState = await recordCrashState(conn, test, wait, evidence);
  const t3 = performance.now();
  return {
    status: j.status,
    statusReason: j.reason,
    observations,
    screenMatch: end.screenMatch,
    crashState,
    timings: { load_ms: t1 - t0, execute_ms: t2 - t1, observe_ms: t3 - t2 },
  };
}
