// One run: start the program on a connected target, observe it the way the test says (debug
// register or screen), read the end state — screen, colour, memory expectations and, after a
// crash, its context — at the one moment the target reports (DebugWait.endState), and hand every
// observation to THE judge (run-judge.ts judgeRun), which alone decides the status. Evidence files
// are written through the EvidenceWriter; the caller commits the record that registers them.
import type { RunStatus } from '../api/schemas.js';
import { addressHex } from '../api/address.js';
import type { EvidenceWriter } from './evidence.js';
import type { TestSpec } from '../project/manifest.js';
import { COLOUR_RAM, SCREEN_BYTES, SCREEN_RAM, matchScreen, renderScreenPng, screenLines } from './screen.js';
import { CHECKPOINT_EVIDENCE_NAME } from '../analysis/checkpoint-comparison.js';
import { CheckpointRecorder } from '../targets/checkpoint-recorder.js';
import { type CrashState, type DebugWait, HANDOFF, type TargetConnection } from '../targets/connection.js';
import { prgLoadRange } from '../targets/program-start.js';
import { runProtocolFor, usesHarnessHandshake } from './run-protocol.js';
import { type MemoryCheck, hex8, judgeRun, writesObservation } from './run-judge.js';

export interface RunOutcome {
  status: RunStatus;
  statusReason: string;
  observations: Record<string, unknown>;
  screenMatch: { text: string; row: number | null; matched: boolean; found_at: { row: number; column: number } | null } | null;
  crashState: Record<string, unknown> | null;
  timings: { load_ms: number; execute_ms: number; observe_ms: number };
}

