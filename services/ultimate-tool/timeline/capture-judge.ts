// The judge's observation of a capture run, read back from the run's own verified capture: the
// same BusTraceObserver that watches a verdict run's live stream (targets/bus-trace-observer.ts)
// is fed the capture's entries in stream order, so a capture run's $D7FF writes carry cycles
// counted exactly as every other run's (issue 35.4, one clock: φ2 clocks from the program's first
// instruction). The capture holds the one stream the device sends; a second, live receiver is not
// possible, and the device's REST register polled beside the capture gives no cycles.
//
// Cycles are exact only when the stream shows the VIC's half-cycles ("6510 & VIC": the clocks the
// VIC takes are in it) and no datagram was lost, malformed or out of order before the run ended
// (a missing datagram is 180 clocks nobody saw; losses before the program's start cost nothing). Blocks are re-hashed against the index as a
// timeline page does, so a tampered capture is refused, not judged.
import { openEvidenceFile } from '../runs/evidence-file.js';
import { BusTraceObserver } from '../targets/bus-trace-observer.js';
import type { DebugRegisterWrite, RunProtocol } from '../targets/connection.js';
import { INDEX_HEADER_BYTES, INDEX_RECORD_BYTES } from './capture-index.js';
import { DATAGRAM_HEADER_BYTES, RECORD_HEADER_BYTES, type StreamProduct, TimelineError, readVerifiedBlock } from './timeline-page.js';

export interface CaptureJudgement {
  /** The program's $D7FF writes after its first instruction, in order; `cycle` meaningful only when `cycleSource` is set. */
  writes: DebugRegisterWrite[];
  /** Every write is in the trace: the program started in it, no datagram before the run's end was lost or misplaced, and no capture bound cut it before the end. */
  writesExact: boolean;
  /** A capture bound cut the trace before the run's end: later writes are not in it (the cycles of those in it stay exact). */
  cutBeforeEnd: boolean;
  /** 'debug-stream' when the cycles are exact φ2 clocks from the program's first instruction; null otherwise. */
  cycleSource: 'debug-stream' | null;
  /** Whether the stream showed VIC half-cycles (false: "6510 Only", stolen clocks absent). */
  sawVicHalves: boolean;
}

export async function judgeCapture(
  capturePath: string,
  indexPath: string,
  prg: Uint8Array,
  protocol: RunProtocol,
  product: StreamProduct,
  /** The trace should hold the run's end: a capture bound stopped it, or the run ended (seen by polling) before the stream stopped. */
  endExpected: boolean,
): Promise<CaptureJudgement> {
  // No snapshot: the capture judge reports writes and cycles, not memory at a marker.
  const observer = new BusTraceObserver({ prg, protocol, snapshot: [], family: product, onMarker: () => undefined });
  let lost = false;
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
    outer: for (let blockFirst = 0, blockNo = 0; blockFirst < total; blockFirst += perBlock, blockNo++) {
      const { count, recs, from, bytes } = await readVerifiedBlock(index, capture, { total, perBlock, blocksAt }, blockNo);
      for (let i = 0; i < count; i++) {
        const r = i * INDEX_RECORD_BYTES;
        const length = recs.readUInt16LE(r + 10);
        const marks = recs.readUInt32LE(r + 12);
        // A gap before this datagram, or a datagram that cannot be placed in time: once the program
        // runs, its clocks (and maybe a write) are missing. Before its start only the boot is lost.
        if ((marks & 0x7fffffff) !== 0 && observer.started) lost = true;
        if ((marks & 0x80000000) !== 0 || length !== datagramBytes) {
          if (observer.started) lost = true;
          continue;
        }
        const base = Number(recs.readBigUInt64LE(r)) - from + RECORD_HEADER_BYTES + DATAGRAM_HEADER_BYTES;
        const n = Math.floor((length - DATAGRAM_HEADER_BYTES) / 4);
        const entries = new Uint32Array(n);
        for (let e = 0; e < n; e++) entries[e] = bytes.readUInt32LE(base + e * 4);
        if (observer.feed(entries)) break outer;
      }
    }
  } finally {
    await Promise.all([index.close(), capture.close()]);
  }
  const cutBeforeEnd = endExpected && observer.end === null;
  const writesExact = !lost && observer.started && !cutBeforeEnd;
  const cycleSource = !lost && observer.started && observer.sawVicHalves ? 'debug-stream' : null;
  return { writes: observer.writes, writesExact, cutBeforeEnd, cycleSource, sawVicHalves: observer.sawVicHalves };
}
