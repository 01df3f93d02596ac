// The debug-stream capture file (format version 1). All integers little-endian.
//
//   Header, 32 bytes
//     0  8  magic "U64DBGC1"
//     8  4  u32 format version (1)
//    12  4  u32 expected datagram size (1444)
//    16  8  f64 capture start, ms since the Unix epoch
//    24  4  u32 bound: maximum datagrams
//    28  4  u32 bound: maximum duration, ms
//   Records, one per recorded datagram, in ARRIVAL order
//     0  4  u32 arrival ordinal (0, 1, 2, … — gap-free by construction)
//     4  2  u16 sequence number, copied from the datagram
//     6  2  u16 payload length
//     8  4  u32 arrival time, µs since capture start
//    12  n  the datagram exactly as received (header included)
//   Trailer, 80 bytes
//     0  8  magic "U64DBGT1"
//     8  4  u32 datagrams recorded
//    12  4  u32 gaps: sequence discontinuities (each lost run or out-of-order arrival counts once)
//    16  4  u32 missing: datagrams implied lost by forward sequence jumps
//    20  4  u32 out of order: arrivals whose sequence went backwards or repeated
//    24  4  u32 dropped after the bound: datagrams that arrived after the capture was full
//    28  4  u32 malformed: datagrams whose length was not the expected size (recorded anyway, and
//               kept out of the sequence count: their first bytes are no sequence number)
//    32  1  u8 truncation: 0 none (stopped by the caller), 1 maximum datagrams, 2 maximum duration
//    33  3  reserved (zero)
//    36  4  u32 probes: two-byte 00 00 datagrams the firmware sends before a unicast stream
//               (data_streamer.cc, up to 10, to resolve the receiver's MAC); not recorded
//               (files written before this field have 0 here)
//    40  8  f64 duration, ms
//    48 32  SHA-256 over every byte of the file before this field
//
// The SHA-256 makes the file self-verifying; the capture summary reports the same digest, and
// `readCaptureFile` recomputes it. Truncation is always explicit in the trailer, never silent.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DEBUG_DATAGRAM_BYTES } from './datagram.js';

export const CAPTURE_MAGIC = 'U64DBGC1';
export const TRAILER_MAGIC = 'U64DBGT1';
export const CAPTURE_VERSION = 1;
export const HEADER_BYTES = 32;
export const RECORD_HEADER_BYTES = 12;
export const TRAILER_BYTES = 80;

export type Truncation = 'none' | 'max-datagrams' | 'max-duration';
const TRUNCATION_CODES: Truncation[] = ['none', 'max-datagrams', 'max-duration'];

export interface CaptureHeader {
  version: number;
  datagramBytes: number;
  startedAtMs: number;
  maxDatagrams: number;
  maxDurationMs: number;
}

export interface CaptureStats {
  datagrams: number;
  gaps: number;
  missing: number;
  outOfOrder: number;
  droppedAfterBound: number;
  malformed: number;
  /** Pre-stream `00 00` probe datagrams seen (not recorded, not counted as malformed). */
  probes: number;
  truncation: Truncation;
  durationMs: number;
}

export interface CaptureRecord {
  ordinal: number;
  sequence: number;
  arrivalMicros: number;
  datagram: Uint8Array;
}

export function encodeHeader(h: CaptureHeader): Buffer {
  const b = Buffer.alloc(HEADER_BYTES);
  b.write(CAPTURE_MAGIC, 0, 'latin1');
  b.writeUInt32LE(h.version, 8);
  b.writeUInt32LE(h.datagramBytes, 12);
  b.writeDoubleLE(h.startedAtMs, 16);
  b.writeUInt32LE(h.maxDatagrams, 24);
  b.writeUInt32LE(h.maxDurationMs, 28);
  return b;
}

export function encodeRecordHeader(ordinal: number, sequence: number, length: number, arrivalMicros: number): Buffer {
  const b = Buffer.alloc(RECORD_HEADER_BYTES);
  writeRecordHeader(b, ordinal, sequence, length, arrivalMicros);
  return b;
}

/** Writes a record header into the first 12 bytes of `b`. */
export function writeRecordHeader(b: Buffer, ordinal: number, sequence: number, length: number, arrivalMicros: number): void {
  b.writeUInt32LE(ordinal >>> 0, 0);
  b.writeUInt16LE(sequence & 0xffff, 4);
  b.writeUInt16LE(length & 0xffff, 6);
  b.writeUInt32LE(Math.min(0xffffffff, Math.max(0, Math.round(arrivalMicros))), 8);
}

/** The trailer without its digest (48 bytes); the writer hashes it and appends the digest. */
export function encodeTrailerBody(s: CaptureStats): Buffer {
  const b = Buffer.alloc(TRAILER_BYTES - 32);
  b.write(TRAILER_MAGIC, 0, 'latin1');
  b.writeUInt32LE(s.datagrams, 8);
  b.writeUInt32LE(s.gaps, 12);
  b.writeUInt32LE(s.missing, 16);
  b.writeUInt32LE(s.outOfOrder, 20);
  b.writeUInt32LE(s.droppedAfterBound, 24);
  b.writeUInt32LE(s.malformed, 28);
  b.writeUInt8(TRUNCATION_CODES.indexOf(s.truncation), 32);
  b.writeUInt32LE(s.probes, 36);
  b.writeDoubleLE(s.durationMs, 40);
  return b;
}

