// A crash's state as the run record keeps it (crash_state and its evidence: crash-context.bin,
// crash-stack.bin, crash-zero-page.bin, crash-globals.json), for every run that ended crashed — an
// ordinary run (run-test.ts) and a capture run (jobs/captures.ts) alike: the harness's own crash
// hand-off read from the machine, or a crash the target saw without the program's cooperation.
import { addressHex } from '../api/address.js';
import type { TestSpec } from '../project/manifest.js';
import { type CrashState, type DebugWait, HANDOFF, type TargetConnection } from '../targets/connection.js';
import type { EvidenceWriter } from './evidence.js';

function hexBytes(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

/** The record's crash_state of a run that ended crashed (null otherwise), its evidence written. */
export async function recordCrashState(
  conn: Pick<TargetConnection, 'readMemory'>,
  test: TestSpec,
  w: DebugWait | null,
  evidence: EvidenceWriter,
): Promise<Record<string, unknown> | null> {
  if (w?.outcome !== 'crashed') return null;
  if (w.crash.kind === 'harness') return captureCrash(conn, test, evidence);
  return recordTraceCrash(conn, test, w.crash, evidence, w.crashHook ? 'dma-crash-hook-v1' : 'bus-trace-v1');
}

/**
 * Reads the harness crash hand-off: CRASH_AREA ("CR", kind, A, X, Y, P, SP, PC lo, PC hi), the
 * stack from SP+1 to $01FF, the zero page and the test's selected globals.
 */
async function captureCrash(
  conn: Pick<TargetConnection, 'readMemory'>,
  test: TestSpec,
  evidence: EvidenceWriter,
): Promise<Record<string, unknown>> {
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
  conn: Pick<TargetConnection, 'readMemory'>,
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
