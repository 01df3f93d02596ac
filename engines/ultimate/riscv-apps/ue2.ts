// The Ultimate 64 Elite II update file (`.UE2`): a sequence of records, each a 12-byte header
// `u32 load_address, u32 length, u32 start_address` (little-endian) followed by `length` payload
// bytes for `load_address`. The firmware's Run Update copies every payload and then jumps to the
// start address of the LAST record it read (software/filetypes/filetype_u2p.cc), so our packer
// writes the entry into every record, as the firmware's tools/hex2bin.c -r does. Unlike hex2bin,
// which pads payloads to 4 bytes but writes the unpadded length, we write the padded length, so
// the header always says how many bytes follow. The reader is strict: anything that would make the
// device load or jump somewhere other than what the file seems to say is an error naming the
// record, its file offset, what was found and what was expected.
import { APP_REGION_BASE, APP_REGION_END } from './elite2-memory-map.js';
import { type Elf32Program, readElf32 } from './elf32.js';

export const UE2_HEADER_BYTES = 12;
/** Largest update file accepted: the whole application region plus headers for many records. */
export const UE2_MAX_FILE_BYTES = APP_REGION_END - APP_REGION_BASE + 64 * 1024;

export class Ue2FormatError extends Error {
  override readonly name = 'Ue2FormatError';
}

export interface Ue2Record {
  readonly loadAddress: number;
  readonly bytes: Uint8Array;
  /** The start address written in this record's header. */
  readonly start: number;
}

export interface Ue2Image {
  readonly records: readonly Ue2Record[];
  /** Where Run Update jumps: the start address of the last record. */
  readonly entry: number;
  /** Total payload bytes. */
  readonly payloadBytes: number;
}

const hex = (n: number): string => `0x${(n >>> 0).toString(16).padStart(8, '0')}`;

function checkPlacement(what: string, address: number, length: number): void {
  if (address % 4 !== 0) throw new Ue2FormatError(`${what}: load address ${hex(address)} is not 4-byte aligned`);
  if (address < APP_REGION_BASE || address + length > APP_REGION_END) {
    throw new Ue2FormatError(
      `${what}: ${length} bytes at ${hex(address)}..${hex(address + length)} fall outside the application region ${hex(APP_REGION_BASE)}..${hex(APP_REGION_END)}`,
    );
  }
}

function checkEntry(entry: number, records: ReadonlyArray<{ loadAddress: number; bytes: Uint8Array }>): void {
  if (entry % 4 !== 0) throw new Ue2FormatError(`entry ${hex(entry)} is not 4-byte aligned`);
  if (!records.some((r) => entry >= r.loadAddress && entry < r.loadAddress + r.bytes.length)) {
    throw new Ue2FormatError(
      `entry ${hex(entry)} is not inside any loaded record; Run Update would jump into memory the file does not fill`,
    );
  }
}

function checkOverlaps(records: ReadonlyArray<{ loadAddress: number; bytes: Uint8Array }>): void {
  const sorted = [...records].map((r, i) => ({ r, i })).sort((p, q) => p.r.loadAddress - q.r.loadAddress);
  for (let k = 1; k < sorted.length; k++) {
    const prev = sorted[k - 1]!;
    const cur = sorted[k]!;
    if (cur.r.loadAddress < prev.r.loadAddress + prev.r.bytes.length) {
      throw new Ue2FormatError(
        `record ${cur.i} at ${hex(cur.r.loadAddress)} overlaps record ${prev.i} (${hex(prev.r.loadAddress)}, ${prev.r.bytes.length} bytes)`,
      );
    }
  }
}

/** Parses and validates an update file. */
export function parseUe2(file: Uint8Array): Ue2Image {
  if (file.length === 0) throw new Ue2FormatError('the update file is empty; expected at least one 12-byte record header');
  if (file.length > UE2_MAX_FILE_BYTES)
    throw new Ue2FormatError(`the update file is ${file.length} bytes; at most ${UE2_MAX_FILE_BYTES} are accepted`);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const records: Ue2Record[] = [];
  let at = 0;
  let payloadBytes = 0;
  while (at < file.length) {
    const what = `record ${records.length} at file offset ${at}`;
    if (file.length - at < UE2_HEADER_BYTES) {
      throw new Ue2FormatError(`${what}: truncated header, ${file.length - at} bytes left where a 12-byte header was expected`);
    }
    const loadAddress = view.getUint32(at, true);
    const length = view.getUint32(at + 4, true);
    const start = view.getUint32(at + 8, true);
    at += UE2_HEADER_BYTES;
    if (length === 0) throw new Ue2FormatError(`${what}: length is 0; every record must carry payload`);
    if (length % 4 !== 0)
      throw new Ue2FormatError(
        `${what}: length ${length} is not a multiple of 4 (payloads are padded to 4 bytes and the header holds the padded length)`,
      );
    if (length > file.length - at) {
      throw new Ue2FormatError(`${what}: payload of ${length} bytes runs past the end of the file (${file.length - at} bytes left)`);
    }
    checkPlacement(what, loadAddress, length);
    records.push({ loadAddress, bytes: file.subarray(at, at + length), start });
    payloadBytes += length;
    at += length;
  }
  const last = records[records.length - 1]!;
  const entry = last.start;
  if (entry === 0)
    throw new Ue2FormatError(
      `the last record's start address is 0; Run Update jumps to the last record's start, so it must hold the entry`,
    );
  records.forEach((r, i) => {
    if (r.start !== 0 && r.start !== entry) {
      throw new Ue2FormatError(
        `record ${i} has start ${hex(r.start)} but the last record has ${hex(entry)}; Run Update jumps to the last one, so they must agree`,
      );
    }
  });
  checkOverlaps(records);
  checkEntry(entry, records);
  return { records, entry, payloadBytes };
}

export interface Ue2Segment {
  readonly address: number;
  readonly bytes: Uint8Array;
}

/** Packs segments into an update file: ascending addresses, payloads padded to 4, the entry in every record. */
export function packUe2(segments: readonly Ue2Segment[], entry: number): Uint8Array {
  if (segments.length === 0) throw new Ue2FormatError('nothing to pack: no segments');
  const records = [...segments]
    .sort((p, q) => p.address - q.address)
    .map((s, i) => {
      const padded = (s.bytes.length + 3) & ~3;
      checkPlacement(`segment ${i}`, s.address, padded);
      const bytes = new Uint8Array(padded);
      bytes.set(s.bytes);
      return { loadAddress: s.address, bytes };
    });
  checkOverlaps(records);
  checkEntry(entry, records);
  const total = records.reduce((n, r) => n + UE2_HEADER_BYTES + r.bytes.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const r of records) {
    view.setUint32(at, r.loadAddress, true);
    view.setUint32(at + 4, r.bytes.length, true);
    view.setUint32(at + 8, entry, true);
    out.set(r.bytes, at + UE2_HEADER_BYTES);
    at += UE2_HEADER_BYTES + r.bytes.length;
  }
  return out;
}

/** Packs a linked program (its PT_LOAD segments, .bss included as zeros) into an update file. */
export function packUe2FromElf(elf: Uint8Array | Elf32Program): Uint8Array {
  const program = elf instanceof Uint8Array ? readElf32(elf) : elf;
  return packUe2(program.segments, program.entry);
}
