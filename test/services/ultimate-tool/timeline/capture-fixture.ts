// Writes real capture files (the device layer's format, capture-file.ts) from given datagrams, as
// the capture receiver would have recorded them.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import {
  CAPTURE_VERSION,
  encodeHeader,
  encodeRecordHeader,
  encodeTrailerBody,
} from '../../../../engines/ultimate/debug-stream/capture-file.js';
import { DEBUG_DATAGRAM_BYTES, DEBUG_ENTRIES_PER_DATAGRAM } from '../../../../engines/ultimate/debug-stream/datagram.js';

/** A U64-layout entry: PHI2 high, GAME#/EXROM#/IRQ#/ROM#/NMI# inactive (high), BA as given. */
export function entry(address: number, data: number, kind: 'read' | 'write' | 'vic', ba = true): number {
  const phi2 = kind === 'vic' ? 0 : 1;
  const rw = kind === 'write' ? 0 : 1;
  return (
    ((phi2 << 31) |
      (1 << 30) |
      (1 << 29) |
      ((ba ? 1 : 0) << 28) |
      (1 << 27) |
      (1 << 26) |
      (1 << 25) |
      (rw << 24) |
      ((data & 0xff) << 16) |
      (address & 0xffff)) >>>
    0
  );
}

export function datagram(sequence: number, entries: number[]): Buffer {
  const d = Buffer.alloc(DEBUG_DATAGRAM_BYTES);
  d.writeUInt16LE(sequence & 0xffff, 0);
  for (let i = 0; i < DEBUG_ENTRIES_PER_DATAGRAM; i++) d.writeUInt32LE(entries[i % entries.length] ?? 0, 4 + i * 4);
  return d;
}

export function writeCapture(path: string, datagrams: Buffer[]): void {
  const parts: Buffer[] = [
    encodeHeader({
      version: CAPTURE_VERSION,
      datagramBytes: DEBUG_DATAGRAM_BYTES,
      startedAtMs: 0,
      maxDatagrams: 1_000_000,
      maxDurationMs: 60_000,
    }),
  ];
  datagrams.forEach((d, i) => {
    parts.push(encodeRecordHeader(i, d.length >= 2 ? d.readUInt16LE(0) : 0, d.length, i * 365));
    parts.push(d);
  });
  const body = encodeTrailerBody({
    datagrams: datagrams.length,
    gaps: 0,
    missing: 0,
    outOfOrder: 0,
    droppedAfterBound: 0,
    malformed: 0,
    probes: 0,
    truncation: 'none',
    durationMs: datagrams.length * 0.365,
  });
  const all = Buffer.concat([...parts, body]);
  writeFileSync(path, Buffer.concat([all, createHash('sha256').update(all).digest()]));
}
