// The judge's observation of a capture run, read back from the run's own verified capture — its
// writes and how the run ended in it (jobs/captures.ts captureWait hands that to run-judge.ts): the
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
import { BusTraceObserver, type TraceEnd } from '../targets/bus-trace-observer.js';
import type { DebugRegisterWrite, RunProtocol } from '../targets/connection.js';
import { capturedDatagrams } from './capture-datagrams.js';
import type { StreamProduct } from './timeline-page.js';

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
  /** The program's first instruction is in the trace. */
  started: boolean;
  /** How the run ended in the trace (a verdict, a crash, budget.cycles passed, a halt); null: the trace holds no end. */
  end: TraceEnd | null;
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
  for await (const d of capturedDatagrams(capturePath, indexPath)) {
    // A gap before this datagram, or a datagram that cannot be placed in time: once the program
    // runs, its clocks (and maybe a write) are missing. Before its start only the boot is lost.
    if ((d.marks & 0x7fffffff) !== 0 && observer.running) lost = true;
    if (!d.placed) {
      if (observer.running) lost = true;
      continue;
    }
    const entries = new Uint32Array(d.entryCount);
    for (let e = 0; e < d.entryCount; e++) entries[e] = d.entry(e);
    if (observer.feed(entries)) break;
  }
  // The trace holds no end: a program BASIC ran (and never wrote $D7FF) started at BASIC's start.
  if (!observer.end) observer.settle();
  const cutBeforeEnd = endExpected && observer.end === null;
  const writesExact = !lost && observer.started && !cutBeforeEnd;
  const cycleSource = !lost && observer.started && observer.sawVicHalves ? 'debug-stream' : null;
  return {
    writes: observer.writes,
    writesExact,
    cutBeforeEnd,
    cycleSource,
    sawVicHalves: observer.sawVicHalves,
    started: observer.started,
    end: observer.end,
  };
}
