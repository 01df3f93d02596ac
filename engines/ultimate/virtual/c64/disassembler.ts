// A one-instruction 6510 disassembler in VICE's text-monitor spelling (`STA $D7FF`, `LDA ($FB),Y`),
// for the text monitor of the virtual VICE, which prints the instruction that hit a checkpoint the
// way x64sc does. Undocumented opcodes use the common names (SLO, RLA, SAX, LAX, DCP, ISB, JAM…).

type Mode = 'imp' | 'acc' | 'imm' | 'zp' | 'zpx' | 'zpy' | 'abs' | 'absx' | 'absy' | 'ind' | 'indx' | 'indy' | 'rel';

const LENGTH: Record<Mode, number> = {
  imp: 1,
  acc: 1,
  imm: 2,
  zp: 2,
  zpx: 2,
  zpy: 2,
  abs: 3,
  absx: 3,
  absy: 3,
  ind: 3,
  indx: 2,
  indy: 2,
  rel: 2,
};

// 16 rows of 16: "MNE mode" per opcode.
const TABLE = `
BRK imp|ORA indx|JAM imp|SLO indx|NOOP zp|ORA zp|ASL zp|SLO zp|PHP imp|ORA imm|ASL acc|ANC imm|NOOP abs|ORA abs|ASL abs|SLO abs
BPL rel|ORA indy|JAM imp|SLO indy|NOOP zpx|ORA zpx|ASL zpx|SLO zpx|CLC imp|ORA absy|NOOP imp|SLO absy|NOOP absx|ORA absx|ASL absx|SLO absx
JSR abs|AND indx|JAM imp|RLA indx|BIT zp|AND zp|ROL zp|RLA zp|PLP imp|AND imm|ROL acc|ANC imm|BIT abs|AND abs|ROL abs|RLA abs
BMI rel|AND indy|JAM imp|RLA indy|NOOP zpx|AND zpx|ROL zpx|RLA zpx|SEC imp|AND absy|NOOP imp|RLA absy|NOOP absx|AND absx|ROL absx|RLA absx
RTI imp|EOR indx|JAM imp|SRE indx|NOOP zp|EOR zp|LSR zp|SRE zp|PHA imp|EOR imm|LSR acc|ASR imm|JMP abs|EOR abs|LSR abs|SRE abs
BVC rel|EOR indy|JAM imp|SRE indy|NOOP zpx|EOR zpx|LSR zpx|SRE zpx|CLI imp|EOR absy|NOOP imp|SRE absy|NOOP absx|EOR absx|LSR absx|SRE absx
RTS imp|ADC indx|JAM imp|RRA indx|NOOP zp|ADC zp|ROR zp|RRA zp|PLA imp|ADC imm|ROR acc|ARR imm|JMP ind|ADC abs|ROR abs|RRA abs
BVS rel|ADC indy|JAM imp|RRA indy|NOOP zpx|ADC zpx|ROR zpx|RRA zpx|SEI imp|ADC absy|NOOP imp|RRA absy|NOOP absx|ADC absx|ROR absx|RRA absx
NOOP imm|STA indx|NOOP imm|SAX indx|STY zp|STA zp|STX zp|SAX zp|DEY imp|NOOP imm|TXA imp|ANE imm|STY abs|STA abs|STX abs|SAX abs
BCC rel|STA indy|JAM imp|SHA indy|STY zpx|STA zpx|STX zpy|SAX zpy|TYA imp|STA absy|TXS imp|SHS absy|SHY absx|STA absx|SHX absy|SHA absy
LDY imm|LDA indx|LDX imm|LAX indx|LDY zp|LDA zp|LDX zp|LAX zp|TAY imp|LDA imm|TAX imp|LXA imm|LDY abs|LDA abs|LDX abs|LAX abs
BCS rel|LDA indy|JAM imp|LAX indy|LDY zpx|LDA zpx|LDX zpy|LAX zpy|CLV imp|LDA absy|TSX imp|LAS absy|LDY absx|LDA absx|LDX absy|LAX absy
CPY imm|CMP indx|NOOP imm|DCP indx|CPY zp|CMP zp|DEC zp|DCP zp|INY imp|CMP imm|DEX imp|SBX imm|CPY abs|CMP abs|DEC abs|DCP abs
BNE rel|CMP indy|JAM imp|DCP indy|NOOP zpx|CMP zpx|DEC zpx|DCP zpx|CLD imp|CMP absy|NOOP imp|DCP absy|NOOP absx|CMP absx|DEC absx|DCP absx
CPX imm|SBC indx|NOOP imm|ISB indx|CPX zp|SBC zp|INC zp|ISB zp|INX imp|SBC imm|NOP imp|SBC imm|CPX abs|SBC abs|INC abs|ISB abs
BEQ rel|SBC indy|JAM imp|ISB indy|NOOP zpx|SBC zpx|INC zpx|ISB zpx|SED imp|SBC absy|NOOP imp|ISB absy|NOOP absx|SBC absx|INC absx|ISB absx`
  .trim()
  .split('\n')
  .flatMap((row) => row.split('|'))
  .map((cell) => {
    const [mnemonic, mode] = cell.split(' ') as [string, Mode];
    return { mnemonic, mode };
  });

/** The number of bytes of the instruction with opcode `op`. */
export function instructionLength(op: number): number {
  return LENGTH[TABLE[op & 0xff]!.mode];
}

const hex = (v: number, digits: number) => v.toString(16).toUpperCase().padStart(digits, '0');

/** `STA $D7FF` for the instruction at `pc` whose bytes are `bytes` (opcode first). */
export function disassemble(pc: number, bytes: readonly number[]): string {
  const { mnemonic, mode } = TABLE[(bytes[0] ?? 0) & 0xff]!;
  const b1 = bytes[1] ?? 0;
  const word = b1 | ((bytes[2] ?? 0) << 8);
  switch (mode) {
    case 'imp':
      return mnemonic;
    case 'acc':
      return `${mnemonic} A`;
    case 'imm':
      return `${mnemonic} #$${hex(b1, 2)}`;
    case 'zp':
      return `${mnemonic} $${hex(b1, 2)}`;
    case 'zpx':
      return `${mnemonic} $${hex(b1, 2)},X`;
    case 'zpy':
      return `${mnemonic} $${hex(b1, 2)},Y`;
    case 'abs':
      return `${mnemonic} $${hex(word, 4)}`;
    case 'absx':
      return `${mnemonic} $${hex(word, 4)},X`;
    case 'absy':
      return `${mnemonic} $${hex(word, 4)},Y`;
    case 'ind':
      return `${mnemonic} ($${hex(word, 4)})`;
    case 'indx':
      return `${mnemonic} ($${hex(b1, 2)},X)`;
    case 'indy':
      return `${mnemonic} ($${hex(b1, 2)}),Y`;
    case 'rel':
      return `${mnemonic} $${hex((pc + 2 + ((b1 ^ 0x80) - 0x80)) & 0xffff, 4)}`;
  }
}
