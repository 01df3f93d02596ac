// Whether a BRK is a crash (tests[].crash.brk, issue 31): "any", "never", or — the default —
// "unhandled": the BRK reaches the KERNAL's own BRK handling. Decided from three facts both
// targets observe at the BRK's vector fetch, so both decide the same way:
//   - the vector the CPU fetched at $FFFE/$FFFF. Every C64 KERNAL holds $FF48 there (its IRQ/BRK
//     entry); another value means the KERNAL is banked out and the CPU read the RAM under it.
//   - with $FF48: the KERNAL's entry pushes A, X, Y and, for a BRK, jumps through $0316/$0317. The
//     BRK reaches the KERNAL's handling when that vector still points into the KERNAL ($E000-$FFFF;
//     its own is $FE66, BASIC's warm start). A program (or a harness) that points it at its own
//     handler handles its BRKs.
//   - with another vector (KERNAL banked out): the BRK is handled when the program set that vector
//     up — wrote $FFFE/$FFFF after its start, or loaded them with the PRG. Otherwise the vector is
//     whatever RAM held (the power-on pattern): it leads nowhere the program set up.
// Known limit: a program that banks the KERNAL out and puts its own handler at $FF48 with a RAM
// vector of $FF48 is judged by $0316 as if the KERNAL were in.
import { addressHex } from '../api/address-syntax.js';

export const KERNAL_IRQ_ENTRY = 0xff48;

export interface BrkFacts {
  /** The vector the CPU fetched from $FFFE/$FFFF (where execution went). */
  vector: number;
  /** The word at $0316/$0317 at the BRK. */
  brkVector: number;
  /** The program wrote $FFFE or $FFFF since its start, or its PRG covers them. */
  cpuVectorSetByProgram: boolean;
}

/** True when the BRK reaches the KERNAL's own handling. */
export function brkReachesKernal(f: BrkFacts): boolean {
  if (f.vector === KERNAL_IRQ_ENTRY) return f.brkVector >= 0xe000;
  return !f.cpuVectorSetByProgram;
}

export function brkIsCrash(policy: 'unhandled' | 'any' | 'never', f: BrkFacts): boolean {
  if (policy === 'any') return true;
  if (policy === 'never') return false;
  return brkReachesKernal(f);
}

/** Words a crash reason uses for why the BRK counted. */
export function brkWhy(policy: 'unhandled' | 'any' | 'never', f: BrkFacts): string {
  if (policy === 'any') return 'crash.brk is "any"';
  return f.vector === KERNAL_IRQ_ENTRY
    ? `unhandled: the BRK vector at $0316 points into the KERNAL (${addressHex(f.brkVector)})`
    : `unhandled: the KERNAL is banked out and the vector at $FFFE (${addressHex(f.vector)}) was not set by the program`;
}

/** Whether a PRG's bytes cover $FFFE or $FFFF. */
export function prgCoversCpuVector(prg: Uint8Array): boolean {
  if (prg.length < 3) return false;
  const load = (prg[0] ?? 0) | ((prg[1] ?? 0) << 8);
  return load + prg.length - 3 >= 0xfffe;
}