function hexBytes(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

/** The first offset where `got` and `want` differ in the bits of `mask` (all bits without one); null if none. */
function firstMaskedDifference(got: Uint8Array, want: Uint8Array, mask?: Uint8Array): number | null {
  for (let i = 0; i < want.length; i++) {
    const m = mask ? (mask[i] ?? 0xff) : 0xff;
    if (((got[i] ?? 0) & m) !== ((want[i] ?? 0) & m)) return i;
  }
  return got.length < want.length ? got.length : null;
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
  let harnessCrash = false;
  let traceCrash: CrashState | null = null;
  /** Where traceCrash came from: the bus trace, or the crash hook installed by DMA (no stream). */
  let traceHandoff: 'bus-trace-v1' | 'dma-crash-hook-v1' = 'bus-trace-v1';
  let screenMatch: RunOutcome['screenMatch'] = null;
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
    observations.progress_markers =
      w.outcome === 'ended' || (w.outcome === 'crashed' && w.crash.kind === 'harness') ? values.slice(0, -1) : values;
    observations.protocol = test.verdict ? { verdict: test.verdict } : 'harness';
    observations.crash_policy = { jam: test.crash.jam, brk: test.crash.brk, outside_code: test.crash.outside_code ?? null };
    Object.assign(observations, writesObservation(w));
    observations.end_state = w.endState;
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
    if (w.outcome === 'ended') {
      observations.debug_register = w.value;
      observations.debug_register_hex = hex8(w.value);
    } else if (w.outcome === 'crashed' && w.crash.kind === 'harness') {
      observations.debug_register = HANDOFF.crash;
      observations.debug_register_hex = hex8(HANDOFF.crash);
      harnessCrash = true;
    } else if (w.outcome === 'crashed') {
      traceCrash = w.crash;
      if (w.crashHook) traceHandoff = 'dma-crash-hook-v1';
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
  screenBytes ??= await conn.readMemory(SCREEN_RAM, SCREEN_BYTES);
  const colour = (await conn.readMemory(COLOUR_RAM, SCREEN_BYTES)).map((c) => c & 15);
  const [border = 14, background = 6] = await conn.readMemory(0xd020, 2);
  const lines = screenLines(screenBytes);
  let screenJudged: { matched: boolean; reason: string } | null = null;
  if (spec) {
    const found = matchScreen(lines, spec.text, spec.row);
    screenMatch = { text: spec.text, row: spec.row ?? null, matched: found !== null, found_at: found };
    const where = spec.row === undefined ? '' : ` on row ${spec.row}`;
    screenJudged = {
      matched: found !== null,
      reason: found
        ? `screen RAM shows ${JSON.stringify(spec.text)} at row ${found.row}, column ${found.column}`
        : test.observe === 'screen'
          ? `screen RAM did not show ${JSON.stringify(spec.text)}${where} within the ${test.budget.time_ms} ms budget`
          : `screen RAM does not show ${JSON.stringify(spec.text)}${where} at the end of the run`,
    };
  }
  await evidence.add('screen.txt', 'text/plain; charset=utf-8', Buffer.from(`${lines.join('\n')}\n`));
  await evidence.add(
    'screenshot.png',
    'image/png',
    renderScreenPng({ screen: screenBytes, colour, border: border & 15, background: background & 15 }),
  );
  await evidence.add('screen-ram.bin', 'application/octet-stream', screenBytes);
  await evidence.add('colour-ram.bin', 'application/octet-stream', colour);

  const memory: Array<Record<string, unknown>> = [];
  const memoryChecks: MemoryCheck[] = [];
  for (const m of test.expect.memory) {
    const want = Buffer.from(m.bytes, 'hex');
    const got = await conn.readMemory(m.address, want.length);
    const diff = firstMaskedDifference(got, want, m.mask === undefined ? undefined : Buffer.from(m.mask, 'hex'));
    const ok = diff === null;
    memory.push({
      address: m.address,
      address_hex: addressHex(m.address),
      expected: m.bytes,
      ...(m.mask !== undefined ? { mask: m.mask } : {}),
      actual: hexBytes(got),
      matched: ok,
      ...(diff !== null
        ? { first_difference: { address_hex: addressHex(m.address + diff), expected: hex8(want[diff] ?? 0), actual: hex8(got[diff] ?? 0) } }
        : {}),
    });
    memoryChecks.push({
      address: m.address,
      matched: ok,
      reason: ok
        ? `memory at ${addressHex(m.address)} matched`
        : want.length <= 16
          ? `memory at ${addressHex(m.address)} is ${hexBytes(got)}, expected ${m.bytes}${m.mask ? ` (mask ${m.mask})` : ''}`
          : `memory at ${addressHex(m.address + (diff ?? 0))} is ${hex8(got[diff ?? 0] ?? 0)}, expected ${hex8(want[diff ?? 0] ?? 0)} (first difference of ${want.length} bytes from ${addressHex(m.address)})`,
    });
  }
  observations.memory = memory;
  observations.screen_text = lines;

  // THE judge: one decision from every observation.
  const j = judgeRun(test, { wait, range: prgLoadRange(prg), screen: screenJudged, memory: memoryChecks });
  observations.judgement = j.judged;
  if (j.sequence) observations.debug_register_writes_check = j.sequence;
  if (j.budget) {
    observations.cycles = j.budget.used;
    observations.cycle_budget = j.budget;
  }

  let crashState: Record<string, unknown> | null = null;
  if (harnessCrash) crashState = await captureCrash(conn, test, evidence);
  else if (traceCrash) crashState = await recordTraceCrash(conn, test, traceCrash, evidence, traceHandoff);
  const t3 = performance.now();
  return {
    status: j.status,
    statusReason: j.reason,
    observations,
    screenMatch,
    crashState,
    timings: { load_ms: t1 - t0, execute_ms: t2 - t1, observe_ms: t3 - t2 },
  };
}

/**
 * Reads the harness crash hand-off: CRASH_AREA ("CR", kind, A, X, Y, P, SP, PC lo, PC hi), the
 * stack from SP+1 to $01FF, the zero page and the test's selected globals.
 */
async function captureCrash(conn: TargetConnection, test: TestSpec, evidence: EvidenceWriter): Promise<Record<string, unknown>> {
  const area = await conn.readMemory(HANDOFF.crashArea, HANDOFF.crashAreaBytes);
  const valid = area[0] === 0x43 && area[1] === 0x52;
  const kind = !valid ? 'unknown' : area[2] === 1 ? 'brk' : area[2] === 2 ? 'nmi' : 'unknown';
  const sp = area[7] ?? 0xff;
  const pushedPc = (area[8] ?? 0) | ((area[9] ?? 0) << 8);
  const stack = await conn.readMemory(0x0100 + ((sp + 1) & 0xff), 0xff - (sp & 0xff) || 1);
  const zeroPage = await conn.readMemory(0x0000, 256);
  await evidence.add('crash-context.bin', 'application/octet-stream', area);
  await evidence.add('crash-stack.bin', 'application/octet-stream', stack);
  await evidence.add('crash-zero-page.bin', 'application/octet-stream', zeroPage);
  let globalsName: string | null = null;
  if (test.crash_globals.length) {
    const globals: Array<Record<string, unknown>> = [];
    for (const g of test.crash_globals) {
      const bytes = await conn.readMemory(g.address, g.length);
      globals.push({ name: g.name, address: g.address, address_hex: addressHex(g.address), bytes: hexBytes(bytes) });
    }
    globalsName = 'crash-globals.json';
    await evidence.add(globalsName, 'application/json', Buffer.from(`${JSON.stringify(globals, null, 2)}\n`));
  }
  // BRK pushes the address of its opcode + 2: the site is exact. An NMI's pushed PC is the next
  // instruction to run, so the site is where the program was interrupted, not a faulting opcode.
  const site = !valid
    ? null
    : kind === 'brk'
      ? {
          address: (pushedPc - 2) & 0xffff,
          address_hex: addressHex((pushedPc - 2) & 0xffff),
          exact: true,
          note: 'the BRK opcode (pushed PC - 2)',
        }
      : { address: pushedPc, address_hex: addressHex(pushedPc), exact: false, note: 'the instruction the NMI interrupted' };
  return {
    handoff: 'harness-crash-area-v1',
    kind,
    registers: { a: area[3] ?? 0, x: area[4] ?? 0, y: area[5] ?? 0, p: area[6] ?? 0, sp, pc: pushedPc },
    site,
    evidence: { context: 'crash-context.bin', stack: 'crash-stack.bin', zero_page: 'crash-zero-page.bin', globals: globalsName },
  };
}

/**
 * Records a crash the target saw without the program's cooperation (bus trace: BRK, JAM): the
 * context in the harness area's layout ("CR", kind 1 BRK / 3 JAM / 4 outside code, A, X, Y, P, SP,
 * PC lo, PC hi) under the hand-off name `bus-trace-v1` (or `dma-crash-hook-v1` when the crash hook
 * installed by DMA caught it: same layout, PC = the BRK's own address), the stack from SP+1 and the
 * zero page as they were at the crash, and the selected globals as they are now.
 */
async function recordTraceCrash(
  conn: TargetConnection,
  test: TestSpec,
  c: CrashState,
  evidence: EvidenceWriter,
  handoff: 'bus-trace-v1' | 'dma-crash-hook-v1',
): Promise<Record<string, unknown>> {
  const kindByte = c.kind === 'brk' ? 1 : c.kind === 'jam' ? 3 : 4;
  const area = new Uint8Array(HANDOFF.crashAreaBytes);
  area.set([0x43, 0x52, kindByte, c.a, c.x, c.y, c.p, c.sp, c.pc & 0xff, c.pc >> 8]);
  // The crash report's layout: SP+1..$01FF, or one byte when SP is $FF (as the harness area).
  const stack = c.sp === 0xff ? c.stack.subarray(0, 1) : c.stack.subarray((c.sp + 1) & 0xff);
  await evidence.add('crash-context.bin', 'application/octet-stream', area);
  await evidence.add('crash-stack.bin', 'application/octet-stream', stack);
  await evidence.add('crash-zero-page.bin', 'application/octet-stream', c.zeroPage);
  let globalsName: string | null = null;
  if (test.crash_globals.length) {
    const globals: Array<Record<string, unknown>> = [];
    for (const g of test.crash_globals) {
      const bytes = await conn.readMemory(g.address, g.length);
      globals.push({ name: g.name, address: g.address, address_hex: addressHex(g.address), bytes: hexBytes(bytes), read: 'after the run' });
    }
    globalsName = 'crash-globals.json';
    await evidence.add(globalsName, 'application/json', Buffer.from(`${JSON.stringify(globals, null, 2)}\n`));
  }
  return {
    handoff,
    kind: c.kind,
    registers: { a: c.a, x: c.x, y: c.y, p: c.p, sp: c.sp, pc: c.pc },
    cycle: c.cycle,
    site: {
      address: c.pc,
      address_hex: addressHex(c.pc),
      exact: true,
      note: c.kind === 'brk' ? 'the BRK opcode' : c.kind === 'jam' ? 'the JAM opcode' : 'the first instruction outside the code ranges',
    },
    evidence: { context: 'crash-context.bin', stack: 'crash-stack.bin', zero_page: 'crash-zero-page.bin', globals: globalsName },
  };
}
