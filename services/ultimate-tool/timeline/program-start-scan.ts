// Where, in a run's capture, its program executed its first instruction — the boundary between the
// rows of whatever ran before the reset (the previous program, the boot) and the rows of this one,
// and the timeline's cycle origin. The same recognition as the judge (issue 35.4: one clock): the
// first opcode fetch inside the PRG's load range after the reset's vector fetch
// (LoadRangeStartDetector, targets/program-start.ts), fed the same accesses the judge's bus-trace
// observer feeds it (CPU writes, and CPU reads with BA high). One pass over the capture from its
// first datagram until the start, block by block, each block re-hashed against the index as a
// timeline page does: a tampered capture cannot move the boundary unseen. Out-of-order and
// malformed datagrams are skipped (their place in time is unknown). The service caches the answer
// per run (runs are immutable).
import { openEvidenceFile } from '../runs/evidence-file.js';
import { LoadRangeStartDetector } from '../targets/program-start.js';
import { INDEX_HEADER_BYTES, INDEX_RECORD_BYTES } from './capture-index.js';
import {
  DATAGRAM_HEADER_BYTES,
  type ProgramStartCursor,
  RECORD_HEADER_BYTES,
  type StreamProduct,
  TimelineError,
  decodeFlags,
  readVerifiedBlock,
} from './timeline-page.js';

export async function findProgramStart(
  capturePath: string,
  indexPath: string,
  loadRange: { start: number; end: number },
  product: StreamProduct,
): Promise<ProgramStartCursor | null> {
  const detector = new LoadRangeStartDetector(loadRange);
  // The detector hands back the "clock" of the fetch it recognised: here, the access's place in
  // the capture, from which the cursor is recovered.
  const places: ProgramStartCursor[] = [];
  let place = 0;
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
        if ((recs.readUInt32LE(r + 12) & 0x80000000) !== 0 || length !== datagramBytes) continue;
        const base = Number(recs.readBigUInt64LE(r)) - from + RECORD_HEADER_BYTES + DATAGRAM_HEADER_BYTES;
        const entries = Math.floor((length - DATAGRAM_HEADER_BYTES) / 4);
        for (let e = 0; e < entries; e++) {
          const word = bytes.readUInt32LE(base + e * 4);
          const d = decodeFlags(word, product);
          if (d.access !== 'write' && d.access !== 'read') continue;
          places[place & 1] = { ordinal: blockFirst + i, entry: e };
          if (d.access === 'write') detector.write(word & 0xffff, place++);
          else {
            const fetch = detector.read(word & 0xffff, place++);
            if (fetch !== null) return places[fetch & 1]!;
          }
        }
      }
    }
    return null;
  } finally {
    await Promise.all([index.close(), capture.close()]);
  }
}
