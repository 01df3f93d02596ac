// The byte a 6510 store instruction wrote, from the registers after it. A VICE store checkpoint
// stops after the instruction; in VICE $D7FF is a SID mirror, so reading it back says nothing —
// the value is the register the instruction stored (docs/ultimate/VICE.md). Read-modify-write
// instructions (INC $D7FF…) write a value that is in no register: they are reported as such.

export type StoreValue =
  | { kind: 'value'; value: number }
  /** A read-modify-write (or an opcode that is no store): the written byte is not observable. */
  | { kind: 'unobservable'; reason: string };

const A = new Set([0x8d, 0x9d, 0x99, 0x81, 0x91, 0x85, 0x95]);
const X = new Set([0x8e, 0x86, 0x96]);
const Y = new Set([0x8c, 0x84, 0x94]);
/** SAX: A AND X. */
const AX = new Set([0x8f, 0x87, 0x97, 0x83]);
/** SHA/SHX/SHY/TAS: the register(s) AND (high byte of the base address + 1), as VICE computes without a page cross. */
const HIGH_AND: Record<number, 'ax' | 'x' | 'y'> = { 159: 'ax', 158: 'x', 156: 'y', 155: 'ax' };
const RMW = new Set([
  0x0e, 0x1e, 0x2e, 0x3e, 0x4e, 0x5e, 0x6e, 0x7e, 0xce, 0xde, 0xee, 0xfe,
  // undocumented RMW: SLO RLA SRE RRA DCP ISC (abs, abs,X, abs,Y, (zp,X), (zp),Y)
  0x0f, 0x1f, 0x1b, 0x03, 0x13, 0x2f, 0x3f, 0x3b, 0x23, 0x33, 0x4f, 0x5f, 0x5b, 0x43, 0x53, 0x6f, 0x7f, 0x7b, 0x63, 0x73, 0xcf, 0xdf, 0xdb,
  0xc3, 0xd3, 0xef, 0xff, 0xfb, 0xe3, 0xf3,
]);

export function storedValue(bytes: readonly number[], regs: { a: number; x: number; y: number }): StoreValue {
  const op = bytes[0] ?? -1;
  const hex = `$${op.toString(16).toUpperCase().padStart(2, '0')}`;
  if (A.has(op)) return { kind: 'value', value: regs.a };
  if (X.has(op)) return { kind: 'value', value: regs.x };
  if (Y.has(op)) return { kind: 'value', value: regs.y };
  if (AX.has(op)) return { kind: 'value', value: regs.a & regs.x };
  const h = HIGH_AND[op];
  if (h !== undefined) {
    const high = ((bytes[2] ?? 0) + 1) & 0xff;
    const r = h === 'ax' ? regs.a & regs.x : h === 'x' ? regs.x : regs.y;
    return { kind: 'value', value: r & high };
  }
  if (RMW.has(op)) return { kind: 'unobservable', reason: `opcode ${hex} is a read-modify-write: the byte it wrote is in no register` };
  return { kind: 'unobservable', reason: `opcode ${hex} is not a store instruction` };
}
