// The harness crash hand-off ($C0 in $D7FF, context at $0340: "CR", kind, A, X, Y, P, SP, PC lo,
// PC hi — examples/c64-project/src/harness.asm) read into the seam's CrashState. Both targets use
// it when a program that includes the harness reports its own crash.
import { type CrashState, HANDOFF } from './connection.js';

export type ReadMemory = (address: number, length: number) => Promise<Uint8Array>;

/** Stack page and zero page as they are now (the machine is stopped or spinning in the harness). */
export async function readPages(read: ReadMemory): Promise<{ stack: Uint8Array; zeroPage: Uint8Array }> {
  const zeroPage = await read(0x0000, 256);
  const stack = await read(0x0100, 256);
  return { stack, zeroPage };
}

/** The CrashState of a harness hand-off; PC is the address the CPU pushed (BRK: opcode + 2). */
export async function readHarnessCrash(read: ReadMemory, cycle: number | null): Promise<CrashState> {
  const area = await read(HANDOFF.crashArea, HANDOFF.crashAreaBytes);
  const { stack, zeroPage } = await readPages(read);
  return {
    kind: 'harness',
    a: area[3] ?? 0,
    x: area[4] ?? 0,
    y: area[5] ?? 0,
    p: area[6] ?? 0,
    sp: area[7] ?? 0xff,
    pc: (area[8] ?? 0) | ((area[9] ?? 0) << 8),
    stack,
    zeroPage,
    cycle,
  };
}
