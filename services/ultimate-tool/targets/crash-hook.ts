// The crash hook the ultimate target installs by DMA when it has no debug stream (hardware without
// a receiver: REST polling), so a foreign program's BRK is still a crash with its registers (issue
// 26 section 3). The program is loaded with load_prg (reset + DMA load, the machine at READY, the
// KERNAL's vectors initialised), then this handler and the BRK vector $0316/$0317 are written by
// DMA, then RUN is typed through the keyboard buffer. The handler runs after the KERNAL's IRQ/BRK
// entry ($FF48: PHA, TXA, PHA, TYA, PHA, then JMP ($0316) for a BRK), stores the context in the
// harness crash area's layout ("CR", kind 1 = BRK, A, X, Y, P, SP, PC lo, PC hi) at `block`, writes
// the signal value to $D7FF and spins, so the poller sees the signal and reads the block back.
// A JAM or execution outside the code is not seen this way (no bus trace): only BRK.

/** The RAM the hook occupies: the cassette buffer's upper part, clear of the harness's $0340-$034F,
 *  $03FE and $03FF (a program that includes the harness keeps working). */
export const CRASH_HOOK = {
  block: 0x0380,
  blockBytes: 16,
  handler: 0x0390,
  brkVector: 0x0316,
  keyboardBuffer: 0x0277,
  keyboardCount: 0x00c6,
} as const;

/** The handler's machine code at CRASH_HOOK.handler; `signal` is written to $D7FF. */
export function crashHookCode(signal: number): Uint8Array {
  const b = CRASH_HOOK.block;
  const lo = (a: number) => a & 0xff;
  const hi = (a: number) => a >> 8;
  const sta = (a: number) => [0x8d, lo(a), hi(a)];
  // After the KERNAL's three pushes, from SP+1: Y, X, A, then the CPU's P, PC lo, PC hi.
  const fromStack = (offset: number, to: number) => [0xbd, offset, 0x01, ...sta(to)]; // LDA $01xx,X ; STA to
  const code = [
    0xba, // TSX
    ...fromStack(0x03, b + 3), // A
    ...fromStack(0x02, b + 4), // X
    ...fromStack(0x01, b + 5), // Y
    ...fromStack(0x04, b + 6), // P
    ...fromStack(0x05, b + 8), // PC lo
    ...fromStack(0x06, b + 9), // PC hi
    0x8a, // TXA
    0x18, // CLC
    0x69,
    0x06, // ADC #6: the SP before the interrupt
    ...sta(b + 7),
    0xa9,
    0x01,
    ...sta(b + 2), // kind 1: BRK
    0xa9,
    0x43,
    ...sta(b), // "C"
    0xa9,
    0x52,
    ...sta(b + 1), // "R"
    0xa9,
    signal & 0xff,
    ...sta(0xd7ff),
  ];
  const spin = CRASH_HOOK.handler + code.length;
  code.push(0x4c, lo(spin), hi(spin)); // JMP * : the machine stays as it crashed
  return Uint8Array.from(code);
}

/** The RAM range the hook writes (block + handler), for the run record. */
export function crashHookFootprint(signal: number): { start: number; end: number } {
  return { start: CRASH_HOOK.block, end: CRASH_HOOK.handler + crashHookCode(signal).length - 1 };
}

/** True when the PRG's load range overlaps the hook's footprint (then the hook is not installed). */
export function prgOverlapsHook(prg: Uint8Array, signal: number): boolean {
  if (prg.length < 3) return false;
  const load = (prg[0] ?? 0) | ((prg[1] ?? 0) << 8);
  const end = load + prg.length - 3;
  const f = crashHookFootprint(signal);
  return load <= f.end && end >= f.start;
}

/**
 * The value the hook signals with: one the protocol does not end the run with, other than the
 * polling idle value, the highest such (with $00 pass / $FF fail and idle $FE: $FD). null when none.
 */
export function crashHookSignal(classify: (v: number) => 'pass' | 'fail' | 'crash' | null, idle: number): number | null {
  for (let v = 0xff; v > 0; v--) if (v !== idle && classify(v) === null) return v;
  return null;
}
