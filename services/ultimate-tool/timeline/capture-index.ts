// The timeline index of one debug-stream capture, built once when the capture is registered as
// run evidence and registered beside it (with its own SHA-256 in the immutable run record).
//
// Why: a capture at the default bound is 90,000 datagrams (~130 MB; ~16 s of bus time in
// "6510 & VIC"). A timeline page must seek straight to a datagram ordinal and must still refuse
// tampered evidence, without reading or hashing the whole capture per page. The index holds
// each record's file offset (records can differ in length when a datagram was malformed), its sequence
// bookkeeping, and a SHA-256 per block of 64 records, so a page re-hashes only the blocks it reads.
// The index itself is bound to the capture's embedded digest and checked against the run record's
// hash before use.
//
//   Header, 64 bytes:  0 8 magic "U64TLIX1" | 8 4 u32 version (1) | 12 4 u32 records
//                      16 4 u32 records per block | 20 4 u32 datagram size | 24 32 capture SHA-256
//                      56 8 reserved
//   Records, 16 bytes each: 0 8 u64 file offset of the record header | 8 2 u16 sequence
//                      10 2 u16 datagram length | 12 4 u32 flags+missing: bit 31 out of order,
//                      bits 0–30 datagrams lost just before this one (by sequence)
//   Blocks, 32 bytes each: SHA-256 of the capture bytes of that block's records (headers included)
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

export const INDEX_MAGIC = 'U64TLIX1';
export const INDEX_VERSION = 1;
export const INDEX_HEADER_BYTES = 64;
export const INDEX_RECORD_BYTES = 16;
export const INDEX_BLOCK_HASH_BYTES = 32;
export const RECORDS_PER_BLOCK = 64;

const CAPTURE_MAGIC = 'U64DBGC1';
const TRAILER_MAGIC = 'U64DBGT1';
const CAPTURE_HEADER_BYTES = 32;
const CAPTURE_RECORD_HEADER_BYTES = 12;
const CAPTURE_TRAILER_BYTES = 80;

export class CaptureIndexError extends Error {
  override readonly name = 'CaptureIndexError';
}

export interface CaptureIndexSummary {
  records: number;
  datagramBytes: number;
  captureSha256: string;
}

/**
 * Streams the capture once: verifies its structure and embedded SHA-256, and returns the index
 * bytes (write them with a durable write and register them). Memory: the index only.
 */
export async function buildCaptureIndex(capturePath: string): Promise<{ index: Buffer; summary: CaptureIndexSummary }> {
  const fh = await open(capturePath, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size < CAPTURE_HEADER_BYTES + CAPTURE_TRAILER_BYTES)
      throw new CaptureIndexError(`capture is ${size} bytes: too short to be a capture`);
    const header = Buffer.alloc(CAPTURE_HEADER_BYTES);
    await fh.read(header, 0, CAPTURE_HEADER_BYTES, 0);
    if (header.toString('latin1', 0, 8) !== CAPTURE_MAGIC) throw new CaptureIndexError('not a debug-stream capture (bad magic)');
    const datagramBytes = header.readUInt32LE(12);
    const trailerAt = size - CAPTURE_TRAILER_BYTES;
    const trailer = Buffer.alloc(CAPTURE_TRAILER_BYTES);
    await fh.read(trailer, 0, CAPTURE_TRAILER_BYTES, trailerAt);
    if (trailer.toString('latin1', 0, 8) !== TRAILER_MAGIC) throw new CaptureIndexError('capture trailer missing (file incomplete?)');
    const declared = trailer.readUInt32LE(8);

    const whole = createHash('sha256');
    whole.update(header);
    const records: Buffer[] = [];
    const blockHashes: Buffer[] = [];
    let block = createHash('sha256');
    let inBlock = 0;
    let lastSeq = -1;
    let at = CAPTURE_HEADER_BYTES;
    // Records are read through a 1 MiB window: one read per window, not two per record.
    const WINDOW = 1 << 20;
    let window = Buffer.alloc(WINDOW);
    let windowAt = 0;
    let windowLen = 0;
    const slice = async (pos: number, len: number): Promise<Buffer> => {
      if (pos < windowAt || pos + len > windowAt + windowLen) {
        if (len > window.length) window = Buffer.alloc(len);
        windowAt = pos;
        windowLen = (await fh.read(window, 0, Math.min(window.length, trailerAt - pos), pos)).bytesRead;
        if (windowLen < len) throw new CaptureIndexError(`capture ended early at byte ${pos + windowLen}`);
      }
      return window.subarray(pos - windowAt, pos - windowAt + len);
    };
    while (at < trailerAt) {
      if (at + CAPTURE_RECORD_HEADER_BYTES > trailerAt) throw new CaptureIndexError(`partial record header at byte ${at}`);
      const recHeader = await slice(at, CAPTURE_RECORD_HEADER_BYTES);
      const ordinal = recHeader.readUInt32LE(0);
      const sequence = recHeader.readUInt16LE(4);
      const length = recHeader.readUInt16LE(6);
      if (ordinal !== records.length) throw new CaptureIndexError(`record ordinal ${ordinal} where ${records.length} was expected`);
      if (at + CAPTURE_RECORD_HEADER_BYTES + length > trailerAt) throw new CaptureIndexError(`record ${ordinal} runs past the trailer`);
      const recordBytes = await slice(at, CAPTURE_RECORD_HEADER_BYTES + length);
      whole.update(recordBytes);
      block.update(recordBytes);

      let missing = 0;
      let outOfOrder = false;
      if (length === datagramBytes) {
        if (lastSeq >= 0) {
          const delta = (sequence - lastSeq) & 0xffff;
          if (delta === 0 || delta >= 0x8000) outOfOrder = true;
          else missing = delta - 1;
        }
        if (!outOfOrder) lastSeq = sequence;
      }
      const rec = Buffer.alloc(INDEX_RECORD_BYTES);
      rec.writeBigUInt64LE(BigInt(at), 0);
      rec.writeUInt16LE(sequence, 8);
      rec.writeUInt16LE(length, 10);
      rec.writeUInt32LE(((outOfOrder ? 0x80000000 : 0) | Math.min(missing, 0x7fffffff)) >>> 0, 12);
      records.push(rec);
      at += CAPTURE_RECORD_HEADER_BYTES + length;
      if (++inBlock === RECORDS_PER_BLOCK) {
        blockHashes.push(block.digest());
        block = createHash('sha256');
        inBlock = 0;
      }
    }
    if (inBlock > 0) blockHashes.push(block.digest());
    if (records.length !== declared)
      throw new CaptureIndexError(`the trailer declares ${declared} datagrams but ${records.length} are recorded`);
    whole.update(trailer.subarray(0, 48));
    const digest = whole.digest();
    if (!digest.equals(trailer.subarray(48, 80)))
      throw new CaptureIndexError('capture SHA-256 mismatch: the file was altered or truncated');

    const head = Buffer.alloc(INDEX_HEADER_BYTES);
    head.write(INDEX_MAGIC, 0, 'latin1');
    head.writeUInt32LE(INDEX_VERSION, 8);
    head.writeUInt32LE(records.length, 12);
    head.writeUInt32LE(RECORDS_PER_BLOCK, 16);
    head.writeUInt32LE(datagramBytes, 20);
    digest.copy(head, 24);
    return {
      index: Buffer.concat([head, ...records, ...blockHashes]),
      summary: { records: records.length, datagramBytes, captureSha256: digest.toString('hex') },
    };
  } finally {
    await fh.close();
  }
}