/** The firmware's pre-stream probe: a two-byte datagram of zeros (data_streamer.cc). */
export function isStreamProbe(msg: Uint8Array): boolean {
  return msg.length === 2 && msg[0] === 0 && msg[1] === 0;
}

/**
 * Counts sequence discontinuities as datagrams arrive. The sequence is a wrapping u16: a forward
 * jump of less than half the space is a loss, anything else (zero or backwards) is out of order.
 */
export class SequenceTracker {
  gaps = 0;
  missing = 0;
  outOfOrder = 0;
  #last = -1;

  observe(seq: number): void {
    if (this.#last < 0) {
      this.#last = seq;
      return;
    }
    const delta = (seq - this.#last) & 0xffff;
    if (delta === 1) {
      this.#last = seq;
      return;
    }
    this.gaps++;
    if (delta === 0 || delta >= 0x8000) {
      this.outOfOrder++;
    } else {
      this.missing += delta - 1;
      this.#last = seq;
    }
  }
}

export interface ParsedCapture {
  header: CaptureHeader;
  records: CaptureRecord[];
  stats: CaptureStats;
  sha256: string;
  /** True when the embedded digest matches the bytes and the structure is consistent. */
  valid: boolean;
  problems: string[];
}

/** Reads and verifies a capture file (whole file in memory: meant for tests and tools, not GBs). */
export async function readCaptureFile(path: string): Promise<ParsedCapture> {
  return parseCapture(await readFile(path));
}

export function parseCapture(buf: Buffer): ParsedCapture {
  const problems: string[] = [];
  if (buf.length < HEADER_BYTES + TRAILER_BYTES) throw new Error(`capture file too short: ${buf.length} bytes`);
  if (buf.toString('latin1', 0, 8) !== CAPTURE_MAGIC) throw new Error('not a debug-stream capture (bad magic)');
  const header: CaptureHeader = {
    version: buf.readUInt32LE(8),
    datagramBytes: buf.readUInt32LE(12),
    startedAtMs: buf.readDoubleLE(16),
    maxDatagrams: buf.readUInt32LE(24),
    maxDurationMs: buf.readUInt32LE(28),
  };
  if (header.version !== CAPTURE_VERSION) problems.push(`unsupported version ${header.version}`);
  const t = buf.length - TRAILER_BYTES;
  if (buf.toString('latin1', t, t + 8) !== TRAILER_MAGIC) throw new Error('capture trailer missing (file incomplete?)');
  const code = buf.readUInt8(t + 32);
  const stats: CaptureStats = {
    datagrams: buf.readUInt32LE(t + 8),
    gaps: buf.readUInt32LE(t + 12),
    missing: buf.readUInt32LE(t + 16),
    outOfOrder: buf.readUInt32LE(t + 20),
    droppedAfterBound: buf.readUInt32LE(t + 24),
    malformed: buf.readUInt32LE(t + 28),
    probes: buf.readUInt32LE(t + 36),
    truncation: TRUNCATION_CODES[code] ?? 'none',
    durationMs: buf.readDoubleLE(t + 40),
  };
  if (code >= TRUNCATION_CODES.length) problems.push(`unknown truncation code ${code}`);
  const digest = createHash('sha256')
    .update(buf.subarray(0, t + 48))
    .digest();
  const embedded = buf.subarray(t + 48, t + 80);
  if (!digest.equals(embedded)) problems.push('SHA-256 mismatch: the file was altered or truncated');
  const records: CaptureRecord[] = [];
  const tracker = new SequenceTracker();
  let malformed = 0;
  let at = HEADER_BYTES;
  while (at < t) {
    if (at + RECORD_HEADER_BYTES > t) {
      problems.push(`partial record header at byte ${at}`);
      break;
    }
    const ordinal = buf.readUInt32LE(at);
    const sequence = buf.readUInt16LE(at + 4);
    const len = buf.readUInt16LE(at + 6);
    const arrivalMicros = buf.readUInt32LE(at + 8);
    if (at + RECORD_HEADER_BYTES + len > t) {
      problems.push(`record ${ordinal} runs past the trailer`);
      break;
    }
    if (ordinal !== records.length) problems.push(`record ordinal ${ordinal} where ${records.length} was expected`);
    const datagram = buf.subarray(at + RECORD_HEADER_BYTES, at + RECORD_HEADER_BYTES + len);
    if (len !== header.datagramBytes) malformed++;
    else tracker.observe(sequence);
    records.push({ ordinal, sequence, arrivalMicros, datagram });
    at += RECORD_HEADER_BYTES + len;
  }
  if (records.length !== stats.datagrams) problems.push(`trailer says ${stats.datagrams} datagrams, file holds ${records.length}`);
  if (tracker.gaps !== stats.gaps || tracker.missing !== stats.missing || tracker.outOfOrder !== stats.outOfOrder) {
    problems.push('trailer gap counts disagree with the recorded sequence numbers');
  }
  if (malformed !== stats.malformed) problems.push('trailer malformed count disagrees with the records');
  return { header, records, stats, sha256: embedded.toString('hex'), valid: problems.length === 0, problems };
}

export { DEBUG_DATAGRAM_BYTES };
