// Reading a linked RISC-V program: the loadable segments (PT_LOAD) and the entry point of a
// little-endian ELF32 executable, as riscv64-unknown-elf-ld -m elf32lriscv writes it. Only what the
// update-file packer needs; anything else in the file (sections, symbols) is ignored. Every header
// field that is used is checked against the file's size first, so a truncated or foreign file gets
// an error naming what is wrong instead of a silently wrong image.

export class ElfFormatError extends Error {
  override readonly name = 'ElfFormatError';
}

export interface ElfSegment {
  /** Physical load address (p_paddr): where the bytes go in the device's memory. */
  readonly address: number;
  /** File bytes (p_filesz) followed by zeros up to p_memsz (.bss). */
  readonly bytes: Uint8Array;
}

export interface Elf32Program {
  readonly entry: number;
  readonly segments: readonly ElfSegment[];
}

const PT_LOAD = 1;
const EM_RISCV = 243;
const ET_EXEC = 2;
/** The largest image we expand .bss for: the Elite II's application region is 16 MiB. */
const MAX_SEGMENT_BYTES = 16 * 1024 * 1024;

/** Parses a little-endian ELF32 RISC-V executable into its loadable segments and entry point. */
export function readElf32(file: Uint8Array): Elf32Program {
  if (file.length < 52) throw new ElfFormatError(`ELF file too short: ${file.length} bytes, an ELF32 header needs 52`);
  if (file[0] !== 0x7f || file[1] !== 0x45 || file[2] !== 0x4c || file[3] !== 0x46) {
    throw new ElfFormatError('not an ELF file: the first four bytes are not 7F "ELF"');
  }
  if (file[4] !== 1)
    throw new ElfFormatError(`not ELF32: EI_CLASS is ${file[4]}, expected 1 (32-bit); build with -march=rv32i -mabi=ilp32`);
  if (file[5] !== 1) throw new ElfFormatError(`not little-endian: EI_DATA is ${file[5]}, expected 1`);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const type = view.getUint16(16, true);
  const machine = view.getUint16(18, true);
  if (machine !== EM_RISCV) throw new ElfFormatError(`not a RISC-V ELF: e_machine is ${machine}, expected ${EM_RISCV}`);
  if (type !== ET_EXEC) throw new ElfFormatError(`not a linked executable: e_type is ${type}, expected ${ET_EXEC} (ET_EXEC)`);
  const entry = view.getUint32(24, true);
  const phoff = view.getUint32(28, true);
  const phentsize = view.getUint16(42, true);
  const phnum = view.getUint16(44, true);
  if (phnum === 0) throw new ElfFormatError('the ELF file has no program headers');
  if (phentsize < 32) throw new ElfFormatError(`program header entries of ${phentsize} bytes, expected at least 32`);
  if (phoff + phnum * phentsize > file.length) {
    throw new ElfFormatError(`program headers end at ${phoff + phnum * phentsize}, past the end of the ${file.length}-byte file`);
  }
  const segments: ElfSegment[] = [];
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (view.getUint32(at, true) !== PT_LOAD) continue;
    const offset = view.getUint32(at + 4, true);
    const paddr = view.getUint32(at + 12, true);
    const filesz = view.getUint32(at + 16, true);
    const memsz = view.getUint32(at + 20, true);
    if (memsz === 0) continue;
    if (filesz > memsz) throw new ElfFormatError(`segment ${i}: p_filesz ${filesz} exceeds p_memsz ${memsz}`);
    if (memsz > MAX_SEGMENT_BYTES) throw new ElfFormatError(`segment ${i}: ${memsz} bytes, more than the 16 MiB application region`);
    if (offset + filesz > file.length) {
      throw new ElfFormatError(`segment ${i}: its bytes end at ${offset + filesz}, past the end of the ${file.length}-byte file`);
    }
    const bytes = new Uint8Array(memsz);
    bytes.set(file.subarray(offset, offset + filesz));
    segments.push({ address: paddr, bytes });
  }
  if (segments.length === 0) throw new ElfFormatError('the ELF file has no loadable (PT_LOAD) segment');
  return { entry, segments };
}
