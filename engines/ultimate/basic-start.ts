// Where C64 BASIC begins running a program (issue 31, item 2). A program's start is the first
// opcode fetch inside its PRG's load range after RUN — but a program BASIC runs without any machine
// code (`10 POKE 55295,0`) never makes one, so for it the start is where BASIC begins its first
// line: the interpreter reading the first statement's first byte. BASIC reads program text only
// through CHRGET/CHRGOT, a routine the KERNAL copies to the zero page at $0073: CHRGET increments
// TXTPTR ($7A/$7B), which is the operand of CHRGOT's `LDA $xxxx` at $0079. Executing the first
// line, the interpreter steps TXTPTR from the line number's last byte to the first statement byte
// (the line's link and number are 4 bytes) and CHRGOT's LDA reads it. Nothing else reads that byte
// through $0079: the KERNAL's RAM test at the reset reads it from $FD6E, BASIC's relinking after a
// LOAD reads links and line ends from $A53x, a typed RUN or SYS is read from the input buffer at
// $0200. Both targets watch for that read: the vice target with a load checkpoint whose hit names
// the instruction at $0079 (run-observer.ts), the bus trace as a read of the byte right after the
// CPU read $007B, the LDA's operand high byte (services' program-start.ts).

/** CHRGOT's `LDA $xxxx` ($AD, operand = TXTPTR), in the zero page where the KERNAL copied CHRGET. */
export const CHRGOT_LOAD = 0x0079;
/** The LDA's operand high byte (TXTPTR+1): the CPU's read just before the LDA reads program text. */
export const CHRGOT_OPERAND_HIGH = 0x007b;

/**
 * The first statement byte of a BASIC program loaded at `range.start` (after the first line's
 * 2-byte link and 2-byte line number); null when the PRG is too short to hold a BASIC line.
 */
export function firstStatementAddress(range: { start: number; end: number }): number | null {
  const address = range.start + 4;
  return address <= range.end ? address : null;
}
