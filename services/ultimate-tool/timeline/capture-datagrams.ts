// Every datagram of a run's capture from the first on, block by block, each block re-hashed
// against the index as a timeline page does (readVerifiedBlock): a tampered capture is refused,
// not read. The one pass the program-start scan and the capture judge share; each decides what a
// gap or a misplaced datagram means to it.
import { openEvidenceFile } from '../runs/evidence-file.js';
import { INDEX_HEADER_BYTES, INDEX_RECORD_BYTES } from './capture-index.js';
import { DATAGRAM_HEADER_BYTES, RECORD_HEADER_BYTES, TimelineError, readVerifiedBlock } from './timeline-page.js';

export interface CapturedDatagram {
  /** The datagram's place in the capture (0-based). */
  ordinal: number;
  /** The index record's marks: bit 31 out of order, the low bits datagrams lost before it. */
  marks: number;
  /** Whether its place in time is known: in order, and of the capture's datagram length. */
  placed: boolean;
  /** Its entries (valid for this datagram only: the buffer is the block's). */
  entryCount: number;
  entry(e: number): number;
}

export async function* capturedDatagrams(capturePath: string, indexPath: string): AsyncGenerator<CapturedDatagram> {
  const index = await openEvidenceFile(indexPath);
  const capture = await openEvidenceFile(capturePath);
  try {
    const head = Buffer.alloc(INDEX_HEADER_BYTES);
    await index.read(head, 0, INDEX_HEADER_BYTES, 0);
    const total = head.readUInt32LE(12);
    const perBlock = head.readUInt32LE(16);
    const datagramBytes = head.readUInt32LE(20);
    if (perBlock < 1) throw new TimelineError('index-malformed', 'the timeline index has zero records per block');
    const blocksAt = INDEX_HEADER_BYTES + total * INDEX_RECORD_BYTES;
    for (let blockFirst = 0, blockNo = 0; blockFirst < total; blockFirst += perBlock, blockNo++) {
      const { count, recs, from, bytes } = await readVerifiedBlock(index, capture, { total, perBlock, blocksAt }, blockNo);
      for (let i = 0; i < count; i++) {
        const r = i * INDEX_RECORD_BYTES;
        const length = recs.readUInt16LE(r + 10);
        const marks = recs.readUInt32LE(r + 12);
        const base = Number(recs.readBigUInt64LE(r)) - from + RECORD_HEADER_BYTES + DATAGRAM_HEADER_BYTES;
        yield {
          ordinal: blockFirst + i,
          marks,
          placed: (marks & 0x80000000) === 0 && length === datagramBytes,
          entryCount: Math.floor((length - DATAGRAM_HEADER_BYTES) / 4),
          entry: (e) => bytes.readUInt32LE(base + e * 4),
        };
      }
    }
  } finally {
    await Promise.all([index.close(), capture.close()]);
  }
}
